# Chaos test: tests-c/chaos/run.sh SIGKILLs or SIGSTOPs (then SIGCONTs) random ranks and
# node daemons, and SIGKILLs pmixrun itself, while every rank loops over fences, Gets,
# connects and spawns (tests-c/chaos/chaosloop.c), under pmixrun -n N and --nodes 2/3.
# Every job must end within CHAOS_BOUND s with a clear error (or succeed, for a resumed
# process), and leave no process, socket, scratch directory or segment file behind.
#
#   make chaos-check                        CHAOS_ROUNDS (14) seeded rounds, ~1-2 min
#   make chaos-check CHAOS_SEED=123         replay a run (the seed is printed)

CHAOS_BUILD  := $(BUILD)/tests-c/chaos
CHAOS_ROUNDS ?= 14
CHAOS_SEED   ?=

$(CHAOS_BUILD)/chaosloop: tests-c/chaos/chaosloop.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_C) -o $@ $< $(LDFLAGS_C)

.PHONY: chaos-build chaos-check
chaos-build: lib $(CHAOS_BUILD)/chaosloop

chaos-check: chaos-build
	PMIXRUN=$(PMIXRUN) CHAOS=$(CHAOS_BUILD) CHAOS_ROUNDS=$(CHAOS_ROUNDS) \
	    $(if $(CHAOS_SEED),CHAOS_SEED=$(CHAOS_SEED)) $(TIMEOUT) 300 bash tests-c/chaos/run.sh

CHECK_TARGETS += chaos-check
