# Host-lock tests: a C host (tests-c/hostlock/hostlock.c) completing every upcall while
# holding a non-recursive lock that its release functions and callbacks also take; the
# library must never call the host back from inside the host's own call (DESIGN.md, "C
# hosts"). A hang prints every thread's stack.
#
#   make hostlock-check      build the host and run its inline and threaded modes

HOSTLOCK_BUILD := $(BUILD)/tests-c/hostlock

$(HOSTLOCK_BUILD)/hostlock: tests-c/hostlock/hostlock.c tests-c/check.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_C) -o $@ $< $(LDFLAGS_C)

.PHONY: hostlock-build hostlock-check
hostlock-build: lib $(HOSTLOCK_BUILD)/hostlock

hostlock-check: hostlock-build
	HOSTLOCK=$(HOSTLOCK_BUILD)/hostlock TIMEOUT="$(TIMEOUT)" bash tests-c/hostlock/run.sh

CHECK_TARGETS += hostlock-check
