# The test harness's hang report (tools/harness.sh, tests-c/hangdump/): jobs that hang on
# purpose (a fence one rank never enters, a Get of a key nobody puts) are run through the
# harness with a short limit; the report must show the stacks, the blocked PMIx call and
# the server's pending fence naming the missing rank (docs/ROBUSTNESS.md, "Reading a hang
# report").
#
#   make hangdump-check      build the program and run the meta-test

HANGDUMP_BUILD := $(BUILD)/tests-c/hangdump

$(HANGDUMP_BUILD)/hang: tests-c/hangdump/hang.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_C) -o $@ $< $(LDFLAGS_C)

.PHONY: hangdump-build hangdump-check
hangdump-build: lib $(HANGDUMP_BUILD)/hang

hangdump-check: hangdump-build
	PMIXRUN=$(PMIXRUN) HANG=$(HANGDUMP_BUILD)/hang $(TIMEOUT) 300 bash tests-c/hangdump/run.sh

CHECK_TARGETS += hangdump-check
