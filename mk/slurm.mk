# Slurm 22.05 (Debian's slurm-wlm and munge, unchanged) on our libpmix.so.2: tests-slurm/.
#
#   make slurm-check          ours on both sides: LD_PRELOAD=build/lib/libpmix.so.2 on every
#                             slurmd (so in slurmstepd, where Slurm's mpi_pmix_v4.so runs
#                             the PMIx server) and in every rank; one-node and two-node jobs;
#                             then group "plain": only the ranks on ours, on a fourth node
#                             whose slurmd is not preloaded (the plugin unmodified, on
#                             Debian's OpenPMIx 4.2.2 server): PMIx hello, info, put/get,
#                             Open MPI hello and ring; group "opx": ranks on Debian's
#                             OpenPMIx 4.2.2 client under our server in slurmstepd
#                             (tests-c/v41server/mixed.c at -n 1 and 4)
#   make slurm-check-debian   the one-node cases with Debian's OpenPMIx 4.2.2 on both sides
#                             (no preload): proves the harness
#
# tests-slurm/run.sh starts a private cluster (munged, slurmctld, three slurmd on loopback)
# under a temporary directory, bounds every srun, prints the stacks of every slurmstepd and
# rank of a hung case, and stops what it started, also on failure. It prints a "skip" line
# and passes when slurm-wlm is not installed. SLURM_CASES="hello mpi" narrows a run
# (groups: info hello putget dmodex mpi abort kill timeout plain opx); SLURM_TWO_NODES=0 leaves
# out the two-node jobs.

SLURM_BUILD := $(BUILD)/tests-slurm
SLURM_CLIENT := $(SLURM_BUILD)/slurm_client
SLURM_CASES ?=
SLURM_RUN    = env HELLO=$(HELLO_BIN) RT=$(RT_BUILD) MN=$(MN_BUILD) MPI_BIN=$(OMPI_BIN) \
               CLIENT=$(SLURM_CLIENT) $(SLURM_OPX_ENV) $(CURDIR)/tests-slurm/run.sh $(SLURM_CASES)
# Group "opx" (OpenPMIx clients under our server in slurmstepd) needs Debian's libpmix-dev;
# the programs are mk/v41server.mk's (read after this file: its variables are not set yet).
SLURM_OPX_DIR  := $(BUILD)/tests/v41server
SLURM_OPX      := $(if $(wildcard /usr/lib/x86_64-linux-gnu/pmix2/include/pmix.h),$(SLURM_OPX_DIR)/mixed_openpmix)
SLURM_OPX_ENV  := $(if $(SLURM_OPX),OPX=$(SLURM_OPX_DIR)/mixed_openpmix OPX_OURS=$(SLURM_OPX_DIR)/mixed_ours)

$(SLURM_CLIENT): tests-slurm/slurm_client.c tests-c/multinode/mn.h tests-c/check.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_C) -I$(CURDIR)/tests-c/multinode -o $@ $< $(LDFLAGS_C)

# slurm-check-debian's copies of the C clients, built on Debian's headers and library.
SLURM_DEB     := $(SLURM_BUILD)/debian
SLURM_DEB_INC := /usr/lib/x86_64-linux-gnu/pmix2/include
SLURM_DEB_CC   = $(CC) -Wall -Wextra -Werror -g -I$(SLURM_DEB_INC) -I$(CURDIR)/tests-c \
                 -I$(CURDIR)/tests-c/multinode -o $@ $< -L$(dir $(DEBIAN_PMIX)) -l:libpmix.so.2
SLURM_DEB_BINS := $(addprefix $(SLURM_DEB)/,hello put_get dmodex_wait slurm_client)
$(SLURM_DEB)/hello: tests-c/hello.c
	@mkdir -p $(@D)
	$(SLURM_DEB_CC)
$(SLURM_DEB)/put_get: tests-c/runtime/put_get.c tests-c/check.h tests-c/runtime/rt.h
	@mkdir -p $(@D)
	$(SLURM_DEB_CC)
$(SLURM_DEB)/dmodex_wait: tests-c/multinode/dmodex_wait.c tests-c/multinode/mn.h
	@mkdir -p $(@D)
	$(SLURM_DEB_CC)
$(SLURM_DEB)/slurm_client: tests-slurm/slurm_client.c tests-c/multinode/mn.h
	@mkdir -p $(@D)
	$(SLURM_DEB_CC)

.PHONY: slurm-build slurm-check slurm-check-debian
slurm-build: lib $(SLURM_CLIENT) $(HELLO_BIN) $(RT_BUILD)/put_get $(MN_BUILD)/dmodex_wait \
             ompi-progs $(SLURM_OPX) $(if $(SLURM_OPX),$(SLURM_OPX_DIR)/mixed_ours)

# run.sh bounds each case itself; the outer bound sends TERM first so that its EXIT trap
# still stops the daemons.
slurm-check: slurm-build
	PMIX_LIB=$(LIBDIR)/libpmix.so.2 timeout -k 30 400 $(SLURM_RUN)

slurm-check-debian: ompi-progs $(SLURM_DEB_BINS)
	PMIX_LIB= HELLO=$(SLURM_DEB)/hello RT=$(SLURM_DEB) MN=$(SLURM_DEB) \
	    CLIENT=$(SLURM_DEB)/slurm_client MPI_BIN=$(OMPI_BIN) timeout -k 30 400 \
	    $(CURDIR)/tests-slurm/run.sh $(SLURM_CASES)

CHECK_TARGETS += slurm-check
