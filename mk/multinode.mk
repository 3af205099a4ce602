# Multi-node tests: C programs under tests-c/multinode/ run by pmixrun --nodes K (2 to 4
# simulated nodes, up to 16 ranks); tests-c/multinode/run.sh holds the table of cases.
# Some runtime scenarios (tests-c/runtime/) and peers programs (tests-peers/: invitations,
# the fault event, process sets) are run across nodes too.
#
#   make multinode-check        build the scenarios and run them all

MN_BUILD := $(BUILD)/tests-c/multinode
MN_SRCS  := $(filter-out tests-c/multinode/mn.h,$(wildcard tests-c/multinode/*.c))
MN_BINS  := $(patsubst tests-c/multinode/%.c,$(MN_BUILD)/%,$(MN_SRCS))

$(MN_BUILD)/%: tests-c/multinode/%.c tests-c/multinode/mn.h tests-c/multinode/seen.h tests-c/check.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_C) -o $@ $< $(LDFLAGS_C)

.PHONY: multinode-build multinode-check
multinode-build: lib $(MN_BINS) runtime-build peers-build

multinode-check: multinode-build
	PMIXRUN=$(PMIXRUN) MN=$(MN_BUILD) RT=$(RT_BUILD) HELLO=$(HELLO_BIN) PEERS=$(PEERS_BUILD) \
	  TIMEOUT="$(TIMEOUT)" $(TIMEOUT) 300 bash tests-c/multinode/run.sh

CHECK_TARGETS += multinode-check
