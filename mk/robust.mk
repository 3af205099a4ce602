# Robustness tests (docs/ROBUSTNESS.md lists every scenario and its result):
#
#   make robust-misuse           tests-c/misuse: every helper export called with NULL
#                                pointers, zero/huge counts, over-length and unterminated
#                                keys/namespaces (ending at a PROT_NONE page), wrong types;
#                                every runtime export before init, while initialised (singleton
#                                client, module-less server) and after finalize (generated); 8 threads
#   make robust-misuse-valgrind  the same programs under valgrind (errors and definite leaks fail)
#   make robust-misuse-coverage  every helper defined in capi/src/helpers is called by a misuse test
#   make robust-diff             tests-c/diff: one program built against our library and against
#                                Debian's OpenPMIx 4.2.2; outputs must match except the lines
#                                listed (with a reason) in tests-c/diff/allow.txt
#   make robust-fuzz-smoke       each fuzz target for ROBUST_FUZZ_SECS (default 5) seconds (cargo-fuzz
#                                with RUSTC_BOOTSTRAP=1 when installed, else the fuzz-fallback harness)
#   make fuzz-long               each target for ROBUST_FUZZ_LONG_SECS (default 600) of wall time,
#                                niced, ROBUST_FUZZ_LONG_JOBS (default 2) at a time; prints wall
#                                time, executions, corpus size, crashes and timeouts per target
#                                for ROBUSTNESS.md (robust-fuzz-long is the old name)

ROBUST_OUT        := $(BUILD)/tests/robust
MISUSE_SRCS       := $(wildcard tests-c/misuse/*.c)
MISUSE_BINS       := $(patsubst tests-c/misuse/%.c,$(ROBUST_OUT)/misuse/%,$(MISUSE_SRCS)) \
                     $(ROBUST_OUT)/misuse/gen_before_init
ROBUST_VALGRIND   ?= valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite -q
DIFF_REF_INC      ?= /usr/lib/x86_64-linux-gnu/pmix2/include
DIFF_REF_LIB      ?= /usr/lib/x86_64-linux-gnu/pmix2/lib
ROBUST_FUZZ_SECS  ?= 5
ROBUST_FUZZ_LONG_SECS ?= 600
FUZZ_TARGETS      := value_decode info_decode decompress data_unpack v41_decode \
                     frame_decode message_decode blob_decode server_session v41_wire
ROBUST_FUZZ_LONG_TARGETS ?= $(FUZZ_TARGETS)
FUZZ_DIR          := $(CURDIR)/fuzz
# The libFuzzer-free harness builds in the dev profile into a target directory of its
# own (target/fuzz): pmix-sys, pmix-core and capi, not members of fuzz/'s workspace,
# compile again with the harness anyway (about 50 CPU-s), and sharing the workspace's
# directory left two builds of pmix_sys side by side there, which broke the next
# `make rust-check` after a source change (session 10); the crates.io dependencies
# compiling once more cost about 20 CPU-s. A separate release build of everything cost
# about 3 CPU-minutes of a clean `make check`; opt-level 1 for our crates costs as much
# and gave 1.2-1.5x the executions per second (measured: value_decode 0.73 vs 0.85 M/s,
# server_session 4.7 vs 6.9 k/s), so the smoke run stays at opt-level 0.
FUZZ_FALLBACK     := $(CURDIR)/target/fuzz/debug/fuzz-fallback
# cargo-fuzz needs nightly-only flags (-Zsanitizer, coverage options); stable rustc
# accepts them with RUSTC_BOOTSTRAP=1. ROBUST_FUZZ_ENGINE=fallback forces the harness.
ROBUST_FUZZ_ENGINE ?= $(if $(shell command -v cargo-fuzz 2>/dev/null),cargo-fuzz,fallback)
CARGO_FUZZ        := env RUSTC_BOOTSTRAP=1 $(CARGO) fuzz

.PHONY: robust-misuse robust-misuse-valgrind robust-misuse-coverage robust-diff \
        robust-fuzz-smoke robust-fuzz-long fuzz-long robust-fuzz-corpus

$(ROBUST_OUT)/misuse/%: tests-c/misuse/%.c tests-c/misuse/misuse.h tests-c/check.h | lib
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_C) -o $@ $< $(LDFLAGS_C)

# Every runtime export (the functions not in capi/src/helpers) called before init with
# all-NULL/zero arguments, generated from the signature list.
$(ROBUST_OUT)/misuse/gen_before_init.c: tests-c/misuse/gen_before_init.py tests-c/abi/api-master-signatures.txt $(wildcard capi/src/helpers/*.rs)
	@mkdir -p $(dir $@)
	python3 tests-c/misuse/gen_before_init.py --out $@

$(ROBUST_OUT)/misuse/gen_before_init: $(ROBUST_OUT)/misuse/gen_before_init.c tests-c/check.h | lib
	$(CC) $(CFLAGS_C) -Wno-unused-parameter -o $@ $< $(LDFLAGS_C)

# The same calls while a singleton client / a module-less server is initialised, and
# after it finalized (one process per mode: init state is per process).
LIFECYCLE_MODES := client-during client-after server-during server-after
$(ROBUST_OUT)/misuse/gen_lifecycle.c: tests-c/misuse/gen_before_init.py tests-c/abi/api-master-signatures.txt $(wildcard capi/src/helpers/*.rs)
	@mkdir -p $(dir $@)
	python3 tests-c/misuse/gen_before_init.py --lifecycle --out $@

$(ROBUST_OUT)/misuse/gen_lifecycle: $(ROBUST_OUT)/misuse/gen_lifecycle.c tests-c/check.h | lib
	$(CC) $(CFLAGS_C) -Wno-unused-parameter -o $@ $< $(LDFLAGS_C)

robust-misuse-coverage:
	python3 tests-c/misuse/coverage.py

robust-misuse: $(MISUSE_BINS) $(ROBUST_OUT)/misuse/gen_lifecycle robust-misuse-coverage
	@set -e; for t in $(MISUSE_BINS); do \
	    echo "== $$t"; $(TIMEOUT) 120 $$t > $$t.log 2>&1 || { cat $$t.log; echo "FAIL $$t"; exit 1; }; tail -1 $$t.log; \
	done; t=$(ROBUST_OUT)/misuse/gen_lifecycle; for m in $(LIFECYCLE_MODES); do \
	    echo "== $$t $$m"; $(TIMEOUT) 120 $$t $$m > $$t.$$m.log 2>&1 || { cat $$t.$$m.log; echo "FAIL $$t $$m"; exit 1; }; tail -1 $$t.$$m.log; \
	done

robust-misuse-valgrind: $(MISUSE_BINS) $(ROBUST_OUT)/misuse/gen_lifecycle
	@set -e; for t in $(MISUSE_BINS); do \
	    echo "== valgrind $$t"; $(TIMEOUT) 600 $(ROBUST_VALGRIND) $$t > $$t.vg.log 2>&1 \
	      || { cat $$t.vg.log; echo "FAIL valgrind $$t"; exit 1; }; tail -1 $$t.vg.log; \
	done; t=$(ROBUST_OUT)/misuse/gen_lifecycle; for m in $(LIFECYCLE_MODES); do \
	    echo "== valgrind $$t $$m"; $(TIMEOUT) 600 $(ROBUST_VALGRIND) $$t $$m > $$t.$$m.vg.log 2>&1 \
	      || { cat $$t.$$m.vg.log; echo "FAIL valgrind $$t $$m"; exit 1; }; tail -1 $$t.$$m.vg.log; \
	done

# The differential program, built twice: against our headers and library, and against
# Debian's OpenPMIx 4.2.2 (skipped with a message when libpmix-dev is not installed).
$(ROBUST_OUT)/diff/ours: tests-c/diff/diff.c | lib
	@mkdir -p $(dir $@)
	$(CC) -Wall -Wextra -Werror -g -I$(CURDIR)/include -o $@ $< $(LDFLAGS_C)

$(ROBUST_OUT)/diff/ref: tests-c/diff/diff.c tests-c/refinit.h
	@mkdir -p $(dir $@)
	$(CC) -Wall -Wextra -Werror -g -I$(DIFF_REF_INC) -DDIFF_REFERENCE -o $@ $< \
	  -L$(DIFF_REF_LIB) -Wl,-rpath,$(DIFF_REF_LIB) -lpmix

robust-diff: $(ROBUST_OUT)/diff/ours
	@if [ ! -f $(DIFF_REF_INC)/pmix.h ] || [ ! -e $(DIFF_REF_LIB)/libpmix.so ]; then \
	  echo "SKIP robust-diff: OpenPMIx 4.2.2 (libpmix-dev) not installed"; exit 0; fi; \
	$(MAKE) --no-print-directory $(ROBUST_OUT)/diff/ref && \
	$(TIMEOUT) 60 $(ROBUST_OUT)/diff/ours > $(ROBUST_OUT)/diff/ours.txt && \
	$(TIMEOUT) 60 $(ROBUST_OUT)/diff/ref > $(ROBUST_OUT)/diff/ref.txt 2> $(ROBUST_OUT)/diff/ref.stderr && \
	python3 tests-c/diff/compare.py --ours $(ROBUST_OUT)/diff/ours.txt --ref $(ROBUST_OUT)/diff/ref.txt \
	  --allow tests-c/diff/allow.txt

# ---- fuzzing ----

# Cargo decides whether it is fresh (FORCE: the sources are deeper than a wildcard sees).
.PHONY: FORCE
FORCE:
$(FUZZ_FALLBACK): FORCE
	cd fuzz && $(CARGO) build --no-default-features --bin fuzz-fallback --target-dir $(CURDIR)/target/fuzz \
	  --config profile.dev.opt-level=0

# Seed corpora from valid encodings (never committed: generated each time). The
# libFuzzer targets write their own seeds when PMIX_FUZZ_SEEDS is set.
robust-fuzz-corpus: $(FUZZ_FALLBACK)
	@cd fuzz && $(FUZZ_FALLBACK) gen corpus

# The smoke run builds the targets in the dev profile (ASan; fuzz/Cargo.toml gives it
# opt-level 1): quicker to compile than the release profile, which cargo-fuzz builds as
# one codegen unit, and fast enough for a few seconds per target.
robust-fuzz-smoke:
	@set -e; \
	if [ "$(ROBUST_FUZZ_ENGINE)" = cargo-fuzz ]; then \
	  cd fuzz; \
	  echo "robust-fuzz-smoke: cargo-fuzz (RUSTC_BOOTSTRAP=1, dev profile, ASan), $(ROBUST_FUZZ_SECS) s per target"; \
	  $(CARGO_FUZZ) build --dev; \
	  for t in $(FUZZ_TARGETS); do \
	    PMIX_FUZZ_SEEDS=corpus/$$t $(TIMEOUT) $$(( $(ROBUST_FUZZ_SECS) + 60 )) $(CARGO_FUZZ) run --dev $$t corpus/$$t -- \
	      -max_total_time=$(ROBUST_FUZZ_SECS) -print_final_stats=1 > target/smoke-$$t.log 2>&1 \
	      || { tail -60 target/smoke-$$t.log; echo "FAIL fuzz target $$t (artifacts in fuzz/artifacts/$$t)"; exit 1; }; \
	    echo "ok   fuzz $$t: $$(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' target/smoke-$$t.log | grep -o '[0-9]*$$') executions in $(ROBUST_FUZZ_SECS) s"; \
	  done; \
	else \
	  $(MAKE) --no-print-directory robust-fuzz-corpus; cd fuzz; \
	  echo "robust-fuzz-smoke: fuzz-fallback harness (cargo-fuzz not installed), $(ROBUST_FUZZ_SECS) s per target"; \
	  for t in $(FUZZ_TARGETS); do \
	    $(TIMEOUT) $$(( $(ROBUST_FUZZ_SECS) + 60 )) $(FUZZ_FALLBACK) run $$t --corpus corpus/$$t --seconds $(ROBUST_FUZZ_SECS); \
	  done; \
	fi

# The long campaign (docs/ROBUSTNESS.md records its results): fuzz/long.sh runs every
# target for ROBUST_FUZZ_LONG_SECS of wall time, ROBUST_FUZZ_LONG_JOBS at a time, niced.
ROBUST_FUZZ_LONG_JOBS ?= 2
fuzz-long:
	cd fuzz && SECS=$(ROBUST_FUZZ_LONG_SECS) JOBS=$(ROBUST_FUZZ_LONG_JOBS) CARGO=$(CARGO) \
	  bash long.sh $(ROBUST_FUZZ_LONG_TARGETS)

robust-fuzz-long: fuzz-long

CHECK_TARGETS += robust-misuse robust-misuse-valgrind robust-diff robust-fuzz-smoke
