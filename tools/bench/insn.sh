#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# insn.sh BENCH_CORE [N]
#
# The record path's instructions, loads and stores per record, counted by
# valgrind's callgrind (installed if missing) on bench_core --insn: N
# records of each kind (1000000), less a run of none, over N. A count,
# not a time: the same on any machine of the architecture and compiler,
# and what QEMU's TCG times follow. The benchmark loop's own instructions
# (about 15 a record) are in the figures. Asserts nothing.
set -euo pipefail
bench=$1 n=${2:-1000000}
if ! command -v valgrind >/dev/null; then
	echo "insn: installing valgrind"
	apt-get update -q >/dev/null
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends valgrind >/dev/null
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# "Ir Dr Dw" of bench_core --insn KIND COUNT.
refs() {
	valgrind --tool=callgrind --cache-sim=yes \
		--callgrind-out-file="$tmp/out" "$bench" --insn "$1" "$2" \
		>"$tmp/name" 2>"$tmp/err"
	sed -n -e 's/^.*I *refs: *\([0-9,]*\).*$/\1/p' \
	       -e 's/^.*D *refs: *[0-9,]* *( *\([0-9,]*\) rd *+ *\([0-9,]*\) wr).*$/\1 \2/p' \
	       "$tmp/err" | tr -d , | tr '\n' ' '
}

echo "| record | instructions | loads | stores |"
echo "|---|---|---|---|"
for k in 0 1 2 3 4; do
	read -r i0 r0 w0 <<<"$(refs "$k" 0)"
	read -r i1 r1 w1 <<<"$(refs "$k" "$n")"
	name=$(sed 's/:.*//' "$tmp/name")
	awk -v k="$name" -v n="$n" -v i="$((i1 - i0))" -v r="$((r1 - r0))" \
		-v w="$((w1 - w0))" \
		'BEGIN { printf "| %s | %.1f | %.1f | %.1f |\n", k, i / n, r / n, w / n }'
done
echo
echo "Counted by callgrind over $n records a kind, one thread; a count, not a time."
