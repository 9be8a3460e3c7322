# SPDX-License-Identifier: GPL-2.0
# ramtrail top-level Makefile.
#
#   make              ramtrail.ko for the running kernel (or KDIR=...)
#   make KVER=6.1     ramtrail.ko for Debian's 6.1 (or 6.12), fetched
#   make KVER=6.12 ARCH=arm64  the same for Debian's arm64 kernel,
#                     cross-built (KVER defaults to 6.12 there)
#   make demo         record, panic, reboot and read back in QEMU
#                     (ARCH=arm64: on QEMU's arm64 virt board)
#   make screenshots  the demo, then its trace.dat in KernelShark (Xvfb):
#                     Documentation/ramtrail/images/kernelshark-demo.png
#   make check        all tests (installs what they need first)
#   make check-full   the same, with 4 CPUs and the Debian guest on both
#                     kernels, and every arm64 scenario on both arm64
#                     kernels with 2 and 4 CPUs
#   make fuzz         fuzz the header, the decoder and the command, FUZZ_TIME s
#                     each (600)
#   make stress       crash campaign in QEMU: STRESS_CYCLES=10 cycles of
#                     random panics, oopses, soft lockups, power cuts and
#                     erases on one RAM file per STRESS_KVERS=6.1,6.12,
#                     STRESS_SMPS=2,4 and STRESS_ARCHS=x86_64 (or
#                     x86_64,arm64); STRESS_SEED=S replays a campaign
#   make bench        every benchmark against the anchors (QEMU, 4-9 min;
#                     ARCH=arm64: on QEMU's arm64 virt board)
#   make bench-core   userspace benchmark of the writer and decoder
#   make bench-insn   the record path's instructions, loads and stores per
#                     record (valgrind's callgrind on bench_core)
#   make bench-fleet  ramtrail fleet grouping 10^5 journal entries
#   make bitflip      what flipped bits cost the zones and the saved area
#                     (BITFLIP_TRIALS=2000 a row)
#   make bench-load BASE=REV  the module's load with make bench's full
#                     region image, this tree against revision REV (QEMU)
#   make bench-mount [BASE=REV]  pstore mounts of make bench's saved trace
#                     in a 512 MiB guest: time, parts, memory (QEMU)
#   make tools        build the userspace side only (build/tools/ramtrail)
#   make deb          build/deb/ramtrail-dkms_<version>_all.deb and
#                     ramtrail-tools_<version>_amd64.deb (version: VERSION)
#   make checkpatch   kernel coding style of every C file, kernel-doc comments,
#                     sparse over the module (6.12)
#   make check-debug  the QEMU scenarios (2 and 4 CPUs) and a crash campaign
#                     on Debian's 6.12 built with KASAN, lockdep, kmemleak...
#                     and with KCSAN (DEBUG_FLAVOURS=debug,kcsan), failing on
#                     any report; builds the kernels first (30-60 min each)
#   make churn-int3 [BOOTS=N]  6.1 with 4 vCPUs, a thread each: how often
#                     ftrace's text patching oopses (int3) with ramtrail
#                     attached and detached beside ftrace's tracers, and
#                     with a second ftrace instance in its place (QEMU)
#   make model        the SPIN models of the record path and of a load's
#                     save and format, exhaustively, and the mutations they
#                     must refute (tools/model, ~6 min)

TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
BUILD := $(TOP)/build
comma := ,

.PHONY: all module tools check check-full deps deb fuzz bench bench-core bench-insn bench-fleet bitflip bench-load \
	bench-mount demo screenshots \
	stress checkpatch model check-debug churn-int3 clean

all: module

module:
	@$(TOP)/scripts/build-module.sh $(if $(filter arm64,$(ARCH)),$(or $(KVER),6.12)-arm64,$(KVER))

demo: tools
ifeq ($(ARCH),arm64)
	@$(TOP)/qemu-tests/fetch-kernels.sh 6.12 arm64 >/dev/null
	@python3 $(TOP)/qemu-tests/demo.py --kver 6.12-arm64
else
	@$(TOP)/qemu-tests/fetch-kernels.sh 6.12 >/dev/null
	@python3 $(TOP)/qemu-tests/demo.py
endif

screenshots: demo
	@$(TOP)/scripts/screenshots.sh $(BUILD)/qemu/6.12-smp4-demo/trace.dat \
		$(TOP)/Documentation/ramtrail/images/kernelshark-demo.png

STRESS_CYCLES ?= 10
STRESS_KVERS ?= 6.1,6.12
STRESS_SMPS ?= 2,4
STRESS_ARCHS ?= x86_64
stress: tools
	@rc=0; for a in $(subst $(comma), ,$(STRESS_ARCHS)); do \
		case $$a in arm64) sfx=-arm64 deb=arm64;; *) sfx= deb=amd64;; esac; \
		kv=; for k in $(subst $(comma), ,$(STRESS_KVERS)); do \
			$(TOP)/qemu-tests/fetch-kernels.sh $$k $$deb >/dev/null || exit 1; \
			kv=$${kv:+$$kv,}$$k$$sfx; done; \
		python3 $(TOP)/qemu-tests/stress.py --cycles $(STRESS_CYCLES) \
			--kver $$kv --smp $(STRESS_SMPS) \
			$(if $(STRESS_SEED),--seed $(STRESS_SEED)) || rc=1; \
	done; exit $$rc

checkpatch:
	@$(TOP)/scripts/checkpatch.sh

DEBUG_FLAVOURS ?= debug,kcsan
DEBUG_STRESS_CYCLES ?= 10
check-debug: tools
	@python3 $(TOP)/qemu-tests/check_debug.py --flavours $(DEBUG_FLAVOURS) \
		--stress-cycles $(DEBUG_STRESS_CYCLES)

model: deps
	@$(TOP)/tools/model/run.sh $(BUILD)/model

deps:
	@$(TOP)/tools/deps.sh

tools: deps
	$(MAKE) -C $(TOP)/tools O=$(BUILD)/tools all

deb: deps
	@$(TOP)/scripts/package/mkdeb.sh

check: deps
	@$(TOP)/tools/run-checks.sh

check-full: deps
	@DEBIAN_KVERS=6.1,6.12 SMP4_KVERS=6.1,6.12 SMP4_SKIP= QEMU_SKIP= \
		ARM64_KVERS=6.1-arm64,6.12-arm64 ARM64_SMPS=2,4 ARM64_ONLY= \
		$(TOP)/tools/run-checks.sh

fuzz: deps
	$(MAKE) -C $(TOP)/tools O=$(BUILD)/tools $(BUILD)/tools/fuzz_decode \
		$(BUILD)/tools/fuzz_cli $(BUILD)/tools/fuzz_header
	for t in fuzz_header fuzz_decode fuzz_cli; do \
		mkdir -p $(BUILD)/corpus-$$t && \
		$(BUILD)/tools/$$t -max_len=65536 -close_fd_mask=1 \
			-max_total_time=$(or $(FUZZ_TIME),600) -print_final_stats=1 \
			-artifact_prefix=$(BUILD)/$$t- $(BUILD)/corpus-$$t \
			$(TOP)/tools/fuzz/corpus || exit 1; \
	done

# Debian's matplotlib draws the plot, so Debian's python runs the bench.
bench: tools
	@dpkg-query -W -f='$${Status}' python3-matplotlib 2>/dev/null | \
		grep -q 'ok installed' || { apt-get update -q >/dev/null; \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends python3-matplotlib >/dev/null; }
ifeq ($(ARCH),arm64)
	@$(TOP)/qemu-tests/fetch-kernels.sh 6.12 arm64 >/dev/null
	/usr/bin/python3 $(TOP)/qemu-tests/bench.py --kver 6.12-arm64
else
	@$(TOP)/qemu-tests/fetch-kernels.sh 6.12 >/dev/null
	/usr/bin/python3 $(TOP)/qemu-tests/bench.py
endif

bench-core: tools
	$(BUILD)/tools/bench_core

bench-insn: tools
	@$(TOP)/tools/bench/insn.sh $(BUILD)/tools/bench_core

bench-fleet: tools
	python3 $(TOP)/tools/bench/bench_fleet.py $(BUILD)/tools

bitflip: tools
	$(BUILD)/tools/bitflip $(or $(BITFLIP_TRIALS),2000)

bench-load:
	@test -n "$(BASE)" || { echo "make bench-load BASE=REV" >&2; exit 1; }
	@$(TOP)/qemu-tests/fetch-kernels.sh 6.12 >/dev/null
	python3 $(TOP)/qemu-tests/bench_load.py --base $(BASE)

churn-int3: tools
	@$(TOP)/qemu-tests/fetch-kernels.sh 6.1 >/dev/null
	python3 $(TOP)/qemu-tests/churn_int3.py $(if $(BOOTS),--boots $(BOOTS))

bench-mount:
	@$(TOP)/qemu-tests/fetch-kernels.sh 6.12 >/dev/null
	python3 $(TOP)/qemu-tests/bench_mount.py $(if $(BASE),--base $(BASE))

clean:
	rm -rf $(BUILD)
