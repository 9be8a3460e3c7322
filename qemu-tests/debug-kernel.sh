#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# debug-kernel.sh debug|kcsan
#
# Builds Debian's 6.12 from its own source (linux-source-6.12 of
# bookworm-backports, the version of the kernel fetch-kernels.sh unpacks)
# with the kernel's checkers, for make check-debug:
#   debug  KASAN (generic), lockdep (PROVE_LOCKING, PROVE_RCU),
#          DEBUG_ATOMIC_SLEEP, DEBUG_PREEMPT, DEBUG_OBJECTS, DEBUG_LIST,
#          kmemleak, KFENCE, UBSAN bounds
#   kcsan  KCSAN with its defaults
# on x86_64 defconfig and what the module and the QEMU tests need
# (debug-kernel/common.config; each flavour's own lines in
# debug-kernel/FLAVOUR.config; every line is checked in the result).
#
# The kernel lands as the Debian ones do, in $CACHE/k612-FLAVOUR/:
# boot/vmlinuz-REL, lib/modules/REL, and build/ to build modules against;
# $CACHE/k612-FLAVOUR.env describes it for harness.kernel("6.12-FLAVOUR").
# It is built again only when the source version or the configuration
# changes (the stamp holds both); the kept build tree and ccache keep a
# rebuild short. Prints how long the build took.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
CACHE=${RAMTRAIL_CACHE:-$HOME/.cache/ramtrail}
flavour=${1:-}
die() { echo "debug-kernel: error: $*" >&2; exit 1; }
log() { echo "debug-kernel: $*" >&2; }
case $flavour in debug|kcsan) ;; *) die "usage: $0 debug|kcsan" ;; esac
export DEBIAN_FRONTEND=noninteractive

SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
need=()
for p in ccache bc flex bison libelf-dev libssl-dev xz-utils cpio kmod gcc-12 make; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
	log "installing ${need[*]}"
	$SUDO apt-get update -q >&2
	$SUDO apt-get install -y -q --no-install-recommends "${need[@]}" >&2 ||
		die "apt-get install ${need[*]} failed"
fi

# The 6.12 kernel and the private bookworm-backports lists come first.
"$here/fetch-kernels.sh" 6.12 >/dev/null
A=$CACHE/apt
APT=(-o "Dir::Etc::SourceList=$A/sources.list" -o Dir::Etc::SourceParts=/dev/null
	-o "Dir::State::Lists=$A/lists" -o "Dir::Cache=$A/cache" -o APT::Sandbox::User=root)
# The source of the very version fetch-kernels.sh unpacked.
ver=$(sed -n 's/^linux-image-.*_\(.*\)_$/\1/p' "$CACHE/k612.stamp")
[ -n "$ver" ] || die "no version in $CACHE/k612.stamp"
debs=$CACHE/debs/src
mkdir -p "$debs"
deb=$(compgen -G "$debs/linux-source-6.12_${ver//:/%3a}_all.deb" || true)
if [ -z "$deb" ]; then
	log "downloading linux-source-6.12 $ver"
	(cd "$debs" && apt-get "${APT[@]}" -q download "linux-source-6.12=$ver" >&2) ||
		die "apt-get download linux-source-6.12=$ver failed"
	deb=$(compgen -G "$debs/linux-source-6.12_${ver//:/%3a}_all.deb")
fi
src=$CACHE/src/linux-source-6.12-$ver
if [ ! -f "$src/Makefile" ]; then
	log "unpacking $(basename "$deb")"
	rm -rf "$src" "$src.tmp"
	mkdir -p "$src.tmp"
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$src.tmp" --wildcards './usr/src/linux-source-6.12.tar.xz'
	tar -xJf "$src.tmp/usr/src/linux-source-6.12.tar.xz" -C "$src.tmp"
	mv "$src.tmp/linux-source-6.12" "$src"
	rm -rf "$src.tmp"
fi

dest=$CACHE/k612-$flavour
frags=("$here/debug-kernel/common.config" "$here/debug-kernel/$flavour.config")
key=$(cat "${frags[@]}" | sha256sum | cut -c1-16)
stamp="$ver $key"
if [ -f "$dest.stamp" ] && [ "$(cat "$dest.stamp")" = "$stamp" ] && [ -f "$dest.env" ]; then
	cat "$dest.env"
	exit 0
fi
t0=$(date +%s)
build=$dest/build
# The build tree stays: after a configuration change make rebuilds only
# what the changed options reach.
rm -rf "$dest/boot" "$dest/lib" "$dest.stamp" "$dest.env"
mkdir -p "$build"
mk=(make -s -C "$src" O="$build" ARCH=x86_64 CC="ccache gcc-12" HOSTCC=gcc-12 -j"$(nproc)")
export CCACHE_DIR=$CACHE/ccache
"${mk[@]}" defconfig >&2
"$src/scripts/kconfig/merge_config.sh" -m -O "$build" "$build/.config" "${frags[@]}" >/dev/null
"${mk[@]}" olddefconfig >&2
missing=$(cat "${frags[@]}" | sed -n 's/^\(CONFIG_[A-Z0-9_]*=.*\)$/\1/p; s/^# \(CONFIG_[A-Z0-9_]*\) is not set$/\1 is not set/p' |
	while read -r line; do
		case $line in
		*" is not set") grep -q "^${line%% *}=" "$build/.config" && echo "${line%% *}" ;;
		*) grep -qxF "$line" "$build/.config" || echo "$line" ;;
		esac
	done)
[ -z "$missing" ] || die "the configuration lacks: $(echo $missing)"
log "building the $flavour kernel ($(nproc) jobs)"
"${mk[@]}" bzImage modules >&2
rel=$("${mk[@]}" kernelrelease)
mkdir -p "$dest/boot"
cp "$build/arch/x86/boot/bzImage" "$dest/boot/vmlinuz-$rel"
"${mk[@]}" INSTALL_MOD_PATH="$dest" INSTALL_MOD_STRIP=1 modules_install >&2
rm -f "$dest/lib/modules/$rel/build" "$dest/lib/modules/$rel/source"
printf 'KVER=6.12-%s\nKDIR=%s\nVMLINUZ=%s\nRELEASE=%s\nKBUILD_ARGS="CC=gcc-12"\n' \
	"$flavour" "$build" "$dest/boot/vmlinuz-$rel" "$rel" >"$dest.env"
echo "$stamp" >"$dest.stamp"
log "the $flavour kernel $rel took $(( ($(date +%s) - t0) / 60 )) min $(( ($(date +%s) - t0) % 60 )) s to build"
cat "$dest.env"
