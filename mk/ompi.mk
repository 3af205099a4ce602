# Open MPI 4.1.4 (Debian's openmpi-bin, unchanged) on our libpmix.so.2: tests-mpi/.
#
#   make ompi-check          every scenario with our build/lib/libpmix.so.2
#   make ompi-check-debian   the same with Debian's OpenPMIx 4.2.2 (proves the harness)
#   make ompi-perf           end-to-end mpirun -np 2/8/32 mpi_hello, ours vs Debian's
#   make ompi-check-core     the scenarios without spawn and connect (quicker)
#
# tests-mpi/run.sh bounds each case with timeout -s KILL (a hang is a failure) and stops
# after a few hangs. Pass OMPI_SCENARIOS="hello ring" or OMPI_MODES=preload to narrow a run.
# ompi-check (all scenarios, spawn and connect included) is in CHECK_TARGETS: it needs root
# (network namespaces, --allow-run-as-root), Debian's openmpi-bin and iproute2; the netns
# scenario's hosts are made and removed by tests-mpi/netns/hosts.

MPICC          ?= mpicc
OMPI_BIN       := $(BUILD)/tests-mpi
OMPI_CFLAGS    := -Wall -Wextra -Werror -g -O1 -I$(CURDIR)/tests-c
OMPI_PROGS     := mpi_hello mpi_ring mpi_spawn mpi_connect mpi_abort
OMPI_EXES      := $(addprefix $(OMPI_BIN)/,$(OMPI_PROGS))
DEBIAN_PMIX    := /usr/lib/x86_64-linux-gnu/libpmix.so.2
OMPI_SCENARIOS ?=
OMPI_RUN        = env MPI_BIN=$(OMPI_BIN) $(if $(OMPI_MODES),MODES="$(OMPI_MODES)") \
                  $(CURDIR)/tests-mpi/run.sh $(OMPI_SCENARIOS)

.PHONY: ompi-progs ompi-check ompi-check-debian ompi-perf ompi-check-core

$(OMPI_BIN)/%: tests-mpi/%.c tests-mpi/mpitest.h tests-c/check.h
	@mkdir -p $(OMPI_BIN)
	$(MPICC) $(OMPI_CFLAGS) -o $@ $<

ompi-progs: $(OMPI_EXES)

# run.sh bounds each case itself; the outer bound sends TERM first so that its EXIT trap
# still removes the namespaces.
ompi-check: lib ompi-progs
	PMIX_LIB=$(LIBDIR)/libpmix.so.2 timeout -k 30 900 $(OMPI_RUN)

ompi-check-debian: ompi-progs
	PMIX_LIB=$(DEBIAN_PMIX) $(OMPI_RUN)

ompi-perf: lib ompi-progs
	$(TIMEOUT) 600 $(CURDIR)/tests-mpi/perf.sh $(OMPI_BIN)/mpi_hello $(LIBDIR)/libpmix.so.2 $(DEBIAN_PMIX)

OMPI_CORE_SCENARIOS := symbols hello ring abort singleton netns
ompi-check-core: lib ompi-progs
	PMIX_LIB=$(LIBDIR)/libpmix.so.2 MPI_BIN=$(OMPI_BIN) NETNS_PROGS="hello ring" \
	    timeout -k 30 900 $(CURDIR)/tests-mpi/run.sh $(OMPI_CORE_SCENARIOS)

CHECK_TARGETS += ompi-check
