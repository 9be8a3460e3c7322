#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build-module.sh [KVER]: build ramtrail.ko out of tree.
#   no KVER     against the running kernel (/lib/modules/$(uname -r)/build),
#               or KDIR= if set
#   6.1, 6.12   against Debian's headers, fetched by qemu-tests/fetch-kernels.sh
#   6.1-arm64, 6.12-arm64
#               cross-built against Debian's arm64 headers (the same script)
#   6.12-debug, 6.12-kcsan
#               against Debian's 6.12 built with the kernel's checkers
#               (qemu-tests/debug-kernel.sh)
# Objects go to build/module-<kver>/ so that several kernels can be built
# side by side; the last line printed is the path of the module.
# RAMTRAIL_TEST_STRETCH=1: the test build whose freeze and thaw sections
# can be stretched (fs/ramtrail/record.c), in build/module-<kver>-stretch/.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
kver=${1:-}
args=()
if [ -n "$kver" ]; then
	case $kver in
	*-arm64) "$top/qemu-tests/fetch-kernels.sh" "${kver%-*}" arm64 >/dev/null ;;
	*-*) "$top/qemu-tests/debug-kernel.sh" "${kver#*-}" >/dev/null ;;
	*) "$top/qemu-tests/fetch-kernels.sh" "$kver" >/dev/null ;;
	esac
	env=${RAMTRAIL_CACHE:-$HOME/.cache/ramtrail}/k${kver//./}.env
	# shellcheck disable=SC1090
	. "$env"
	read -ra args <<<"$KBUILD_ARGS"
	out=$top/build/module-$kver
else
	KDIR=${KDIR:-/lib/modules/$(uname -r)/build}
	out=$top/build/module-host
fi
if [ -n "${RAMTRAIL_TEST_STRETCH:-}" ]; then
	out=$out-stretch
	args+=(KCFLAGS=-DRAMTRAIL_TEST_STRETCH)
fi
[ -d "$KDIR" ] || { echo "build-module: no kernel headers at $KDIR" >&2; exit 1; }
mkdir -p "$out/fs/ramtrail"
ln -sf "$top"/fs/ramtrail/*.[ch] "$out/fs/ramtrail/"
ln -sfn "$top/include" "$out/include"
ln -sf "$top/Kbuild" "$top/VERSION" "$out/"
make -s -C "$KDIR" M="$out" "${args[@]}" W=1 modules >&2
echo "$out/ramtrail.ko"
