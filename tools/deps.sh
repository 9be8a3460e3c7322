#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Installs the Debian packages the userspace checks need (clang with the
# libFuzzer and sanitizer runtimes, spin, sparse, trace-cmd, xz, the arm64
# cross compiler with its C library and qemu-user). Does nothing when they
# are there.
set -eu
need=()
command -v cc >/dev/null || need+=(gcc)
command -v make >/dev/null || need+=(make)
command -v clang-14 >/dev/null || need+=(clang-14)
ls /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a \
	>/dev/null 2>&1 || need+=(libclang-rt-14-dev)
# SPIN checks the model of the record path (tools/model).
command -v spin >/dev/null || need+=(spin)
command -v sparse >/dev/null || need+=(sparse)
# trace-cmd reads the exported trace.dat back; xz unpacks 6.12's .ko.xz.
command -v trace-cmd >/dev/null || need+=(trace-cmd)
command -v xz >/dev/null || need+=(xz-utils)
# The command for arm64 guests and package, and its tests under qemu-user:
# the compiler only recommends its C library, which --no-install-recommends
# leaves out.
command -v aarch64-linux-gnu-gcc >/dev/null || need+=(gcc-aarch64-linux-gnu)
[ -e /usr/aarch64-linux-gnu/include/stdio.h ] || need+=(libc6-dev-arm64-cross)
command -v qemu-aarch64 >/dev/null || need+=(qemu-user)
[ ${#need[@]} -eq 0 ] && exit 0
echo "deps: installing ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null
