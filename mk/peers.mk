# Peers: behaviour that OpenPMIx master's own example programs rely on (issue 18: group
# invitations, PMIX_GROUP_INFO, event handler ordering, spawn attribute checks, a Get that
# waits for a late peer, key deletion, ABI queries before init, the event a failing rank
# raises, process sets for late handlers), tested
# with programs of our own under tests-peers/ (tests-peers/run.sh holds the cases).
# docs/STATUS.md ("OpenPMIx's examples") has the per-example results.
#
#   make peers-check     build the programs and run them under pmixrun

PEERS_BUILD := $(BUILD)/tests-peers
PEERS_SRCS  := $(wildcard tests-peers/*.c)
PEERS_BINS  := $(patsubst tests-peers/%.c,$(PEERS_BUILD)/%,$(PEERS_SRCS))

$(PEERS_BUILD)/%: tests-peers/%.c tests-c/dynamic/dyn.h tests-c/check.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_C) -o $@ $< $(LDFLAGS_C)

.PHONY: peers-build peers-check
peers-build: lib $(PEERS_BINS)

peers-check: peers-build
	PMIXRUN=$(PMIXRUN) PEERS=$(PEERS_BUILD) bash tests-peers/run.sh

CHECK_TARGETS += peers-check
