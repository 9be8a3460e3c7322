#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test-packages.sh [KVERS]: build the .debs (mkdeb.sh) and check them:
# names and versions from VERSION, what each package holds, the command's
# --version, the initramfs script's decision, lintian --pedantic, the
# command's hardening, and a DKMS build of the packaged source against
# each kernel's headers (default "6.1,6.12", fetched by
# qemu-tests/fetch-kernels.sh) in a private DKMS tree. Installs lintian
# (and with it dpkg-dev, which mkdeb.sh needs) when missing.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${RAMTRAIL_CACHE:-$HOME/.cache/ramtrail}
kvers=${1:-6.1,6.12}
ver=$(cat "$top/VERSION")
# The format version, from its one definition.
fmt=$(awk '$2 == "RAMTRAIL_VERSION" { print $3 }' "$top/include/uapi/linux/ramtrail.h")
work=$top/build/test-packages
passed=0 failed=0

# check NAME CONDITION-STATUS [DETAIL]
check() {
	if [ "$2" -eq 0 ]; then
		echo "ok   $1${3:+: $3}"; passed=$((passed + 1))
	else
		echo "FAIL $1${3:+: $3}"; failed=$((failed + 1))
	fi
}
finish() { echo "$passed passed, $failed failed"; exit $((failed != 0)); }

rm -rf "$work"; mkdir -p "$work"
# As tools/deps.sh installs what the other suites need.
if ! command -v lintian >/dev/null; then
	echo "test-packages: installing lintian"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends lintian >/dev/null
fi
mapfile -t debs < <("$top/scripts/package/mkdeb.sh" "$work/deb" 2>"$work/mkdeb.err")
dkms_deb=$work/deb/ramtrail-dkms_${ver}_all.deb
tools_deb=$work/deb/ramtrail-tools_${ver}_amd64.deb
arm_deb=$work/deb/ramtrail-tools_${ver}_arm64.deb
[ "${debs[*]:-}" = "$dkms_deb $tools_deb $arm_deb" ]
check "make deb: ramtrail-dkms, ramtrail-tools for amd64 and arm64, of version $ver" $? \
	"${debs[*]:-none} $(head -c 300 "$work/mkdeb.err")"
[ -f "$dkms_deb" ] && [ -f "$tools_deb" ] && [ -f "$arm_deb" ] || finish

# Each package as Debian would take it: no tag of lintian's at any level,
# experimental ones too, but for the packages' own overrides.
for deb in "$dkms_deb" "$tools_deb" "$arm_deb"; do
	out=$(lintian --pedantic -I --display-experimental \
		--fail-on error,warning,info,pedantic,experimental "$deb" 2>"$work/lintian.err")
	rc=$?
	[ $rc -eq 0 ] && ! grep -q '^[EWIPX]: ' <<<"$out"
	check "lintian --pedantic: ${deb##*/}" $? \
		"${out:+$(head -n 8 <<<"$out" | tr '\n' ' ')}status $rc$(grep -v '^running with root' \
			"$work/lintian.err" | head -c 200)"
done

fields() { dpkg-deb -f "$1" Package Version Architecture | tr '\n' ' '; }
f=$(fields "$dkms_deb")
[ "$f" = "Package: ramtrail-dkms Version: $ver Architecture: all " ]
check "ramtrail-dkms control: name, version, all" $? "$f"
f=$(fields "$tools_deb")
[ "$f" = "Package: ramtrail-tools Version: $ver Architecture: amd64 " ]
check "ramtrail-tools control: name, version, amd64" $? "$f"
f=$(fields "$arm_deb")
[ "$f" = "Package: ramtrail-tools Version: $ver Architecture: arm64 " ]
check "ramtrail-tools control: name, version, arm64" $? "$f"

d=$work/dkms t=$work/tools
dpkg-deb -R "$dkms_deb" "$d" && dpkg-deb -R "$tools_deb" "$t"
src=$d/usr/src/ramtrail-$ver
grep -qx "PACKAGE_VERSION=\"$ver\"" "$src/dkms.conf" &&
	grep -qx 'BUILT_MODULE_NAME\[0\]="ramtrail"' "$src/dkms.conf" &&
	grep -qx 'AUTOINSTALL="yes"' "$src/dkms.conf"
check "dkms.conf: version, module, autoinstall" $?
# DKMS refuses (77) a kernel the module does not build for, one directive
# at a time, and goes on to build the others (which fail here: a .config
# is all the kernel there is).
# excluded ARCH RELEASE [CONFIG-LEFT-OUT]: dkms build's status
excluded() {
	local k=$work/exclusive/k-$1-$2-${3:-all} c
	mkdir -p "$k"
	for c in PSTORE FUNCTION_TRACER DYNAMIC_FTRACE BLOCK NET; do
		[ "$c" = "${3:-}" ] || echo "CONFIG_$c=y"
	done >"$k/.config"
	dkms --dkmstree "$work/exclusive/var" --sourcetree "$work/exclusive/src" \
		--installtree "$work/exclusive/inst" build -m ramtrail -v "$ver" -k "$2" -a "$1" \
		--kernelsourcedir "$k" >/dev/null 2>&1
	echo $?
}
mkdir -p "$work/exclusive/src" "$work/exclusive/var" "$work/exclusive/inst" &&
	cp -r "$src" "$work/exclusive/src/" &&
	dkms --dkmstree "$work/exclusive/var" --sourcetree "$work/exclusive/src" \
		--installtree "$work/exclusive/inst" add -m ramtrail -v "$ver" >/dev/null 2>&1
r=
for a in "x86_64 6.12.0-1-amd64" "aarch64 6.1.0-1-arm64" "x86_64 6.10.3-rt-amd64" "i686 6.12.0-1-686" \
	"armv7l 6.1.0-1-armmp" "x86_64 5.10.0-30-amd64" "x86_64 6.13.0-1-amd64" "x86_64 7.1.0-1-amd64"; do
	r+=" $(excluded $a)"
done
for c in PSTORE FUNCTION_TRACER DYNAMIC_FTRACE BLOCK NET; do
	r+=" $(excluded x86_64 6.12.0-2-amd64 $c)"
done
r=${r// 77/ -}
# Three kernels taken (built, failing), ten refused.
[[ $r =~ ^( [0-9]+){3}( -){10}$ ]]
check "dkms.conf: built for x86_64 and aarch64, 6.1 to 6.12, with pstore, ftrace, block, net" $? \
	"statuses, 77 as '-': $r"
# Every object of ramtrail.ko has its source; the benchmark is left out.
want=$(sed -n '/^ramtrail-y/,/^$/p' "$top/Kbuild" | grep -o 'fs/ramtrail/[a-z0-9_-]*\.o' |
	sed 's/\.o$/.c/' | sort)
have=$(cd "$src" && ls fs/ramtrail/*.c | sort)
[ -n "$want" ] && [ "$want" = "$have" ] && [ -f "$src/VERSION" ] &&
	[ -f "$src/include/uapi/linux/ramtrail.h" ]
check "DKMS source: the module's sources, VERSION, headers, no benchmark" $? \
	"$(comm -3 <(echo "$want") <(echo "$have") | tr '\n' ' ')"
rules=$d/usr/lib/udev/rules.d/60-ramtrail.rules
[ "$(cat "$d/DEBIAN/conffiles")" = /etc/modprobe.d/ramtrail.conf ] &&
	[ -x "$d/usr/share/initramfs-tools/hooks/ramtrail" ] &&
	[ -x "$d/usr/share/initramfs-tools/scripts/init-top/ramtrail" ] &&
	grep -qx '#KERNEL=="ramtrail_marker", GROUP="tracing", MODE="0620"' "$rules" &&
	grep -q 'copy this file$' "$rules" && ! grep -q '^[^#]' "$rules" && [ ! -e "$d/etc/udev" ]
check "initramfs hook, init-top script, modprobe.d conffile, udev rule in /usr/lib (commented out)" $?
bad=
for s in postinst prerm postrm; do
	sh -n "$d/DEBIAN/$s" || bad="$bad $s"
done
grep -q "^VERSION=$ver\$" "$d/DEBIAN/postinst" || bad="$bad version"
[ -z "$bad" ]
check "maintainer scripts parse, postinst names the version" $? "$bad"

# The postinst in a root of its own (RAMTRAIL_ROOT), with stand-ins of
# dkms and update-initramfs that log their calls.
# postinst_run KERNEL...: a kernel named *-fails fails its build, *-refused
# is refused by dkms.conf (status 77), *-noheaders has no headers; prints
# the postinst's status.
pi=$work/postinst
postinst_run() {
	local k
	rm -rf "$pi/root" "$pi/calls"; mkdir -p "$pi/bin" "$pi/root/etc/udev/rules.d"
	for k; do
		mkdir -p "$pi/root/lib/modules/$k"
		case $k in *-noheaders) ;; *) mkdir "$pi/root/lib/modules/$k/build" ;; esac
	done
	cat >"$pi/bin/dkms" <<-END
	#!/bin/sh
	echo "dkms \$*" >>"$pi/calls"
	[ "\$1" = install ] || exit 0
	case "\$*" in *-fails*) echo "dkms: make failed" >&2; exit 10 ;; *-refused*) exit 77 ;; esac
	END
	printf '#!/bin/sh\necho "update-initramfs $*" >>"%s/calls"\n' "$pi" >"$pi/bin/update-initramfs"
	chmod +x "$pi/bin/dkms" "$pi/bin/update-initramfs"
	[ -z "${old_rules:-}" ] || printf '%s' "$old_rules" >"$pi/root/etc/udev/rules.d/60-ramtrail.rules"
	PATH=$pi/bin:$PATH RAMTRAIL_ROOT=$pi/root sh "$d/DEBIAN/postinst" configure 0.21.0 \
		>"$pi/out" 2>"$pi/err"
	echo $?
}
# 0.22.0's conffile, as shipped, goes; an edited one stays.
old_rules="# ramtrail's marker device, /dev/ramtrail_marker: each write() is one
# record of the trace (admin guide, \"Markers from user space\"). It is
# root's alone (mode 0600); to let a group write markers, uncomment the
# rule and name the group.
#
#KERNEL==\"ramtrail_marker\", GROUP=\"tracing\", MODE=\"0620\"
"
r=$(postinst_run 6.1.0-1-amd64)
[ -e "$pi/root/etc/udev/rules.d/60-ramtrail.rules" ] && r+=" kept"
old_rules=${old_rules/\#KERNEL/KERNEL}
r+=" | $(postinst_run 6.1.0-1-amd64)"
[ -e "$pi/root/etc/udev/rules.d/60-ramtrail.rules" ] && r+=" kept"
old_rules=
[ "$r" = "0 | 0 kept" ]
check "postinst: 0.22.0's udev conffile goes if as shipped, stays if edited" $? "$r"

# One kernel's failed build is reported and configures the package all
# the same; a kernel dkms.conf leaves out is no failure.
r=$(postinst_run 6.1.0-1-amd64 6.9.0-1-fails 6.2.0-1-refused 6.3.0-1-noheaders)
r+=" $(grep -c '^dkms install' "$pi/calls") $(grep -c '^update-initramfs' "$pi/calls")"
r+=" [$(grep -o '6\.[0-9.]*-1-[a-z0-9]*' "$pi/err" | tr '\n' ' ')]"
grep -q 'not built for 6.2.0-1-refused' "$pi/out" && r+=" refused"
r+=" | $(postinst_run 6.1.0-1-amd64 6.3.0-1-noheaders) [$(cat "$pi/err")]"
[ "$r" = "0 3 1 [6.9.0-1-fails ] refused | 0 []" ]
check "postinst: a failed build named, refused kernel skipped, status 0" $? "$r"

out=$("$t/usr/bin/ramtrail" --version)
[ -n "$fmt" ] && [ "$out" = "ramtrail $ver (on-RAM format $fmt)" ]
check "ramtrail --version of the package" $? "$out"
a=$work/tools-arm64
dpkg-deb -x "$arm_deb" "$a"
out=$(QEMU_LD_PREFIX=/usr/aarch64-linux-gnu qemu-aarch64 "$a/usr/bin/ramtrail" --version 2>&1)
file "$a/usr/bin/ramtrail" | grep -q "ARM aarch64" && [ "$out" = "ramtrail $ver (on-RAM format $fmt)" ]
check "the arm64 package's command is an arm64 binary; its --version (qemu-aarch64)" $? "$out"
# hardening BINARY: what it lacks of Debian's hardening (hardening-check's
# list, read with readelf, which reads either architecture)
hardening() {
	local lacks= elf
	# Read whole first: grep -q ends a pipe early, and pipefail would
	# count readelf's SIGPIPE as a miss.
	elf=$(readelf -hldW --dyn-syms "$1")
	grep -q 'Type: *DYN' <<<"$elf" || lacks+=" PIE"
	grep -q GNU_RELRO <<<"$elf" || lacks+=" RELRO"
	grep -q 'BIND_NOW\|FLAGS_1.*NOW' <<<"$elf" || lacks+=" BIND_NOW"
	grep -q ' __stack_chk_fail' <<<"$elf" || lacks+=" stack-protector"
	grep -q ' __[a-z]*_chk\b' <<<"$elf" || lacks+=" fortify"
	echo "${lacks:-none}"
}
# The probe's own check: a program built with none of it lacks all.
printf 'int main(void) { return 0; }\n' |
	cc -x c -O2 -no-pie -fno-stack-protector -U_FORTIFY_SOURCE -Wl,-z,norelro -Wl,-z,lazy \
		-o "$work/plain" -
r="$(hardening "$t/usr/bin/ramtrail") | $(hardening "$a/usr/bin/ramtrail") | $(hardening "$work/plain")"
[ "$r" = "none | none |  PIE RELRO BIND_NOW stack-protector fortify" ]
check "the command of both packages: PIE, RELRO, BIND_NOW, stack protector, fortify" $? \
	"lacks: $r (the last: a program built without)"
zcat "$t/usr/share/man/man1/ramtrail.1.gz" | grep -q '^\.TH RAMTRAIL 1'
check "man page ramtrail(1)" $?
u=$t/lib/systemd/system/ramtrail-collect.service
bad=
for f in "$t/usr/libexec/ramtrail/ramtrail-collect" "$t/usr/libexec/ramtrail/ramtrail-setup" \
	"$t/DEBIAN/postinst" "$t/DEBIAN/postrm"; do
	[ -x "$f" ] && sh -n "$f" || bad="$bad ${f##*/}"
done
grep -qx 'ExecStart=/usr/libexec/ramtrail/ramtrail-collect' "$u" &&
	grep -q '^After=systemd-pstore.service' "$u" &&
	grep -qx 'WantedBy=multi-user.target' "$u" || bad="$bad unit"
grep -q 'deb-systemd-helper enable ramtrail-collect.service' "$t/DEBIAN/postinst" || bad="$bad enable"
[ -z "$bad" ]
check "tools: ramtrail-collect and its unit (after systemd-pstore), enabled by postinst; \
ramtrail setup's script" $? "$bad"

# The init-top script loads the module when, and only when, configured.
# decide CMDLINE [MODPROBE.D LINE]: prints "load" if it ran modprobe
decide() {
	local dir=$work/initramfs
	rm -rf "$dir"; mkdir -p "$dir/bin" "$dir/modprobe.d"
	printf '%s\n' "$1" >"$dir/cmdline"
	[ -z "${2:-}" ] || printf '%s\n' "$2" >"$dir/modprobe.d/x.conf"
	printf '#!/bin/sh\necho load\n' >"$dir/bin/modprobe"; chmod +x "$dir/bin/modprobe"
	PATH=$dir/bin:$PATH RAMTRAIL_CMDLINE=$dir/cmdline RAMTRAIL_MODPROBE_D=$dir/modprobe.d \
		sh "$d/usr/share/initramfs-tools/scripts/init-top/ramtrail"
}
r="$(decide "root=/dev/vda ro quiet")|$(decide "root=/dev/vda ramtrail.mem_name=rt quiet")"
r+="|$(decide "ro noramtrail.x=1")|$(decide "ro" "options ramtrail mem_name=rt")"
r+="|$(decide "ro" "#options ramtrail mem_name=rt")|$(decide "ro" "options ramoops x=1")"
[ "$r" = "|load||load||" ]
check "init-top: modprobe only for ramtrail.* or an options line" $? "$r"
[ "$(sh "$d/usr/share/initramfs-tools/scripts/init-top/ramtrail" prereqs)" = "" ]
check "init-top: prereqs answered" $?

# DKMS builds the packaged source against each kernel's headers.
for kver in ${kvers//,/ }; do
	env=$cache/k${kver//./}.env
	arch=amd64 karch=x86_64
	case $kver in *-arm64) arch=arm64 karch=aarch64 ;; esac
	if ! "$top/qemu-tests/fetch-kernels.sh" "${kver%-arm64}" "$arch" >/dev/null 2>"$work/fetch.err"; then
		check "dkms build for $kver" 1 "no headers: $(tail -n 3 "$work/fetch.err")"
		continue
	fi
	(
		# shellcheck disable=SC1090
		. "$env"
		tree=$work/dkms-$kver
		mkdir -p "$tree/src" "$tree/var" "$tree/inst"
		cp -r "$src" "$tree/src/"
		# 6.12's kbuild makes BTF with pahole, unpacked beside the kernels.
		export PATH=$cache/tools/usr/bin:$PATH
		# arm64's headers: DKMS cross-builds as an arm64 machine's would
		# build natively (kbuild takes ARCH and CROSS_COMPILE from the
		# environment).
		[ "$arch" = amd64 ] || export ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-
		dk=(dkms --dkmstree "$tree/var" --sourcetree "$tree/src" --installtree "$tree/inst")
		"${dk[@]}" add -m ramtrail -v "$ver" >"$tree/out" 2>&1 &&
			"${dk[@]}" build -m ramtrail -v "$ver" -k "$RELEASE" -a "$karch" \
				--kernelsourcedir "$KDIR" >>"$tree/out" 2>&1
		rc=$?
		ko=$tree/var/ramtrail/$ver/$RELEASE/$karch/module/ramtrail.ko
		log=$tree/var/ramtrail/$ver/build/make.log
		[ -f "$log" ] || log=$(find "$tree/var" -name make.log | head -n 1)
		v=$(modinfo -F version "$ko" 2>/dev/null)
		m=$(modinfo -F vermagic "$ko" 2>/dev/null)
		[ $rc -eq 0 ] && [ "$v" = "$ver" ] && [ "${m%% *}" = "$RELEASE" ] &&
			! grep -q 'warning:' "$log"
		echo $? >"$tree/rc"
		echo "rc=$rc version '$v' vermagic '$m' $(grep -m2 'warning:\|rror' "$log" "$tree/out" 2>/dev/null | head -c 400)" >"$tree/detail"
	)
	check "dkms build for $kver: ramtrail.ko $ver for that kernel, no warning" \
		"$(cat "$work/dkms-$kver/rc" 2>/dev/null || echo 1)" "$(cat "$work/dkms-$kver/detail" 2>/dev/null)"
done
finish
