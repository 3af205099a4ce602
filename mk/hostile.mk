# Hostile clients, resources and socket hygiene against a live server (issue 10, parts
# 2, 5 and 6; docs/ROBUSTNESS.md lists each scenario and its result):
#
#   make hostile-check      tests-c/hostile/run.sh: hostile_peer (pmix-core/examples) attacks
#                           pmixrun's server over its real socket (garbage, truncated and
#                           oversized frames, server-only messages, false identities, wrong
#                           uid via setpriv when root, floods) while well-behaved ranks work;
#                           1,000 Init/Finalize cycles (pmixrun and singleton); 1,000
#                           short-lived ranks (pmixrun -n 1000 and 10 waves of 100 under a C
#                           host); rendezvous permissions (also under umask 000), stale
#                           directories of a SIGKILLed pmixrun, no network sockets
#   make hostile-valgrind   the C host with its clients under valgrind (definite leaks and
#                           memory errors fail)

HOSTILE_OUT      := $(BUILD)/tests/hostile
HOSTILE_BINS     := $(HOSTILE_OUT)/rank $(HOSTILE_OUT)/host $(HOSTILE_OUT)/parked $(HOSTILE_OUT)/sealed
HOSTILE_PEER     := $(TARGET)/examples/hostile_peer
HOSTILE_VALGRIND ?= valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite -q --trace-children=yes

$(HOSTILE_OUT)/%: tests-c/hostile/%.c tests-c/hostile/procfs.h tests-c/check.h | lib
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_C) -o $@ $< $(LDFLAGS_C)

.PHONY: hostile-build hostile-check hostile-valgrind
hostile-build: lib $(HOSTILE_BINS)
	$(CARGO) build --$(PROFILE) $(CARGO_LIB_SET) --example hostile_peer

hostile-check: hostile-build
	PMIXRUN=$(PMIXRUN) BIN=$(HOSTILE_OUT) PEER=$(HOSTILE_PEER) TIMEOUT="$(TIMEOUT)" \
	  bash tests-c/hostile/run.sh

hostile-valgrind: hostile-build
	@echo "== valgrind host waves 2 4"; \
	$(TIMEOUT) 300 $(HOSTILE_VALGRIND) $(HOSTILE_OUT)/host waves 2 4 > $(HOSTILE_OUT)/vg.txt 2>&1 \
	  || { cat $(HOSTILE_OUT)/vg.txt; echo "FAIL valgrind host waves"; exit 1; }; tail -1 $(HOSTILE_OUT)/vg.txt

CHECK_TARGETS += hostile-check hostile-valgrind
