# SPDX-License-Identifier: GPL-2.0
# ramtrail top-level Makefile.
#
#   make check        all tests (installs what they need first)
#   make fuzz         fuzz the decoder, FUZZ_TIME seconds (default 600)
#   make bench-core   userspace benchmark of the writer and decoder
#   make tools        build the userspace side only

TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
BUILD := $(TOP)/build

.PHONY: all tools check check-tools deps fuzz bench bench-core clean

all: tools

deps:
	@$(TOP)/tools/deps.sh

tools: deps
	$(MAKE) -C $(TOP)/tools O=$(BUILD)/tools all

check: deps
	@$(TOP)/tools/run-checks.sh

fuzz: deps
	$(MAKE) -C $(TOP)/tools O=$(BUILD)/tools $(BUILD)/tools/fuzz_decode
	mkdir -p $(BUILD)/fuzz-corpus
	$(BUILD)/tools/fuzz_decode -max_len=65536 \
		-max_total_time=$(or $(FUZZ_TIME),600) -print_final_stats=1 \
		-artifact_prefix=$(BUILD)/ $(BUILD)/fuzz-corpus $(TOP)/tools/fuzz/corpus

bench: bench-core

bench-core: tools
	$(BUILD)/tools/bench_core

clean:
	rm -rf $(BUILD)
