# Benchmarks (bench/): not part of `make check` — they measure, they do not test.
#
#   make bench         pmix_bench under mpirun with Debian's libpmix and with ours
#                      (LD_PRELOAD) and under pmixrun, RUNS times each; and the mixed
#                      pairs (issue 16): our client under Debian's mpirun (only the ranks
#                      on ours) and Debian's client under pmixrun, each against Debian's
#                      client under Debian's mpirun; plus end-to-end hello timings. Prints
#                      two tables (bench/run.py; MODES= picks modes). About 4-6 minutes.
#                      CHRT="-f 50" runs every command at real-time priority (root), which
#                      keeps other work on a shared machine from interleaving with it.
#   make bench-count   callgrind instruction counts per Get/Put (bench/opcount.sh)
#   make bench-count-opx  the same for an OpenPMIx 4.2.2 client's job-level Gets under
#                      pmixrun and under Debian's mpirun, with its default gds (ds21) and
#                      with gds=hash (bench/opxcount.sh; bench/opcount.c on Debian's lib)
#   make bench-scale   256 ranks under pmixrun: init, collecting fence, Get of every
#                      peer's key (bench/scale.c); SCALE_NP=16 for fewer ranks
#   make bench-regex   PMIx_generate_regex / generate_ppn and server_register_nspace
#                      for 1,000,000 processes on 10,000 nodes, no clients (bench/regex.c);
#                      REGEX_ARGS="NODES PPN" for another size
#
# The client benchmark is bench/pmix_bench.c (public client API only). bench/run.py runs
# one binary of it, compiled against Debian's headers and linked with Debian's library
# (BENCH_DEB_BIN); the library that serves it is chosen at run time with LD_PRELOAD. It is
# also built against our include/ and build/lib (BENCH_OUR_BIN, -Wall -Wextra -Werror),
# which is the binary `make runtime-check` smoke-runs.

BENCH_DIR      := $(BUILD)/bench
BENCH_DEB_BIN  := $(BENCH_DIR)/pmix_bench.debian
BENCH_OUR_BIN  := $(BENCH_DIR)/pmix_bench
BENCH_OUR_BINS := $(BENCH_OUR_BIN) $(BENCH_DIR)/opcount $(BENCH_DIR)/scale $(BENCH_DIR)/regex
DEBIAN_LIBPMIX ?= /usr/lib/x86_64-linux-gnu/libpmix.so.2
BENCH_RUN_ENV   = PMIXRUN=$(PMIXRUN) OURS=$(LIBDIR)/libpmix.so.2 DEBIAN=$(DEBIAN_LIBPMIX) \
                  BENCH=$(BENCH_DEB_BIN) HELLO=$(BUILD)/tests-c/hello \
                  MPI_HELLO=$(BUILD)/tests-mpi/mpi_hello BIND=$(CURDIR)/bench/bind.sh

.PHONY: bench bench-build bench-count bench-count-opx bench-scale bench-regex

$(BENCH_DEB_BIN): bench/pmix_bench.c
	@mkdir -p $(@D)
	$(CC) -O2 -Wall -o $@ $< $$(pkg-config --cflags --libs pmix)

$(BENCH_DIR)/opcount.debian: bench/opcount.c
	@mkdir -p $(@D)
	$(CC) -O2 -Wall -o $@ $< $$(pkg-config --cflags --libs pmix)

$(BENCH_DIR)/%: bench/%.c
	@mkdir -p $(@D)
	$(CC) -O2 $(CFLAGS_C) -o $@ $< $(LDFLAGS_C)

bench-build: lib $(BENCH_DEB_BIN) $(BENCH_OUR_BINS) $(BUILD)/tests-c/hello $(BUILD)/tests-mpi/mpi_hello

bench: bench-build
	$(BENCH_RUN_ENV) $(TIMEOUT) 600 python3 bench/run.py

bench-count: lib $(BENCH_DIR)/opcount
	PMIXRUN=$(PMIXRUN) OPCOUNT=$(BENCH_DIR)/opcount $(TIMEOUT) 600 bash bench/opcount.sh

bench-count-opx: lib $(BENCH_DIR)/opcount.debian
	PMIXRUN=$(PMIXRUN) OPCOUNT_DEB=$(BENCH_DIR)/opcount.debian $(TIMEOUT) 900 bash bench/opxcount.sh

bench-scale: lib $(BENCH_DIR)/scale
	$(TIMEOUT) 300 $(PMIXRUN) --timeout 240 -n $${SCALE_NP:-256} $(BENCH_DIR)/scale

bench-regex: lib $(BENCH_DIR)/regex
	PMIX_SERVER_TMPDIR=$${TMPDIR:-/tmp} $(TIMEOUT) 120 $(BENCH_DIR)/regex $(REGEX_ARGS)
