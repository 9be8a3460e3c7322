#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs the userspace suites, shows each one's result and sums them up in
# the project's closing line "N passed, N failed".
#   FUZZ_TIME   seconds of fuzzing (default 30; make fuzz runs 600)
#   CRASHES     crash instants for the crash-consistency test (default 4000)
#   BITFLIP_TRIALS  trials a row of the bit-flip test (default 2000)
#   QEMU=0      skip the module build and QEMU scenarios
#   KVERS, SMPS kernels and CPU counts for QEMU (default "6.1,6.12", "2")
#   SMP4_KVERS  kernels also run with 4 CPUs (default: the last of KVERS;
#               make check-full: all of them)
#   SMP4_SKIP   scenarios those skip (default: the layout ones; check-full:
#               none)
#   QEMU_SKIP   scenarios the 2-CPU suite skips, NAME or NAME@KVER (default:
#               on every kernel but the last, those whose subject is the
#               region's format or mapping, code with no branch by kernel
#               version: ONCE; and LONG on every kernel; check-full: none)
#   STRESS_CYCLES, STRESS_SEED  crash campaign cycles on the last kernel (3, 1)
#   DEBIAN_KVERS  kernels of the Debian guest scenario (default 6.12)
#   ARM64_KVERS, ARM64_SMPS, ARM64_ONLY  the arm64 suite: kernels (default
#               6.12-arm64; check-full: 6.1-arm64 too), CPU counts (2;
#               check-full: 2,4) and scenarios (default ARM64; check-full:
#               all)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
bin=$top/build/tools
passed=0 failed=0 skipped=0
summary=()

# Run one suite; its last line must be "N passed, N failed".
suite() {
	local name=$1 log=$top/build/$1.log last p f s=0 t0=$SECONDS
	shift
	echo "== $name"
	"$@" 2>&1 | tee "$log"
	last=$(tail -n 1 "$log")
	if [[ $last =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
		p=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]}
		[[ $last =~ ,\ ([0-9]+)\ skipped ]] && s=${BASH_REMATCH[1]}
	else
		p=0 f=1
		echo "$name: no result line (crashed?)"
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	summary+=("$(printf '%-14s %s passed, %s failed, %s skipped, %s s' \
		"$name" "$p" "$f" "$s" $((SECONDS - t0)))")
}

# libFuzzer prints no such line: one test, passed when it found nothing.
# fuzz TARGET [libFuzzer options]: the decoder's seeds start both targets.
fuzz() {
	local target=$1 corpus=$top/build/corpus-$1
	shift
	mkdir -p "$corpus"
	"$bin/$target" -max_len=65536 -max_total_time="${FUZZ_TIME:-30}" \
		-print_final_stats=1 -artifact_prefix="$top/build/$target-" "$@" \
		"$corpus" "$top/tools/fuzz/corpus" 2>&1 | tail -n 6
	if [ "${PIPESTATUS[0]}" -eq 0 ]; then
		echo "1 passed, 0 failed"
	else
		echo "$target found a crash: see $top/build/$target-crash-*"
		echo "0 passed, 1 failed"
	fi
}

# The module must build for every kernel without a single warning (W=1).
build_module() {
	local kver log ok=0 bad=0
	for kver in ${KVERS//,/ } ${ARM64_BUILD//,/ }; do
		log=$top/build/module-$kver.log
		if "$top/scripts/build-module.sh" "$kver" >"$log" 2>&1 &&
		   ! grep -q 'warning:' "$log"; then
			echo "ok   ramtrail.ko for $kver, no warning"
			ok=$((ok + 1))
		else
			echo "FAIL ramtrail.ko for $kver:"; cat "$log"
			bad=$((bad + 1))
		fi
	done
	echo "$ok passed, $bad failed"
}

KVERS=${KVERS:-6.1,6.12}
# Scenarios of the region's format, recovery and mapping, code with no
# branch by kernel version: make check runs them on the last kernel only.
ONCE=lowmem,garbage,savedfull,torn,forged,memtypes,preempt
# Scenarios only make check-full and make check-debug run: churn (ftrace
# beside ramtrail, about four minutes a kernel).
LONG=churn
# With 4 CPUs, make check-full only: run-time control and the dump, whose
# code has no branch by CPU count beyond what 2 CPUs take (134 s).
SMP4_LATER=control,dump
# arm64's in make check: those of its own code (counter, mapping, text
# window and module area, device tree), the crash paths and the tools on
# its images (about 5 minutes; check-full adds the crash loop, dump,
# control and the others).
ARM64=panic,powercut,oops,tasks,regionsrc,modinit
ARM64_KVERS=${ARM64_KVERS:-6.12-arm64}
# Built (and checked for warnings) for both arm64 kernels whatever runs.
ARM64_BUILD=6.1-arm64,6.12-arm64
once_skip() {
	local kver name out=(${LONG//,/ })
	for kver in ${KVERS//,/ }; do
		[ "$kver" = "${KVERS##*,}" ] && continue
		for name in ${ONCE//,/ }; do
			out+=("$name@$kver")
		done
	done
	(IFS=,; echo "${out[*]}")
}
if ! make -s -C "$top/tools" O="$bin" all "$bin/fuzz_decode" "$bin/fuzz_cli" \
	"$bin/fuzz_header"; then
	echo "0 passed, 1 failed"
	exit 1
fi
suite unit "$bin/test_decode"
suite unit-asan "$bin/test_decode_san"
suite crash "$bin/test_crash" "${CRASHES:-4000}"
suite bitflip "$bin/bitflip" --check "${BITFLIP_TRIALS:-2000}"
suite tool python3 "$top/tools/tests/test_tool.py" "$bin"
suite perfetto python3 "$top/tools/tests/test_perfetto.py" "$bin"
suite arm64-user "$top/tools/tests/test_arm64_user.sh"
suite setup "$top/scripts/package/test-setup.sh"
suite fuzz fuzz fuzz_decode
suite fuzz-header fuzz fuzz_header -max_len=16384
# The command prints a lot: its stdout and stderr are closed.
suite fuzz-cli fuzz fuzz_cli -close_fd_mask=3
suite checkpatch "$top/scripts/checkpatch.sh"
suite layers python3 "$top/scripts/check-layers.py"
suite logs python3 "$top/qemu-tests/test_logs.py"
suite model "$top/tools/model/run.sh" "$top/build/model"
if [ "${QEMU:-1}" != 0 ]; then
	for kver in ${KVERS//,/ }; do
		"$top/qemu-tests/fetch-kernels.sh" "$kver" >/dev/null || true
	done
	"$top/qemu-tests/fetch-kernels.sh" all arm64 >/dev/null || true
	suite module build_module
	suite packages "$top/scripts/package/test-packages.sh" "$KVERS,$ARM64_BUILD"
	suite qemu python3 "$top/qemu-tests/test_module.py" --kver "$KVERS" \
		--smp "${SMPS:-2}" --skip "${QEMU_SKIP-$(once_skip)}"
	# Four CPUs on one kernel (make check-full: on each, every scenario).
	# Those whose subject is the region's layout, not its CPUs, ran at 2.
	if [ -n "${SMP4_KVERS-${KVERS##*,}}" ]; then
		suite qemu-smp4 python3 "$top/qemu-tests/test_module.py" \
			--kver "${SMP4_KVERS-${KVERS##*,}}" --smp 4 \
			--skip "${SMP4_SKIP-garbage,crashloop,erase,savedfull,forged,crosskernel,refusals,modinit,torn,paramrace,$SMP4_LATER,$LONG}"
	fi
	# The packages installed in a real Debian guest (make check-full: both kernels).
	suite debian python3 "$top/qemu-tests/test_debian.py" --kver "${DEBIAN_KVERS:-6.12}"
	# A few cycles of the crash campaign (make stress runs the long one).
	suite stress python3 "$top/qemu-tests/stress.py" --cycles "${STRESS_CYCLES:-3}" \
		--kver "${KVERS##*,}" --smp 2 --seed "${STRESS_SEED:-1}"
	# arm64 on QEMU's virt board (make check-full: both kernels, 4 CPUs,
	# every scenario).
	suite qemu-arm64 python3 "$top/qemu-tests/test_module.py" --kver "$ARM64_KVERS" \
		--smp "${ARM64_SMPS:-2}" --only "${ARM64_ONLY-$ARM64}"
fi
echo
printf '%s\n' "${summary[@]}"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
