# Our client under an OpenPMIx server (issue 16): tests-c/v41client/run.sh.
#
#   make v41client-check   Debian's own mpirun (Open MPI 4.1.4, OpenPMIx 4.2.2 server,
#                          nothing preloaded) starts ranks that alone get our libpmix.so.2
#                          (LD_LIBRARY_PATH set by `env` as the program mpirun starts):
#                          tests-c/v41client/client.c at -np 1, 2, 4 (job info, Put/Commit
#                          with a compressed long string, fences, peer Gets, refresh,
#                          events, Publish/Lookup, Finalize; each rank proves by its maps
#                          that it runs ours), refusal of a gds we do not implement (munge
#                          security: make munge-check), then Open MPI's mpi_hello and mpi_ring (tests-mpi/)
#                          with only the ranks on ours and mpirun on Debian's; then
#                          tests-c/v41client/apis.c (built against Debian's headers) on
#                          Debian's libpmix and on ours, answers compared: Get with
#                          PMIX_TIMEOUT, Unpublish, Query, Log, Job_control, Abort, Spawn,
#                          Connect/Disconnect, a Fence that times out (PMIX_TIMEOUT) and
#                          the fences after it; Open MPI's mpi_spawn with parents
#                          and children on ours. With the Open MPI 5 venv, under its
#                          prterun (OpenPMIx 5.0.11 server): apis' modes apis,
#                          fencetimeout and spawn on the wheel's own client and on ours,
#                          answers compared; IOF pull and group construct/destruct on
#                          ours, every answer a success. Skipped with a message when mpirun (openmpi-bin) is not
#                          installed.

V41CLIENT_OUT := $(BUILD)/tests/v41client

# No rpath: the ranks find libpmix.so.2 by LD_LIBRARY_PATH, as an unchanged program would.
$(V41CLIENT_OUT)/client: tests-c/v41client/client.c tests-c/check.h tests-c/v41client/maps.h | lib
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_C) -o $@ $< -L$(LIBDIR) -lpmix -lpthread

# Against Debian's headers and library (its RUNPATH): the ranks choose ours or Debian's by
# LD_LIBRARY_PATH, one binary for both.
$(V41CLIENT_OUT)/apis: tests-c/v41client/apis.c tests-c/check.h tests-c/v41client/maps.h
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -Wall -Wextra -Werror -I$(CURDIR)/tests-c -o $@ $< $$(pkg-config --cflags --libs pmix)

.PHONY: v41client-check
v41client-check: $(V41CLIENT_OUT)/client
	@if ! command -v mpirun >/dev/null || ! command -v $(MPICC) >/dev/null || \
	  ! pkg-config --exists pmix; then \
	  echo "SKIP v41client-check: mpirun/mpicc/Debian's libpmix (openmpi-bin, libopenmpi-dev, libpmix-dev) not installed"; \
	  exit 0; fi; \
	set -e; $(MAKE) --no-print-directory $(OMPI_BIN)/mpi_hello $(OMPI_BIN)/mpi_ring \
	  $(OMPI_BIN)/mpi_spawn $(V41CLIENT_OUT)/apis; \
	OURS=$(LIBDIR)/libpmix.so.2 CLIENT=$(V41CLIENT_OUT)/client MPI_BIN=$(OMPI_BIN) \
	  APIS=$(V41CLIENT_OUT)/apis PRTERUN=$(OMPI5_VENV)/bin/prterun \
	  $(TIMEOUT) 300 tests-c/v41client/run.sh

CHECK_TARGETS += v41client-check

# make bench-v41client: pmix_bench under Debian's mpirun, Debian's client against ours
# (only the ranks on ours), ratios per operation (bench/v41client.sh; docs/PERF.md "Our
# client under OpenPMIx 4.2.2").
.PHONY: bench-v41client
bench-v41client: lib $(BENCH_DEB_BIN)
	OURS=$(LIBDIR)/libpmix.so.2 BENCH=$(BENCH_DEB_BIN) $(TIMEOUT) 900 bash bench/v41client.sh
