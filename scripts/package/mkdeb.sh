#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mkdeb.sh [OUTDIR]: build the Debian packages of the release in VERSION
#   ramtrail-dkms_<version>_all.deb     the module's source for DKMS, the
#                                       initramfs-tools hook, modprobe.d file,
#                                       the marker device's udev rule
#   ramtrail-tools_<version>_amd64.deb  the ramtrail command and its man page,
#                                       the ramtrail-collect unit, ramtrail
#                                       setup
#   ramtrail-tools_<version>_arm64.deb  the same, cross-built for arm64
# into OUTDIR (default build/deb); DEB_ARCHS="amd64 arm64" (the default)
# names the tools' architectures. Needs dpkg-deb, dpkg-buildflags
# (dpkg-dev) and for arm64 Debian's gcc-aarch64-linux-gnu; prints the paths
# of the packages. The packages are native (the version has no Debian
# revision) and built as debhelper would: hardened and stripped command,
# changelog, copyright, md5sums, root's files of mode 0644 or 0755
# (lintian --pedantic, test-packages.sh).
set -euo pipefail
umask 022
top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/scripts/package
out=${1:-$top/build/deb}
ver=$(cat "$top/VERSION")
[[ $ver =~ ^[0-9][0-9A-Za-z.+~]*$ ]] || { echo "mkdeb: bad version '$ver' in VERSION" >&2; exit 1; }
command -v dpkg-buildflags >/dev/null || { echo "mkdeb: needs dpkg-buildflags (dpkg-dev)" >&2; exit 1; }
maint="ramtrail developers <ramtrail-devel@example.org>"
# The changelog's date and the files' times: the last commit's, so a tree
# gives the same packages each time.
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
	SOURCE_DATE_EPOCH=$(git -C "$top" log -1 --format=%ct 2>/dev/null) ||
		SOURCE_DATE_EPOCH=$(stat -c %Y "$top/VERSION")
fi
export SOURCE_DATE_EPOCH
stage=$out/stage
rm -rf "$stage"
mkdir -p "$out"

# changelog: this release's entry of CHANGELOG as a Debian changelog (a
# native package's, changelog.gz)
changelog() {
	local body
	body=$(awk -v v="$ver" '/^[^ ]/ { on = ($1 == v); next }
		on && /^  [^ ]/ && !seen++ { print "  * " substr($0, 3); next }
		on && NF { print "  " $0 }' "$top/CHANGELOG")
	[ -n "$body" ] || body="  * Release $ver."
	printf 'ramtrail (%s) unstable; urgency=medium\n\n%s\n\n -- %s  %s\n' "$ver" "$body" \
		"$maint" "$(date -u -R -d "@$SOURCE_DATE_EPOCH")"
}

# doc DIR PKG: the copyright file and changelog every Debian package carries
doc() {
	mkdir -p "$1/usr/share/doc/$2"
	install -m 644 "$here/copyright" "$1/usr/share/doc/$2/copyright"
	changelog | gzip -9n >"$1/usr/share/doc/$2/changelog.gz"
}

# seal DIR: root's modes (0755 for directories and what is executable, 0644
# for the rest), times no later than the last commit, and DEBIAN/md5sums
seal() {
	find "$1" -type d -exec chmod 755 {} +
	find "$1" -type f -perm /u+x -exec chmod 755 {} +
	find "$1" -type f ! -perm /u+x -exec chmod 644 {} +
	find "$1" -newermt "@$SOURCE_DATE_EPOCH" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
	(cd "$1" && find . -path ./DEBIAN -prune -o -type f -printf '%P\n' | LC_ALL=C sort |
		xargs -d '\n' md5sum) >"$1/DEBIAN/md5sums"
	chmod 644 "$1/DEBIAN/md5sums"
}

# ---- ramtrail-dkms: what DKMS builds (Kbuild, VERSION, fs/, include/), no bench
d=$stage/dkms
src=$d/usr/src/ramtrail-$ver
mkdir -p "$src/fs/ramtrail" "$d/DEBIAN" "$d/etc/modprobe.d" "$d/usr/lib/udev/rules.d" \
	"$d/usr/share/initramfs-tools/hooks" "$d/usr/share/initramfs-tools/scripts/init-top"
cp "$top/Kbuild" "$top/VERSION" "$src/"
for f in "$top"/fs/ramtrail/*.[ch]; do
	case ${f##*/} in bench.c) continue ;; esac
	cp "$f" "$src/fs/ramtrail/"
done
cp -r "$top/include" "$src/"
sed "s/@VERSION@/$ver/" "$here/dkms.conf.in" >"$src/dkms.conf"
install -m 755 "$here/initramfs-hook" "$d/usr/share/initramfs-tools/hooks/ramtrail"
install -m 755 "$here/initramfs-init-top" "$d/usr/share/initramfs-tools/scripts/init-top/ramtrail"
install -m 644 "$here/modprobe.conf" "$d/etc/modprobe.d/ramtrail.conf"
# Not a conffile: an administrator copies it to /etc/udev/rules.d to edit it.
install -m 644 "$here/udev.rules" "$d/usr/lib/udev/rules.d/60-ramtrail.rules"
doc "$d" ramtrail-dkms
echo /etc/modprobe.d/ramtrail.conf >"$d/DEBIAN/conffiles"
for s in postinst prerm postrm; do
	sed "s/@VERSION@/$ver/" "$here/dkms.$s" >"$d/DEBIAN/$s"
	chmod 755 "$d/DEBIAN/$s"
done
cat >"$d/DEBIAN/control" <<END
Package: ramtrail-dkms
Source: ramtrail
Version: $ver
Architecture: all
Maintainer: $maint
Depends: dkms (>= 3.0.3-4~)
Recommends: initramfs-tools, ramtrail-tools
Section: kernel
Priority: optional
Installed-Size: $(du -sk --exclude=DEBIAN "$d" | cut -f1)
Description: crash-surviving per-CPU trace store in persistent RAM (DKMS)
 ramtrail records what every CPU did (functions, scheduler, interrupts,
 the log) into RAM that survives a crash and a warm reboot, and shows the
 recovered trace at the next boot in /sys/fs/pstore.
 .
 This package builds the ramtrail module with DKMS for every installed
 kernel with headers that it supports (x86-64 and arm64, Linux 6.1 to
 6.12), and loads it from the initramfs when the kernel command line
 (ramtrail.*) or /etc/modprobe.d/ramtrail.conf configures it.
END
seal "$d"

# ---- ramtrail-tools: the command, dynamically linked, and its man page
# tools_stage ARCH: the package's tree for Debian architecture ARCH
tools_stage() {
	local arch=$1 o=$stage/build-$1 cc=cc cross= t=$stage/tools-$1 glibc f cfi
	local -a flags
	if [ "$arch" = arm64 ]; then
		cc=aarch64-linux-gnu-gcc cross=aarch64-linux-gnu-
	fi
	# Debian's hardening, all of it (fortify, stack protector, relro,
	# bindnow; PIE is gcc's default), in a build of its own: make tools'
	# command is built without. Debian 12's dpkg-buildflags lacks what
	# later ones add to hardening=+all: stack clash protection and the
	# CPU's control-flow protection (CET, or arm64's PAC and BTI; the
	# binary is marked for CET or BTI only once the C library's start
	# files are, which Debian 12's are not).
	cfi=-fcf-protection
	[ "$arch" = amd64 ] || cfi=-mbranch-protection=standard
	for f in CPPFLAGS CFLAGS LDFLAGS; do
		flags+=("$f=$(cd "$top" && DEB_HOST_ARCH=$arch DEB_BUILD_MAINT_OPTIONS=hardening=+all \
			DEB_CFLAGS_MAINT_APPEND="-fstack-clash-protection $cfi" dpkg-buildflags --get $f)")
	done
	make -s -C "$top/tools" O="$o" CC="$cc" "${flags[@]}" "$o/ramtrail"
	mkdir -p "$t/DEBIAN" "$t/usr/bin" "$t/usr/share/man/man1" "$t/usr/libexec/ramtrail" \
		"$t/lib/systemd/system" "$t/usr/share/lintian/overrides"
	install -m 755 "$o/ramtrail" "$t/usr/bin/ramtrail"
	install -m 755 "$here/ramtrail-collect" "$t/usr/libexec/ramtrail/ramtrail-collect"
	# "ramtrail setup" runs it.
	install -m 755 "$here/ramtrail-setup" "$t/usr/libexec/ramtrail/ramtrail-setup"
	install -m 644 "$here/ramtrail-collect.service" "$t/lib/systemd/system/"
	install -m 644 "$here/tools.lintian-overrides" "$t/usr/share/lintian/overrides/ramtrail-tools"
	for s in postinst postrm; do
		install -m 755 "$here/tools.$s" "$t/DEBIAN/$s"
	done
	# As dh_strip does: no symbols, no compiler's .comment.
	"${cross}strip" --remove-section=.comment --remove-section=.note "$t/usr/bin/ramtrail"
	gzip -9n <"$top/Documentation/ramtrail/ramtrail.1" >"$t/usr/share/man/man1/ramtrail.1.gz"
	doc "$t" ramtrail-tools
	# The newest glibc symbol version the command uses.
	glibc=$("${cross}objdump" -T "$t/usr/bin/ramtrail" | grep -o 'GLIBC_[0-9.]*' |
		cut -d_ -f2 | sort -V | tail -n1)
	cat >"$t/DEBIAN/control" <<END
Package: ramtrail-tools
Source: ramtrail
Version: $ver
Architecture: $arch
Maintainer: $maint
Depends: libc6 (>= $glibc)
Suggests: ramtrail-dkms, trace-cmd, kernelshark
Section: devel
Priority: optional
Installed-Size: $(du -sk --exclude=DEBIAN "$t" | cut -f1)
Description: read ramtrail traces: decode, export to trace.dat, stats
 The ramtrail command reads a ramtrail region image (a dump of RAM, a QEMU
 -mem-path file) or the files ramtrail shows in /sys/fs/pstore (or their
 copies that systemd-pstore archives in /var/lib/systemd/pstore), and
 prints the trace as ftrace text, or exports it for trace-cmd and
 KernelShark (trace.dat) or Perfetto.
 .
 The ramtrail-collect unit, after systemd-pstore at boot, writes each
 archived trace's trace.dat and Perfetto trace under /var/lib/ramtrail
 and logs its crash record as one structured journal entry.
 .
 ramtrail setup picks the RAM for the region on x86-64, reserves it on
 the kernel command line through GRUB and has the initramfs load the
 module on it.
END
	seal "$t"
}
archs=${DEB_ARCHS:-amd64 arm64}
for a in $archs; do
	case $a in amd64|arm64) tools_stage "$a" ;; *) echo "mkdeb: no architecture '$a'" >&2; exit 1 ;; esac
done

dpkg-deb --root-owner-group -Zxz --build "$d" "$out/ramtrail-dkms_${ver}_all.deb" >/dev/null
for a in $archs; do
	dpkg-deb --root-owner-group -Zxz --build "$stage/tools-$a" \
		"$out/ramtrail-tools_${ver}_$a.deb" >/dev/null
done
rm -rf "$stage"
echo "$out/ramtrail-dkms_${ver}_all.deb"
for a in $archs; do
	echo "$out/ramtrail-tools_${ver}_$a.deb"
done
