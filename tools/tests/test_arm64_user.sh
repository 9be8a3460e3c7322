#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The shared code and the command, built for arm64 and run on this host
# under QEMU's user-mode emulation: the unit tests of the writer and the
# decoder, then the command on the images the host's mkimage makes,
# whose output must be the host command's, byte for byte. Installs
# Debian's cross compiler and qemu-user when they are missing. Prints
# "N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
host=$top/build/tools
out=$top/build/tools-arm64
work=$top/build/arm64-user
passed=0 failed=0

check() {	# check NAME CONDITION-STATUS [DETAIL]
	if [ "$2" = 0 ]; then
		echo "ok   $1"
		passed=$((passed + 1))
	else
		echo "FAIL $1${3:+: $3}"
		failed=$((failed + 1))
	fi
}

need=()
command -v aarch64-linux-gnu-gcc >/dev/null || need+=(gcc-aarch64-linux-gnu)
command -v qemu-aarch64 >/dev/null || need+=(qemu-user)
if [ ${#need[@]} -gt 0 ]; then
	echo "arm64-user: installing ${need[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >/dev/null
	apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null
fi
export QEMU_LD_PREFIX=/usr/aarch64-linux-gnu

make -s -C "$top/tools" O="$out" CC=aarch64-linux-gnu-gcc \
	"$out/test_decode" "$out/ramtrail" >/dev/null
check "the tests and the command build for arm64" $?
make -s -C "$top/tools" O="$host" "$host/mkimage" "$host/ramtrail" >/dev/null
file "$out/ramtrail" | grep -q "ARM aarch64"
check "the command is an arm64 binary" $?

res=$(qemu-aarch64 "$out/test_decode" 2>&1 | tail -n 1)
[[ $res =~ ^([0-9]+)\ passed,\ 0\ failed$ ]] && [ "${BASH_REMATCH[1]}" -gt 0 ]
check "the unit tests pass on arm64 ($res)" $?

rm -rf "$work"
mkdir -p "$work"
"$host/mkimage" "$work" >/dev/null
n=0 differ=()
for img in "$work"/*.img; do
	map=$work/System.map-test
	[ "$(basename "$img")" = many.img ] && map=$work/System.map-many
	for cmd in "decode" "decode --format json" "stats" \
		   "stats --format json" "export" "export --format json"; do
		read -ra c <<<"$cmd"
		o=()
		[ "${c[0]}" = export ] && o=(-o "$work/out")
		for side in host arm64; do
			rm -f "$work/out"
			if [ $side = host ]; then
				"$host/ramtrail" "${c[0]}" "$img" "${c[@]:1}" \
					"${o[@]}" --system-map "$map" \
					>"$work/$side.txt" 2>&1
			else
				qemu-aarch64 "$out/ramtrail" "${c[0]}" "$img" \
					"${c[@]:1}" "${o[@]}" --system-map "$map" \
					>"$work/$side.txt" 2>&1
			fi
			echo "exit $?" >>"$work/$side.txt"
			[ -f "$work/out" ] && cat "$work/out" >>"$work/$side.txt"
		done
		n=$((n + 1))
		cmp -s "$work/host.txt" "$work/arm64.txt" ||
			differ+=("$(basename "$img"): $cmd")
	done
done
[ "$n" -gt 0 ] && [ ${#differ[@]} = 0 ]
check "the arm64 command prints what the host's does ($n commands)" $? \
	"${differ[*]}"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
