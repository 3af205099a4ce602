# Rule tests of the PMIx_Get / PMIx_Put / PMIx_Commit / PMIx_Fence pages (issue 4):
# one C program per rule group under tests-c/rules/, each check named after its rule.
# tests-c/rules/run.sh holds the table of cases; every case runs under $(TIMEOUT) and,
# except the singleton and the C host (which is its own server), under $(PMIXRUN).
# docs/STATUS.md ("PMIx_Get / Put / Commit / Fence rules") maps each rule to its test.
#
#   make rules-check    build the programs and run every case

RULES_BUILD := $(BUILD)/tests-c/rules
RULES_SRCS  := $(wildcard tests-c/rules/*.c)
RULES_BINS  := $(patsubst tests-c/rules/%.c,$(RULES_BUILD)/%,$(RULES_SRCS))

$(RULES_BUILD)/%: tests-c/rules/%.c tests-c/rules/rules.h tests-c/check.h | lib
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_C) -o $@ $< $(LDFLAGS_C)

.PHONY: rules-build rules-check
rules-build: lib $(RULES_BINS)

rules-check: rules-build
	PMIXRUN=$(PMIXRUN) RB=$(RULES_BUILD) TIMEOUT="$(TIMEOUT)" bash tests-c/rules/run.sh $(RULES_ONLY)

CHECK_TARGETS += rules-check
