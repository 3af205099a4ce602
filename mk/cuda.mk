# CUDA host-communications object (include/pmix_cuda.h, docs/CUDA.md): C tests under
# pmixrun (tests-c/cuda/run.sh holds the table of cases) and a latency benchmark.
#
#   make cuda-check     build the scenarios and run them all (part of `make check`)
#   make bench-cuda     barrier / 1-element allreduce latency next to PMIx_Fence
#                       (BENCH_CUDA_NP="2 8", BENCH_CUDA_ITERS=2000)

CUDA_BUILD  := $(BUILD)/tests-c/cuda
CUDA_DEPS   := include/pmix_cuda.h tests-c/check.h tests-c/cuda/cuda_util.h
CUDA_BINS   := $(addprefix $(CUDA_BUILD)/,header comms kill fake_cuda_13040 fake_cuda_12080)
CUDA_BENCH  := $(BUILD)/bench/cuda_bench
BENCH_CUDA_NP    ?= 2 8
BENCH_CUDA_ITERS ?= 2000
CXX ?= c++

$(CUDA_BUILD)/%: tests-c/cuda/%.c $(CUDA_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_C) -o $@ $< $(LDFLAGS_C)

# The same program after a stand-in <cuda.h> of CUDA 13.4 (types present) and 12.8.
$(CUDA_BUILD)/fake_cuda_%: tests-c/cuda/fake_cuda.c tests-c/cuda/fake/cuda.h $(CUDA_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_C) -I$(CURDIR)/tests-c/cuda/fake -DFAKE_CUDA_VERSION=$* -o $@ $< $(LDFLAGS_C)

$(CUDA_BENCH): bench/cuda_bench.c include/pmix_cuda.h
	@mkdir -p $(@D)
	$(CC) -O2 $(CFLAGS_C) -o $@ $< $(LDFLAGS_C)

.PHONY: cuda-build cuda-check bench-cuda
cuda-build: lib $(CUDA_BINS) $(CUDA_BENCH)

cuda-check: cuda-build
	@if command -v $(CXX) >/dev/null 2>&1; then \
	  printf '#include <pmix_cuda.h>\nint main() { return 0; }\n' | \
	    $(CXX) -x c++ -fsyntax-only -Wall -Wextra -Werror -I$(CURDIR)/include - && \
	    echo "ok   pmix_cuda.h compiles as C++"; \
	else echo "skip pmix_cuda.h as C++: no $(CXX)"; fi
	PMIXRUN=$(PMIXRUN) CT=$(CUDA_BUILD) BENCH=$(CUDA_BENCH) TIMEOUT="$(TIMEOUT)" \
	  bash tests-c/cuda/run.sh

bench-cuda: lib $(CUDA_BENCH)
	@for np in $(BENCH_CUDA_NP); do \
	  $(TIMEOUT) 120 $(PMIXRUN) --timeout 100 -n $$np $(CUDA_BENCH) -i $(BENCH_CUDA_ITERS) || exit 1; \
	done

CHECK_TARGETS += cuda-check
