#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# debian-rootfs.sh: a small Debian bookworm root filesystem for the QEMU
# tests, made by Debian's own mmdebstrap from the host's mirror: systemd
# as init, udev, kmod, initramfs-tools, dkms, systemd-journal-remote (its
# upload and its receiver: a fleet's log shipping) and both test kernels (the
# image and headers .debs that fetch-kernels.sh downloaded), installed
# with apt as on a real machine. bookworm-backports is in its sources for
# 6.12's dependencies. Cached as a tarball under
# ${RAMTRAIL_CACHE:-~/.cache/ramtrail}/debian/, keyed by this script and
# the kernels; prints its path.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${RAMTRAIL_CACHE:-$HOME/.cache/ramtrail}
"$here/fetch-kernels.sh" all >/dev/null
key=$( (cat "$0" "$cache/k61.stamp" "$cache/k612.stamp") | sha256sum | cut -c1-12)
out=$cache/debian/bookworm-$key.tar
if [ -f "$out" ]; then
	echo "$out"
	exit 0
fi
mirror=$("$here/fetch-kernels.sh" mirror)
debs=()
for k in k61 k612; do
	while read -r f; do
		debs+=("$cache/debs/$k/$f"*.deb)
	done < <(tail -n +2 "$cache/$k.stamp")
done
mkdir -p "$cache/debian"
tmp=$cache/debian/building.tar	# mmdebstrap's format comes from the name
rm -rf "$cache"/debian/bookworm-*.tar "$tmp"
echo "debian-rootfs: building $out (a few minutes)" >&2
# apt installs the kernels: their postinst makes each one's initramfs.
mmdebstrap --variant=minbase --mode=root \
	--aptopt='APT::Install-Recommends "false"' \
	--include=systemd-sysv,udev,kmod,initramfs-tools,dkms,procps,systemd-journal-remote \
	--customize-hook='mkdir -p "$1/tmp/kernels"' \
	--customize-hook="copy-in ${debs[*]} /tmp/kernels" \
	--customize-hook='chroot "$1" sh -c "DEBIAN_FRONTEND=noninteractive apt-get install -y -q /tmp/kernels/*.deb"' \
	--customize-hook='rm -rf "$1/tmp/kernels"' \
	--customize-hook='echo ramtrail-guest >"$1/etc/hostname"' \
	--customize-hook='echo "/dev/vda / ext4 rw,errors=remount-ro 0 1" >"$1/etc/fstab"' \
	--customize-hook='chroot "$1" passwd -d root' \
	bookworm "$tmp" \
	"deb $mirror bookworm main" "deb $mirror bookworm-backports main" >&2
mv "$tmp" "$out"
echo "$out"
