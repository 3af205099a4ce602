# Our server library under another library's host, and a host on another library serving
# our clients (issue 16 items 2 and 6): tests-c/v41host/run.sh.
#
#   make v41host-check   Debian's Open MPI 4.1.4 with only mpirun/orted on our library
#                        (ranks on Debian's OpenPMIx 4.2.2, speaking v41 to our server):
#                        tests-mpi's hello, ring and spawn at -np 1, 2, 4, and
#                        tests-c/v41host/jobinfo.c checking the job data ORTE registered
#                        as an OpenPMIx client reads it; then tests-c/v41host/host.c, a
#                        host built on Debian's OpenPMIx serving tests-c/v41host/client.c
#                        built on ours (fence with data through the host's fence_nb,
#                        publish/lookup/unpublish through its callbacks) at 1, 3, 8 ranks.
#                        Skipped with a message without libpmix-dev or openmpi-bin.

V41H_OUT := $(BUILD)/tests/v41host
V41H_DEB := $(DIFF_REF_LIB)/libpmix.so.2

$(V41H_OUT)/client: tests-c/v41host/client.c tests-c/check.h tests-c/v41host/putfence.h | lib
	@mkdir -p $(dir $@)
	$(CC) -Wall -Wextra -Werror -g -I$(CURDIR)/include -o $@ $< $(LDFLAGS_C)

$(V41H_OUT)/host $(V41H_OUT)/jobinfo: $(V41H_OUT)/%: tests-c/v41host/%.c tests-c/check.h tests-c/v41host/putfence.h
	@mkdir -p $(dir $@)
	$(CC) -Wall -Wextra -Werror -g -I$(DIFF_REF_INC) -o $@ $< \
	  -L$(DIFF_REF_LIB) -Wl,-rpath,$(DIFF_REF_LIB) -lpmix -lpthread

.PHONY: v41host-check
v41host-check: lib $(V41H_OUT)/client
	@if [ ! -f $(DIFF_REF_INC)/pmix.h ] || [ ! -e $(V41H_DEB) ] || ! command -v mpirun >/dev/null; then \
	  echo "SKIP v41host-check: OpenPMIx 4.2.2 (libpmix-dev) or Open MPI (openmpi-bin) not installed"; exit 0; fi; \
	set -e; $(MAKE) --no-print-directory $(V41H_OUT)/host $(V41H_OUT)/jobinfo ompi-progs; \
	OURLIB=$(LIBDIR)/libpmix.so.2 DEBLIB=$$(readlink -f $(V41H_DEB)) MPI_BIN=$(OMPI_BIN) \
	  BIN=$(V41H_OUT) $(TIMEOUT) 300 bash tests-c/v41host/run.sh

CHECK_TARGETS += v41host-check
