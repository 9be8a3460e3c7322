#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh [OUTDIR]
#
# Checks the models exhaustively with SPIN, the record path (ring.pml)
# and the save and format steps of a load (save.pml): every configuration
# below must hold, and every mutation must be refuted in the configuration
# named beside it. Prints a line per run with the
# states explored and the time taken, then "N passed, N failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/../../build/model}
mkdir -p "$out"
passed=0 failed=0

# run NAME EXPECT(hold|refuted) -D... : one exhaustive search of $model
run() {
	local name=$1 expect=$2 dir=$out/$1 t0=$SECONDS log res states
	shift 2
	rm -rf "$dir" && mkdir -p "$dir"
	if ! (cd "$dir" && spin "$@" -a "$here/$model" >spin.log 2>&1 &&
	      gcc -w -O2 -DSAFETY -DMEMLIM=8192 -o pan pan.c >>spin.log 2>&1); then
		echo "FAIL $name: the model does not build"; sed 's/^/     /' "$dir/spin.log"
		failed=$((failed + 1))
		return
	fi
	log=$(cd "$dir" && ./pan -m400000 2>&1)
	states=$(sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' <<<"$log")
	if grep -q 'assertion violated' <<<"$log"; then
		res="refuted: $(grep -m1 -o 'assertion violated.*' <<<"$log" | cut -c1-110)"
	elif grep -q 'errors: 0' <<<"$log" && ! grep -q 'Search not completed' <<<"$log"; then
		res="holds"
	else
		res="incomplete or failed search: $(grep -m1 -E 'error|pan:' <<<"$log")"
	fi
	local ok=0
	case $expect,$res in
	hold,holds | refuted,refuted*) ok=1 ;;
	esac
	if [ $ok = 1 ]; then
		passed=$((passed + 1)); printf 'ok  '
	else
		failed=$((failed + 1)); printf 'FAIL'
	fi
	printf ' %-34s %s (%s states, %d s; expected: %s)\n' "$name" "$res" \
		"${states:-?}" $((SECONDS - t0)) "$expect"
}

model=ring.pml
# The design: nested writers 1, 2 and 3 deep, zones of 2 and 3 blocks,
# with and without a freeze from another CPU. Three deep (the task, then
# softirq, hardirq and NMI) with five writers: a block's 9 record words
# overflow only when all five are two words long, so each run has at most
# one block switch, with up to four writers in flight.
run nb2-depth2 hold -DNB=2 -DDEPTH=2 -DRECS=6
run nb3-depth2 hold -DNB=3 -DDEPTH=2 -DRECS=6
run nb2-depth3 hold -DNB=2 -DDEPTH=3 -DRECS=6
run nb2-depth4 hold -DNB=2 -DDEPTH=4 -DRECS=5
run nb2-depth2-freeze hold -DNB=2 -DDEPTH=2 -DRECS=6 -DFREEZE
run nb3-depth2-freeze hold -DNB=3 -DDEPTH=2 -DRECS=5 -DFREEZE
# Each ordering point or check taken away: the checker finds a run that
# breaks a guarantee.
run mut-r1-counter-outside-loop refuted -DMUT_R1 -DNB=2 -DDEPTH=2 -DRECS=6
run mut-r3-no-generation-check refuted -DMUT_R3 -DNB=2 -DDEPTH=2 -DRECS=6
run mut-r4-nested-enter-any refuted -DMUT_R4 -DNB=2 -DDEPTH=2 -DRECS=6
run mut-r4-outer-refused refuted -DMUT_R4_OUTER -DNB=2 -DDEPTH=2 -DRECS=6
run mut-r7-nested-seal refuted -DMUT_R7 -DNB=3 -DDEPTH=2 -DRECS=6
run mut-lap-reader-any-lap refuted -DMUT_LAP -DNB=2 -DDEPTH=2 -DRECS=6
run mut-tail-seal-end-block refuted -DMUT_TAIL -DNB=2 -DDEPTH=2 -DRECS=6 -DFREEZE

model=save.pml
# The design: 4 boots on a saved area of 2 slots, 3 boots on 3 slots.
run save-k2-boots4 hold -DK=2 -DGENS=4
run save-k3-boots3 hold -DK=3 -DGENS=3
run mut-save-seal-first refuted -DMUT_SEAL_FIRST -DGENS=3
run mut-save-no-already refuted -DMUT_NO_ALREADY -DGENS=3
run mut-save-place-any refuted -DMUT_PLACE_ANY -DGENS=3
run mut-save-no-formatting refuted -DMUT_NO_FORMATTING -DGENS=3
run mut-save-collect-any refuted -DMUT_NO_COLLECT_CHECK -DGENS=3
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
