#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs the kernel's checkpatch.pl over ramtrail's C sources, and kernel-doc
# over the module's and the uapi header's comments. Both come from Debian's
# linux-source-6.1 package, fetched once (not installed) into the cache;
# only those scripts and checkpatch's data files are kept.
# Prints "2 passed, 0 failed" when clean.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${RAMTRAIL_CACHE:-$HOME/.cache/ramtrail}/checkpatch
cp=$cache/scripts/checkpatch.pl
kd=$cache/scripts/kernel-doc
if [ ! -x "$cp" ] || [ ! -f "$kd" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	(cd "$tmp" && apt-get download -q linux-source-6.1 >/dev/null) || {
		echo "checkpatch: cannot download linux-source-6.1" >&2
		echo "0 passed, 1 failed"
		exit 1
	}
	dpkg-deb --fsys-tarfile "$tmp"/linux-source-6.1_*.deb |
		tar -xO ./usr/src/linux-source-6.1.tar.xz |
		tar -xJ -C "$tmp" --wildcards '*/scripts/checkpatch.pl' \
			'*/scripts/spelling.txt' '*/scripts/const_structs.checkpatch' \
			'*/scripts/kernel-doc'
	mkdir -p "$cache/scripts"
	cp "$tmp"/linux-source-6.1/scripts/{checkpatch.pl,spelling.txt,const_structs.checkpatch,kernel-doc} \
		"$cache/scripts/"
fi
cd "$top"
# A release tarball or a DKMS source folder is no git checkout: find the
# same files there (build/ and kbuild's *.mod.c are not sources). Without
# a .git, checkpatch seeds its CamelCase list from <root>/include: give it
# one, or it looks in /include.
root=()
if command -v git >/dev/null &&
   [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd -P)" ]; then
	files=$(git ls-files "*.c" "*.h")
else
	root=(--root "$top")
	files=$(find . \( -path ./build -o -name '.?*' \) -prune -o -type f \
		\( -name '*.c' -o -name '*.h' \) ! -name '*.mod.c' -print |
		sed 's|^\./||' | LC_ALL=C sort)
fi
files=$(grep -vx tools/lib/user-compat.h <<<"$files" || true)
if [ -z "$files" ]; then
	echo "checkpatch: no C sources found in $top" >&2
	echo "0 passed, 1 failed"
	exit 1
fi
# Everything is checked, tools included, but the userspace stand-ins for
# kernel macros. Ignored: version checks, which an out-of-tree module that
# builds for 6.1 and 6.12 needs (LINUX_VERSION_CODE, and CONSTANT_COMPARISON
# which "LINUX_VERSION_CODE >= KERNEL_VERSION()" triggers), and CamelCase
# that is not ours (_Static_assert, _Atomic, LLVMFuzzerTestOneInput).
pass=0
fail=0
# shellcheck disable=SC2086
if "$cp" --no-tree "${root[@]}" --quiet --show-types --strict \
	--ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON,CAMELCASE,FILE_PATH_CHANGES \
	-f $files; then
	pass=$((pass + 1))
else
	fail=$((fail + 1))
fi
# kernel-doc: every documented function, struct and member of the module
# and of the on-RAM format says what it is.
docs=$(grep -E '^(fs/ramtrail/|include/)' <<<"$files")
# shellcheck disable=SC2086
warn=$(perl "$kd" -none $docs 2>&1)
if [ -z "$warn" ]; then
	pass=$((pass + 1))
else
	echo "$warn"
	echo "kernel-doc: the comments above do not match the code"
	fail=$((fail + 1))
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
