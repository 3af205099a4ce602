# Fault tests: C programs under tests-c/faults/ (ranks SIGKILLed in the middle of a
# fence, connect or Get, under pmixrun --enable-recovery, on one and two simulated nodes;
# a client leaving mid-frame; a C host whose callbacks never come). tests-c/faults/run.sh
# holds the table of cases.
#
#   make faults-check                  build the programs and run every case once
#   make faults-check FAULTS_REPEAT=10 run every case ten times (a flakiness check)

FAULTS_BUILD := $(BUILD)/tests-c/faults
FAULTS_SRCS  := $(wildcard tests-c/faults/*.c)
FAULTS_BINS  := $(patsubst tests-c/faults/%.c,$(FAULTS_BUILD)/%,$(FAULTS_SRCS))
FAULTS_REPEAT ?= 1

$(FAULTS_BUILD)/%: tests-c/faults/%.c tests-c/dynamic/dyn.h tests-c/check.h tests-c/host.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_C) -o $@ $< $(LDFLAGS_C)

.PHONY: faults-build faults-check
faults-build: lib $(FAULTS_BINS)

faults-check: faults-build
	PMIXRUN=$(PMIXRUN) FAULTS=$(FAULTS_BUILD) TIMEOUT="$(TIMEOUT)" FAULTS_REPEAT=$(FAULTS_REPEAT) \
	    bash tests-c/faults/run.sh

CHECK_TARGETS += faults-check
