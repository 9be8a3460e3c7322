#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs the kernel's checkpatch.pl over ramtrail's C sources, kernel-doc
# over the module's and the uapi header's comments, and sparse over the
# module built against Debian's 6.12 (fetch-kernels.sh; sparse from
# tools/deps.sh) and over the tools' userspace build of the same code,
# when git and the fetch script are there. Both come from Debian's
# linux-source-6.1 package, fetched once (not installed) into the cache;
# only those scripts and checkpatch's data files are kept.
# Prints "4 passed, 0 failed" when clean (2 outside a checkout).
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
# A check's verdict from its warnings (none: passed), and what they mean.
verdict() {
	if [ -z "$1" ]; then
		pass=$((pass + 1))
	else
		echo "$1"
		echo "$2"
		fail=$((fail + 1))
	fi
}
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
verdict "$(perl "$kd" -none $docs 2>&1)" \
	"kernel-doc: the comments above do not match the code"
# sparse: the zones' words are __le64, per-CPU pointers __percpu, user
# pointers __user; any warning fails. Only in a checkout (a DKMS source
# folder has no QEMU scripts to fetch headers with).
if [ -x qemu-tests/fetch-kernels.sh ] && [ ${#root[@]} = 0 ]; then
	env=${RAMTRAIL_CACHE:-$HOME/.cache/ramtrail}/k612.env
	qemu-tests/fetch-kernels.sh 6.12 >/dev/null
	# shellcheck disable=SC1090
	. "$env"
	read -ra kargs <<<"$KBUILD_ARGS"
	out=$top/build/sparse-6.12
	mkdir -p "$out/fs/ramtrail"
	ln -sf "$top"/fs/ramtrail/*.[ch] "$out/fs/ramtrail/"
	ln -sfn "$top/include" "$out/include"
	ln -sf "$top/Kbuild" "$top/VERSION" "$out/"
	rm -f "$out"/fs/ramtrail/*.o "$out"/*.o
	verdict "$(make -s -C "$KDIR" M="$out" "${kargs[@]}" C=2 \
		CHECK=sparse modules 2>&1 | grep -E 'warning:|error:')" \
		"sparse: the module's types say other than its code"
	# The same over the userspace build of the shared code and the tool.
	{ read -ra inc; read -ra srcs; } < <(make -s -C tools sources)
	verdict "$(for f in "${srcs[@]}"; do
		sparse -std=gnu11 -D_GNU_SOURCE -DRAMTRAIL_PKG_VERSION='""' \
			"${inc[@]}" "$f" 2>&1
	done | grep -E 'warning:|error:')" \
		"sparse: the tools' types say other than their code"
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
