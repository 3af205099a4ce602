# Scale on one machine (not part of `make check`: it measures, and 4,096 processes
# load a 2-core machine for a minute).
#
#   make scale         bench/scale.c (PMIx_Init, Put, collecting fence, Get of the next
#                      8 ranks' keys, Finalize) under pmixrun at 256, 1,024, 2,048 and
#                      4,096 ranks: wall time, pmixrun's peak RSS and descriptors, the
#                      ranks' fence time (bench/scale.py; table in docs/PERF.md,
#                      "Scale on one machine"). SCALE_SIZES="256 512" for other sizes.
#   make bench BENCH_SCALE=1   runs it too (before the usual bench table).

SCALE_SIZES ?= 256 1024 2048 4096

.PHONY: scale

scale: lib $(BENCH_DIR)/scale
	PMIXRUN=$(PMIXRUN) SCALE=$(BENCH_DIR)/scale $(TIMEOUT) 1200 python3 bench/scale.py $(SCALE_SIZES)

ifeq ($(BENCH_SCALE),1)
bench: scale
endif
