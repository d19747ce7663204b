# SPDX-License-Identifier: GPL-2.0
#
# rust_afunix: `make demo` and `make check` do every set-up step that is missing.
# Kbuild reads `Kbuild`; this file is the wrapper for people.

KVARIANT ?= debug
# The kernel line (issue 36): 6.12 (LTS, the default and what CI runs) or 7.3. The scripts
# read it from the environment; each line's version is pinned in scripts/common.sh.
KLINE ?= 6.12
export KLINE
SCRIPTS := $(CURDIR)/scripts
CACHE ?= $(or $(RUST_AFUNIX_CACHE),$(HOME)/.cache/rust-afunix)
# The line's kernel source tree (extracted by scripts/build-kernel).
KSRC := $(CACHE)/linux-source-$(KLINE)
BINDGEN := $(CACHE)/tools/bin/bindgen
# Debian's rust-web-clippy: clippy for rustc-web's compiler.
CLIPPY_DRIVER := /usr/bin/clippy-driver
KMAKE_ARGS = LLVM=-22 RUSTC=/usr/bin/rustc HOSTRUSTC=/usr/bin/rustc \
	RUSTDOC=/usr/bin/rustdoc BINDGEN=$(BINDGEN) \
	$(if $(filter-out 6.12,$(KLINE)),PAHOLE=$(CACHE)/tools/bin/pahole)
# (GNU make 4.3 runs $(shell) without the exported variables: KLINE is passed by hand,
# or `make KLINE=7.3` would find 6.12's kernel.)
KDIR = $(shell KLINE=$(KLINE) $(SCRIPTS)/build-kernel $(KVARIANT))

.PHONY: all setup kernel kernels module selftests shim launcher demo check shell bench bench-docs \
	fuzz stress lint layers fmt clean help

all: module selftests shim launcher

help:
	@echo "make demo       boot the test kernel, load the module, show an exchange of each type"
	@echo "make check      the whole test suite in the VM, on both families (debug kernel);"
	@echo "                T=\"names datapath\" runs only those programs of selftests/tests.list"
	@echo "make lint       layering, rustfmt, checkpatch, the module built with clippy, the"
	@echo "                compile-fail check, and the documents' links (scripts/check-docs)"
	@echo "make shell      a root shell in the VM with the module loaded (KVARIANT=debug|perf)"
	@echo "make bench      benchmarks on the perf kernel, ours vs AF_UNIX, into bench/results/"
	@echo "                (BENCH_ICOUNT=1: deterministic; refuses a dirty tree unless"
	@echo "                BENCH_ALLOW_DIRTY=1)"
	@echo "make bench-docs docs/benchmarks.md and README.md's headline from bench/results/"
	@echo "make fuzz       the differential fuzzer, long form (FUZZ_SEEDS seeds, FUZZ_OPS calls)"
	@echo "make stress     the concurrency stress, long form (STRESS_SECONDS per family)"
	@echo "make layers     unsafe / bindings:: / extern \"C\" counts per file and per layer"
	@echo "make all        the module, the selftests, the shim and the launcher (the default)"
	@echo "make module     build rust_afunix.ko (KVARIANT=debug|perf)"
	@echo "make selftests  build the selftest programs"
	@echo "make shim       build shim/unixshim.so"
	@echo "make launcher   build tools/afunix-run (any program's AF_UNIX sockets on the family)"
	@echo "make setup      install what is missing: Debian packages, bindgen, virtme-ng"
	@echo "make kernel     build the test kernel KVARIANT into $(CACHE)"
	@echo "make kernels    build both test kernels, debug and perf"
	@echo "make fmt        rustfmt the crate with the kernel's .rustfmt.toml"
	@echo "make clean      remove the builds of the module, selftests, shim and benchmarks"
	@echo "make help       this list"
	@echo "Every target takes KLINE=6.12|7.3, the kernel line (default 6.12, the LTS)."

setup:
	@$(SCRIPTS)/setup

kernel: setup
	@$(SCRIPTS)/build-kernel $(KVARIANT)

kernels: setup
	@$(SCRIPTS)/build-kernel debug
	@$(SCRIPTS)/build-kernel perf

# The module is built in place (M=), for one kernel at a time: switching kernels removes
# its build first, MODULE_BUILT, all in the repo root (Kbuild builds no subdirectory).
# Not Kbuild's `clean`: for M= it removes every *.o and *.a below, the selftests' BPF
# object and libbpf among them. `make lint` builds it with clippy (KMAKE_LINT); the
# kernel's -Dwarnings (CONFIG_WERROR) makes any clippy warning an error.
MODULE_BUILT := *.o .module-common.o *.ko *.mod *.mod.c *.bc .*.cmd modules.order \
	Module.symvers afunix_bindings_generated.rs
module: setup
	@kdir="$(KDIR)"; \
	if [ -f .kdir ] && [ "$$(cat .kdir)" != "$$kdir" ]; then rm -f $(MODULE_BUILT); fi; \
	echo "$$kdir" > .kdir; \
	$(MAKE) -C "$$kdir" M=$(CURDIR) $(KMAKE_ARGS) $(KMAKE_LINT) W=1 modules

selftests:
	@$(MAKE) -s -C selftests KSRC=$(KSRC) \
		$(if $(filter-out 6.12,$(KLINE)),UAPI=$$($(SCRIPTS)/build-kernel --uapi))

# LD_PRELOAD shim: unmodified AF_UNIX programs on the module's family (shim/unixshim.c).
shim: shim/unixshim.so

shim/unixshim.so: shim/unixshim.c
	$(CC) -O2 -Wall -Wextra -Werror -fPIC -shared -o $@ $< -ldl

# The launcher: programs the shim does not reach (static, Go, setuid) on the family
# (tools/afunix-run.c, seccomp + ptrace).
launcher: tools/afunix-run

tools/afunix-run: tools/afunix-run.c
	$(CC) -O2 -Wall -Wextra -Werror -o $@ $<

demo: setup module selftests
	@$(SCRIPTS)/vm-run --kernel $(KVARIANT) -- scripts/demo-guest

# T="names datapath" runs only those programs of selftests/tests.list (default: all).
check: setup module selftests shim launcher
	@$(SCRIPTS)/vm-run --kernel debug -- selftests/run_tests.sh $(T)

# An interactive root shell in the guest, module loaded, in a tmpfs; leaving it unloads
# the module and checks the kernel log (as every vm-run).
shell: setup module selftests shim launcher
	@$(SCRIPTS)/vm-run --kernel $(KVARIANT) --interactive -- scripts/shell-guest

# The differential fuzzer, long form: FUZZ_SEEDS seeds from FUZZ_FIRST, FUZZ_OPS calls
# each, FUZZ_JOBS seeds at a time (one per vCPU), on the FUZZ_KERNEL kernel (make check
# runs seeds 1..200 with 60 calls on the debug kernel). FUZZ_TIMEOUT: the guest's limit.
FUZZ_FIRST ?= 1
FUZZ_SEEDS ?= 2000
FUZZ_OPS ?= 2000
FUZZ_JOBS ?= 2
FUZZ_KERNEL ?= debug
FUZZ_TIMEOUT ?= 5400
fuzz: setup selftests shim
	@$(SCRIPTS)/vm-run --kernel $(FUZZ_KERNEL) --timeout $(FUZZ_TIMEOUT) -- sh -c \
		'cd "$$AFUNIX_TMP" && exec "$$AFUNIX_ROOT/selftests/fuzz" $(FUZZ_FIRST) \
		$(FUZZ_SEEDS) $(FUZZ_OPS) $(FUZZ_JOBS)'

# The concurrency stress, long form: STRESS_SECONDS per family on the debug kernel
# (make check runs 6).
STRESS_SECONDS ?= 300
stress: setup module selftests shim
	@$(SCRIPTS)/vm-run --kernel debug --timeout 5400 -- sh -c \
		'cd "$$AFUNIX_TMP" && exec "$$AFUNIX_ROOT/selftests/stress" $(STRESS_SECONDS)'

# Benchmarks on the perf kernel, both families in one guest boot; results in
# bench/results/<time>-<commit>/ (results.md, results.json, raw files). BENCH_ICOUNT=1
# runs them under QEMU's instruction-counting clock (vm-run --icount): deterministic.
# Then (wall-clock mode, if the storm suite ran) the connect storm again in a second boot
# with BENCH_OVERCOMMIT_CPUS vCPUs (default 4, more than the host's cores; 0: not run),
# in <run>/overcommit/.
# Results name their commit: from a tree with uncommitted changes (git describe --dirty)
# it refuses unless BENCH_ALLOW_DIRTY=1; the run's directory then ends in -dirty.
BENCH_OVERCOMMIT_CPUS ?= 4
bench: setup selftests shim launcher bench/lookup bench/datapath bench/autobind bench/connect \
	bench/launcher
	@case "$$(git describe --always --dirty)" in *-dirty) [ "$(BENCH_ALLOW_DIRTY)" = 1 ] || { \
		echo "bench: the tree has uncommitted changes, which no commit would describe:" \
			"commit them first, or BENCH_ALLOW_DIRTY=1 make bench" >&2; exit 1; };; esac
	@$(SCRIPTS)/setup --bench
	@$(MAKE) -s module KVARIANT=perf
	@$(SCRIPTS)/vm-run --kernel perf --memory 8G --timeout 5400 \
		$(if $(filter 1,$(BENCH_ICOUNT)),--icount) -- bench/run-guest
	@run=bench/results/$$(date -u +%Y%m%dT%H%M%SZ)-$$(git describe --always --dirty)$(if \
		$(filter 1,$(BENCH_ICOUNT)),-icount); \
	mkdir -p $$run && cp -r $(CACHE)/vm-run/bench/. $$run/ && \
	if [ "$(BENCH_ICOUNT)" != 1 ] && [ "$(BENCH_OVERCOMMIT_CPUS)" != 0 ] && \
	   [ -f $$run/storm.jsonl ]; then \
		BENCH_SUITES=storm $(SCRIPTS)/vm-run --kernel perf --memory 8G --timeout 5400 \
			--cpus $(BENCH_OVERCOMMIT_CPUS) -- bench/run-guest && \
		mkdir -p $$run/overcommit && cp -r $(CACHE)/vm-run/bench/. $$run/overcommit/; \
	fi && bench/report $$run && bench/plot $$run && echo "bench: results in $$run"

# docs/benchmarks.md (bench/benchmarks.md.in filled) and README.md's headline, from the
# latest run of each mode in bench/results/; `make lint` checks that they match.
bench-docs:
	@bench/report --update

bench/lookup bench/datapath bench/autobind bench/connect bench/launcher: %: %.c bench/bench.h
	$(CC) -O2 -Wall -Wextra -Werror -o $@ $<

# scripts/check-docs: the documents' links and the repository paths they name exist, and
# docs/benchmarks.md is what bench/results/ says. scripts/check-layers: api/ names no
# protocol file, no cycles between files, no unsafe or C ABI in the protocol files.
# scripts/compile-fail: misuses of the API must not type-check against the crate as just
# built, their twins must.
lint: setup
	@ksrc=$(KSRC); \
	$(SCRIPTS)/check-docs && \
	$(SCRIPTS)/check-layers && \
	rustfmt --edition 2021 --config-path $$ksrc/.rustfmt.toml --check rust_afunix_main.rs \
		selftests/compile-fail/*.rs && \
	$$ksrc/scripts/checkpatch.pl --no-tree --quiet --ignore SPDX_LICENSE_TAG,FILE_PATH_CHANGES \
		--show-types -f $$(ls *.rs api/*.rs api/sock/*.rs *.c *.h selftests/*.c selftests/*.h shim/*.c \
		selftests/compile-fail/*.rs | grep -v _generated) && \
	$$ksrc/scripts/checkpatch.pl --no-tree --quiet --show-types -f bench/*.c bench/*.h tools/*.c \
		--ignore SPDX_LICENSE_TAG,FILE_PATH_CHANGES,SPLIT_STRING,EMBEDDED_FUNCTION_NAME && \
	$(MAKE) -s module KMAKE_LINT="CLIPPY=1 CLIPPY_DRIVER=$(CLIPPY_DRIVER)" && \
	$(SCRIPTS)/compile-fail && \
	echo "lint: clean"

layers:
	@$(SCRIPTS)/check-layers --counts

fmt:
	rustfmt --edition 2021 --config-path $(KSRC)/.rustfmt.toml rust_afunix_main.rs

clean:
	@if [ -f .kdir ] && [ -d "$$(cat .kdir)" ]; then \
		$(MAKE) -s -C "$$(cat .kdir)" M=$(CURDIR) $(KMAKE_ARGS) clean; fi
	@rm -f .kdir bench/lookup bench/datapath bench/autobind bench/connect bench/launcher \
		shim/unixshim.so \
		tools/afunix-run
	@$(MAKE) -s -C selftests clean
