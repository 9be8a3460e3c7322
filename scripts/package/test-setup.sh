#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test-setup.sh: ramtrail setup (scripts/package/ramtrail-setup) on fake
# machines, each a tree given with --root: a firmware memory map
# (/sys/firmware/memmap), /proc/iomem, /proc/cmdline, /etc/default/grub
# and an update-grub. The maps are those of QEMU's pc machine with -m 1G
# (the Debian guest of qemu-tests/test_debian.py), -m 4G and -m 256M,
# and of a server with 64 GiB, most of it above 4 GiB, with a crash
# kernel reserved. Checks the range picked (2 MiB aligned, inside one
# usable range, clear of the low memory, the crash kernel and the top of
# RAM where boot loaders put the initramfs; the exact address, so a
# change of policy shows), the files written, what GRUB makes of the
# GRUB file, --dry-run, --undo, --status and every refusal's status and
# message. Needs sh (dash) and bash only.
# Dollar signs in single quotes are the point here (memmap=64M$0x...).
# shellcheck disable=SC2016
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
setup=$top/scripts/package/ramtrail-setup
work=$top/build/test-setup
passed=0 failed=0
MIB=$((1 << 20))

# check NAME CONDITION-STATUS [DETAIL]
check() {
	if [ "$2" -eq 0 ]; then
		echo "ok   $1"; passed=$((passed + 1))
	else
		echo "FAIL $1${3:+: $3}"; failed=$((failed + 1))
	fi
}

rm -rf "$work"; mkdir -p "$work"

# machine NAME CMDLINE: a fake root, its firmware map from stdin ("START
# END TYPE", END inclusive, as the kernel shows them); /proc/iomem is the
# map's System RAM and Reserved lines unless the caller writes its own.
machine() {
	local d=$work/$1 i=0 s e t
	mkdir -p "$d/proc" "$d/etc/default" "$d/usr/sbin" "$d/sys/firmware/memmap"
	: >"$d/proc/iomem"
	while read -r s e t; do
		mkdir -p "$d/sys/firmware/memmap/$i"
		echo "$s" >"$d/sys/firmware/memmap/$i/start"
		echo "$e" >"$d/sys/firmware/memmap/$i/end"
		echo "$t" >"$d/sys/firmware/memmap/$i/type"
		printf '%08x-%08x : %s\n' "$s" "$e" "$t" >>"$d/proc/iomem"
		i=$((i + 1))
	done
	echo "BOOT_IMAGE=/boot/vmlinuz-6.12.0-1-amd64 root=UUID=1234 ro $2" >"$d/proc/cmdline"
	printf '%s\n' 'GRUB_DEFAULT=0' 'GRUB_CMDLINE_LINUX_DEFAULT="quiet"' \
		'GRUB_CMDLINE_LINUX="console=ttyS0"' >"$d/etc/default/grub"
	printf '#!/bin/sh\nexit 0\n' >"$d/usr/sbin/update-grub"
	chmod 755 "$d/usr/sbin/update-grub"
	echo "$d"
}

# QEMU pc, -m 1G (SeaBIOS): RAM up to 1 GiB less 128 KiB.
qemu1g=$(machine qemu1g "" <<'END'
0x0 0x9fbff System RAM
0x9fc00 0x9ffff Reserved
0xf0000 0xfffff Reserved
0x100000 0x3ffdffff System RAM
0x3ffe0000 0x3fffffff Reserved
0xfeffc000 0xfeffffff Reserved
0xfffc0000 0xffffffff Reserved
END
)
# QEMU pc, -m 4G: 3 GiB below the PCI hole, 1 GiB above 4 GiB.
qemu4g=$(machine qemu4g "" <<'END'
0x0 0x9fbff System RAM
0x9fc00 0x9ffff Reserved
0xf0000 0xfffff Reserved
0x100000 0xbffdffff System RAM
0xbffe0000 0xbfffffff Reserved
0xfeffc000 0xfeffffff Reserved
0xfffc0000 0xffffffff Reserved
0x100000000 0x13fffffff System RAM
END
)
# A 64 GiB EFI server: low RAM broken by firmware areas, most of it
# above 4 GiB, 512 MiB for the crash kernel (crashkernel=512M).
server=$(machine server "crashkernel=512M" <<'END'
0x0 0x9bfff System RAM
0x9c000 0x9ffff Reserved
0xe0000 0xfffff Reserved
0x100000 0x5a2fffff System RAM
0x5a300000 0x6c7fefff Reserved
0x6c7ff000 0x6e7fefff ACPI Non-volatile Storage
0x6e7ff000 0x6f7fefff ACPI Tables
0x6f7ff000 0x6f7fffff System RAM
0x6f800000 0x8fffffff Reserved
0xfd000000 0xfe7fffff Reserved
0xfed00000 0xfed00fff Reserved
0xff000000 0xffffffff Reserved
0x100000000 0x107fffffff System RAM
END
)
# where the kernel put the crash kernel: the top of the low RAM's largest
# range, as crashkernel=512M does
cat >>"$server/proc/iomem" <<'END'
  3a000000-59ffffff : Crash kernel
END
# QEMU pc, -m 256M
small=$(machine small "" <<'END'
0x0 0x9fbff System RAM
0x9fc00 0x9ffff Reserved
0xf0000 0xfffff Reserved
0x100000 0xffdffff System RAM
0xffe0000 0xfffffff Reserved
0xfffc0000 0xffffffff Reserved
END
)

# 1152 MiB of RAM in 12 pieces of 96 MiB, 32 MiB reserved between them
pieces=$(machine pieces "" < <(for i in $(seq 0 11); do
	printf '%#x %#x System RAM\n%#x %#x Reserved\n' $((i * 128 * MIB)) $(((i * 128 + 96) * MIB - 1)) \
		$(((i * 128 + 96) * MIB)) $(((i * 128 + 128) * MIB - 1))
done))

# run ROOT [OPTIONS]: ramtrail setup by dash as root on x86-64; its
# output in $out, its status in $rc
run() {
	local d=$1
	shift
	out=$(RAMTRAIL_SETUP_ARCH=${ARCH:-x86_64} RAMTRAIL_SETUP_UID=${UID_AS:-0} \
		dash "$setup" --root "$d" "$@" 2>&1)
	rc=$?
}
# the memmap= argument setup printed, its address and size in bytes
picked() {
	arg=$(sed -n 's/^kernel argument: //p' <<<"$out")
	addr=$(sed -n 's/^memmap=[0-9]*M\$\(0x[0-9a-f]*\)$/\1/p' <<<"$arg")
	size=$(sed -n 's/^memmap=\([0-9]*\)M\$0x[0-9a-f]*$/\1/p' <<<"$arg")
	size=$((${size:-0} * MIB)) addr=$((${addr:-0}))
}
# usable ROOT: the firmware map's System RAM, "START END" (END exclusive)
usable() {
	local e
	for e in "$1"/sys/firmware/memmap/*; do
		[ "$(cat "$e/type")" = "System RAM" ] &&
			echo "$(($(cat "$e/start"))) $(($(cat "$e/end") + 1))"
	done
}
# valid ROOT SIZE: the range picked is SIZE, 2 MiB aligned, inside one
# usable range, above 256 MiB and clear of the crash kernel
valid() {
	local s e in=1 a b
	[ "$size" -eq "$2" ] && [ $((addr % (2 * MIB))) -eq 0 ] && [ "$addr" -ge $((256 * MIB)) ] ||
		return 1
	while read -r s e; do
		[ "$s" -le "$addr" ] && [ $((addr + size)) -le "$e" ] && in=0
	done < <(usable "$1")
	[ $in -eq 0 ] || return 1
	while read -r a b; do
		[ $((addr + size)) -le $((0x$a)) ] || [ "$addr" -gt $((0x$b)) ] || return 1
	done < <(sed -n 's/^ *\([0-9a-f]*\)-\([0-9a-f]*\) : Crash kernel$/\1 \2/p' "$1/proc/iomem")
}
# grub_words ROOT: the kernel arguments of the menu entry grub-mkconfig
# would write, as GRUB reads them: /etc/default/grub and grub.d/*.cfg
# sourced by sh as grub-mkconfig sources them, the line written as 10_linux
# writes it (a here-document), then split into words by a shell, whose
# quoting GRUB's lexer shares ("\$" is a dollar sign, "$x" a variable).
grub_words() {
	R=$1 dash -c '
		. "$R/etc/default/grub"
		for x in "$R"/etc/default/grub.d/*.cfg; do
			if [ -e "$x" ]; then . "$x"; fi
		done
		args="${GRUB_CMDLINE_LINUX} ${GRUB_CMDLINE_LINUX_DEFAULT}"
		cat <<EOF >"$R/grub.cfg.line"
	linux	/boot/vmlinuz root=UUID=1234 ro ${args}
EOF
		eval "set -- $(cat "$R/grub.cfg.line")"
		printf "%s\n" "$@"'
}
# clean ROOT: what setup wrote, removed
clean() { rm -rf "$1/etc/default/grub.d" "$1/etc/modprobe.d"; }
# tree ROOT: every file below ROOT and its checksum
tree() { (cd "$1" && find . -type f -exec md5sum {} + | sort -k2); }

# ---- the Debian guest's map (QEMU -m 1G)
run "$qemu1g"
picked
[ $rc -eq 0 ] && valid "$qemu1g" $((64 * MIB)) && [ "$addr" -eq $((0x2be00000)) ]
check "QEMU -m 1G: 64 MiB at 0x2be00000, under the 256 MiB left for the initramfs at \
the top of RAM, 2 MiB aligned, inside usable RAM" $? "status $rc, $arg: $out"
conf=$(cat "$qemu1g/etc/modprobe.d/ramtrail-setup.conf" 2>&1)
want='# Written by ramtrail setup: ramtrail records into the region that
# memmap=64M$0x2be00000 reserves. ramtrail setup --undo removes it.
options ramtrail mem_address=0x2be00000 mem_size=64M events=sched:*,irq:*'
[ "$conf" = "$want" ]
check "QEMU -m 1G: /etc/modprobe.d/ramtrail-setup.conf: the region and the default events" $? "$conf"
grub=$(cat "$qemu1g/etc/default/grub.d/ramtrail.cfg" 2>&1)
want='# Written by ramtrail setup: reserves ramtrail'"'"'s region (memmap=64M$0x2be00000).
# ramtrail setup --undo removes it.
GRUB_CMDLINE_LINUX_DEFAULT="$GRUB_CMDLINE_LINUX_DEFAULT memmap=64M\\\$0x2be00000"'
[ "$grub" = "$want" ]
check "QEMU -m 1G: /etc/default/grub.d/ramtrail.cfg appends memmap= escaped for GRUB" $? "$grub"
cfg=$(R=$qemu1g dash -c '. "$R/etc/default/grub"; . "$R/etc/default/grub.d/ramtrail.cfg"
	printf "%s" "$GRUB_CMDLINE_LINUX_DEFAULT"')
[ "$cfg" = 'quiet memmap=64M\$0x2be00000' ]
check "sourced by sh, GRUB_CMDLINE_LINUX_DEFAULT keeps quiet and holds memmap=64M\\\$0x2be00000 \
for grub.cfg" $? "$cfg"
words=$(grub_words "$qemu1g" | tr '\n' ' ')
[ "$words" = 'linux /boot/vmlinuz root=UUID=1234 ro console=ttyS0 quiet memmap=64M$0x2be00000 ' ]
check "grub.cfg's entry, as GRUB reads it: the kernel argument memmap=64M\$0x2be00000, the \
dollar kept" $? "$words"
# The package's init-top script, given the options file, loads the module.
mkdir -p "$work/bin"
printf '#!/bin/sh\necho "modprobe $*"\n' >"$work/bin/modprobe"
chmod 755 "$work/bin/modprobe"
loads=$(PATH=$work/bin:$PATH RAMTRAIL_CMDLINE=$qemu1g/proc/cmdline \
	RAMTRAIL_MODPROBE_D=$qemu1g/etc/modprobe.d sh "$top/scripts/package/initramfs-init-top" 2>&1)
[ "$loads" = "modprobe ramtrail" ]
check "the initramfs's init-top script loads ramtrail for the options file" $? "$loads"
grep -q '^  not run (--root): update-grub$' <<<"$out" &&
	grep -q '^  not run (--root): update-initramfs -u -k all$' <<<"$out"
check "--root runs neither update-grub nor update-initramfs, and says so" $? "$out"

# The guest of test_debian.py: 2 MiB, every function, sched_switch.
g1=$(machine guest "" < <(for e in "$qemu1g"/sys/firmware/memmap/*; do
	echo "$(cat "$e/start") $(cat "$e/end") $(cat "$e/type")"; done))
run "$g1" --size 2M --functions '*' --events sched:sched_switch --no-grub
picked
[ $rc -eq 0 ] && valid "$g1" $((2 * MIB)) && [ "$addr" -eq $((0x2fc00000)) ] &&
	[ ! -e "$g1/etc/default/grub.d/ramtrail.cfg" ] &&
	grep -qx 'options ramtrail mem_address=0x2fc00000 mem_size=2M functions=\* events=sched:sched_switch' \
		"$g1/etc/modprobe.d/ramtrail-setup.conf" &&
	grep -q '^Add to the kernel command line.*: memmap=2M\$0x2fc00000$' <<<"$out"
check "test_debian's guest, --size 2M --no-grub: memmap=2M\$0x2fc00000 printed for the boot \
loader, the options written, no GRUB file" $? "status $rc: $out"
clean "$g1"

# ---- QEMU -m 4G: below 4 GiB preferred
run "$qemu4g"
picked
[ $rc -eq 0 ] && valid "$qemu4g" $((64 * MIB)) && [ "$addr" -eq $((0x6c000000)) ]
check "QEMU -m 4G: 64 MiB at 0x6c000000, below 4 GiB and clear of the initramfs's 256 MiB \
under 2 GiB" $? "status $rc, $arg"
clean "$qemu4g"

# ---- the server: most RAM above 4 GiB, a crash kernel
run "$server"
picked
[ $rc -eq 0 ] && valid "$server" $((64 * MIB)) && [ "$addr" -eq $((0x36000000)) ]
check "server, 64 GiB, crash kernel at 0x3a000000: 64 MiB at 0x36000000, below 4 GiB, \
right under the crash kernel" $? "status $rc, $arg: $out"
clean "$server"
run "$server" --size 2G
picked
[ $rc -eq 0 ] && valid "$server" $((2048 * MIB)) && [ "$addr" -eq $((0xff0000000)) ]
check "server, --size 2G: no room below 4 GiB, the largest range above it (to 0x1080000000, \
256 MiB left at the top): 0xff0000000" $? "status $rc, $arg: $out"
clean "$server"
sed -i '/Crash kernel/d' "$server/proc/iomem"
run "$server"
picked
[ $rc -eq 0 ] && valid "$server" $((64 * MIB)) && [ "$addr" -eq $((0x46200000)) ]
check "server without the crash kernel: 64 MiB at 0x46200000, under the 256 MiB of RAM \
highest below 2 GiB (0x4a301000 to 0x5a300000, and 4 KiB at 0x6f7ff000)" $? "status $rc, $arg"
clean "$server"
sed -i 's/crashkernel=512M/crashkernel=256M@0x44000000/' "$server/proc/cmdline"
run "$server"
picked
[ $rc -eq 0 ] && valid "$server" $((64 * MIB)) && [ "$addr" -eq $((0x40000000)) ]
check "server, crashkernel=256M@0x44000000 on the command line: 64 MiB at 0x40000000, \
below it" $? "status $rc, $arg"
clean "$server"

# ---- /proc/iomem when there is no firmware map
io=$(machine iomem "" </dev/null)
cp "$qemu4g/proc/iomem" "$io/proc/iomem"
run "$io"
picked
[ $rc -eq 0 ] && [ "$addr" -eq $((0x6c000000)) ] && grep -q 'in /proc/iomem$' <<<"$out"
check "no /sys/firmware/memmap: /proc/iomem's System RAM, the same pick as the firmware \
map's" $? "status $rc, $arg: $out"

# ---- --dry-run, --undo, --status
before=$(tree "$qemu4g")
run "$qemu4g" --dry-run --size 128M --functions 'vfs_*,schedule'
after=$(tree "$qemu4g")
grep -q 'options ramtrail mem_address=0x68000000 mem_size=128M functions=vfs_\*,schedule events=sched:\*,irq:\*' \
	<<<"$out"
dry_shows=$?
[ $rc -eq 0 ] && [ "$before" = "$after" ] && [ $dry_shows -eq 0 ] &&
	grep -q 'not run (--dry-run)' <<<"$out"
check "--dry-run: shows the files it would write, writes nothing, runs nothing" $? \
	"status $rc: $(diff <(echo "$before") <(echo "$after")) $out"
run "$qemu1g" --status
grep -q '^  module: not loaded$' <<<"$out" &&
	grep -q 'ramtrail.cfg: memmap=64M\$0x2be00000 (from the next boot on)$' <<<"$out" &&
	grep -q '^  kernel command line: no memmap= or reserve_mem=$' <<<"$out"
check "--status before the reboot: not loaded, memmap=64M\$0x2be00000 from the next boot on" \
	$? "$out"
# The next boot, recording, after a crash that was collected.
echo "root=UUID=1234 ro quiet memmap=64M\$0x2be00000" >"$qemu1g/proc/cmdline"
p=$qemu1g/sys/module/ramtrail/parameters
mkdir -p "$p" "$qemu1g/sys/kernel/debug/ramtrail" "$qemu1g/sys/fs/pstore" \
	"$qemu1g/var/lib/ramtrail/6d2f-1"
echo 0x2be00000 >"$p/mem_address"; echo 64M >"$p/mem_size"; echo 'sched:*,irq:*' >"$p/events"
printf 'boot_id: 2\nstate: recording\npstore: registered\nprevious_state: frozen\nprevious_freeze_reason: panic\n' \
	>"$qemu1g/sys/kernel/debug/ramtrail/status"
: >"$qemu1g/var/lib/ramtrail/6d2f-1/trace.dat"
: >"$qemu1g/sys/fs/pstore/dmesg-ramtrail-1"
run "$qemu1g" --status
grep -q '^  module: loaded$' <<<"$out" && grep -q '^  mem_address: 0x2be00000$' <<<"$out" &&
	grep -q '^  state: recording$' <<<"$out" && grep -q '^  previous_freeze_reason: panic$' <<<"$out" &&
	grep -q '^  kernel command line: reserves memmap=64M\$0x2be00000$' <<<"$out" &&
	grep -q '(this boot has it)$' <<<"$out" &&
	grep -q '^  /var/lib/ramtrail/6d2f-1: trace.dat$' <<<"$out" &&
	grep -q '^  /sys/fs/pstore/dmesg-ramtrail-1$' <<<"$out"
check "--status after the reboot: loaded, its region, recording, the reservation in effect, \
the last crash collected and in pstore" $? "$out"
run "$qemu1g"
[ $rc -eq 8 ] && grep -q 'already set up (/etc/default/grub.d/ramtrail.cfg)' <<<"$out"
check "set up again: refused, status 8, --undo first" $? "status $rc: $out"
run "$qemu1g" --undo --dry-run
[ $rc -eq 0 ] && [ -f "$qemu1g/etc/default/grub.d/ramtrail.cfg" ] &&
	grep -q '^would remove /etc/modprobe.d/ramtrail-setup.conf$' <<<"$out"
check "--undo --dry-run: says what it would remove, removes nothing" $? "status $rc: $out"
run "$qemu1g" --undo
words=$(grub_words "$qemu1g" | tr '\n' ' ')
[ $rc -eq 0 ] && [ ! -e "$qemu1g/etc/default/grub.d/ramtrail.cfg" ] &&
	[ ! -e "$qemu1g/etc/modprobe.d/ramtrail-setup.conf" ] &&
	grep -q 'not run (--root): update-grub' <<<"$out" &&
	grep -q 'not run (--root): update-initramfs -u -k all' <<<"$out" &&
	[ "$words" = 'linux /boot/vmlinuz root=UUID=1234 ro console=ttyS0 quiet ' ]
check "--undo: both files gone, grub.cfg's entry as before, update-grub and update-initramfs \
again" $? "status $rc, $words: $out"
run "$qemu1g" --undo
[ $rc -eq 0 ] && grep -q '^nothing to undo' <<<"$out" && ! grep -q update-grub <<<"$out"
check "--undo with nothing set up: says so, runs nothing" $? "status $rc: $out"

# ---- refusals: each a status and a message, nothing written
# refused NAME ROOT STATUS PATTERN [OPTIONS]
refused() {
	local name=$1 d=$2 want=$3 pat=$4 before after
	shift 4
	before=$(tree "$d")
	run "$d" "$@"
	after=$(tree "$d")
	[ $rc -eq "$want" ] && grep -q -- "$pat" <<<"$out" && [ "$before" = "$after" ]
	check "refused, status $want, nothing written: $name" $? "status $rc: $out"
	[ "$before" = "$after" ] || clean "$d"	# the next case starts clean
}
UID_AS=1000 refused "not root" "$qemu4g" 2 'run it as root'
ARCH=aarch64 refused "arm64: how to add a /reserved-memory node" "$qemu4g" 3 \
	'compatible = "ramtrail"'
ARCH=aarch64 run "$qemu4g"
grep -q '^            no-map;$' <<<"$out" && grep -q 'reg = <0x0 0xADDRESS 0x0 0x4000000>' <<<"$out"
check "arm64: the node has no-map and the region's size" $? "$out"
ARCH=riscv64 refused "neither x86-64 nor arm64" "$qemu4g" 3 'riscv64: ramtrail runs on x86-64 and arm64 only'
mkdir -p "$qemu4g/sys/kernel/security"
echo 'none [integrity] confidentiality' >"$qemu4g/sys/kernel/security/lockdown"
refused "lockdown integrity (Secure Boot)" "$qemu4g" 4 'locked down (integrity, Secure Boot).*mokutil'
echo 'none integrity [confidentiality]' >"$qemu4g/sys/kernel/security/lockdown"
refused "lockdown confidentiality" "$qemu4g" 4 'locked down (confidentiality'
echo '[none] integrity confidentiality' >"$qemu4g/sys/kernel/security/lockdown"
run "$qemu4g" --dry-run
[ $rc -eq 0 ]
check "lockdown none: set up" $? "status $rc: $out"
refused "too little RAM (QEMU -m 256M)" "$small" 6 '^ramtrail setup: 255 MiB of RAM: .*512 MiB at least'
refused "a region of more than an eighth of RAM (256M of 1 GiB)" "$g1" 6 \
	'256 MiB is more than an eighth of the 1023 MiB of RAM' --size 256M
refused "no free range of the size (RAM in pieces of 96 MiB, 128M asked)" "$pieces" 7 \
	'no free 128 MiB in .* away from: .*initramfs' --size 128M
mv "$qemu4g/etc/default/grub" "$qemu4g/grub.saved"
refused "no /etc/default/grub" "$qemu4g" 5 'no GRUB here.*--no-grub'
mv "$qemu4g/grub.saved" "$qemu4g/etc/default/grub"
rm "$qemu4g/usr/sbin/update-grub"
refused "no update-grub" "$qemu4g" 5 'no GRUB here'
printf '#!/bin/sh\n' >"$qemu4g/usr/sbin/update-grub"; chmod 755 "$qemu4g/usr/sbin/update-grub"
refused "bad --size" "$qemu4g" 1 "bad --size '64Q'" --size 64Q
refused "a --size not of whole MiB" "$qemu4g" 1 "bad --size '1500K'" --size 1500K
refused "a list with a space" "$qemu4g" 1 "bad list 'vfs_read schedule'" --functions 'vfs_read schedule'
cp "$qemu4g/proc/cmdline" "$work/cmdline.saved"
for arg in 'memmap=64M$0x30000000' 'reserve_mem=64M:4096:trace' 'ramoops.mem_address=0x30000000' \
	'ramtrail.mem_size=64M'; do
	echo "root=UUID=1234 ro $arg quiet" >"$qemu4g/proc/cmdline"
	refused "$arg on the command line" "$qemu4g" 8 "the kernel command line has ${arg//$/\\$}"
done
cp "$work/cmdline.saved" "$qemu4g/proc/cmdline"
mkdir -p "$qemu4g/etc/default/grub.d"
printf '%s\n' 'GRUB_CMDLINE_LINUX="$GRUB_CMDLINE_LINUX memmap=64M\\\$0x30000000"' \
	>"$qemu4g/etc/default/grub.d/50-pmem.cfg"
refused "memmap= in /etc/default/grub.d" "$qemu4g" 8 '50-pmem.cfg already has memmap=64M'
printf '%s\n' '# GRUB_CMDLINE_LINUX="memmap=64M\\\$0x30000000"' >"$qemu4g/etc/default/grub.d/50-pmem.cfg"
run "$qemu4g" --dry-run
[ $rc -eq 0 ]
check "memmap= in a comment of grub.d: set up" $? "status $rc: $out"
rm "$qemu4g/etc/default/grub.d/50-pmem.cfg"
mkdir -p "$qemu4g/etc/modprobe.d"
echo 'options ramoops mem_address=0x30000000 mem_size=0x100000' >"$qemu4g/etc/modprobe.d/ramoops.conf"
refused "options ramoops in /etc/modprobe.d" "$qemu4g" 8 "ramoops.conf already has 'options ramoops"
rm "$qemu4g/etc/modprobe.d/ramoops.conf"
# The package's own ramtrail.conf, commented out, is no configuration.
cp "$top/scripts/package/modprobe.conf" "$qemu4g/etc/modprobe.d/ramtrail.conf"
run "$qemu4g"
[ $rc -eq 0 ]
check "the package's /etc/modprobe.d/ramtrail.conf (commented out): set up" $? "status $rc: $out"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
