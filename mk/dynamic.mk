# Dynamic-operation tests: C programs under tests-c/dynamic/ (connect, disconnect, spawn,
# publish/lookup, events, queries, groups) run under pmixrun; tests-c/dynamic/run.sh holds
# the table of cases.
#
#   make dynamic-check      build the scenarios and run them all

DYN_BUILD := $(BUILD)/tests-c/dynamic
DYN_SRCS  := $(wildcard tests-c/dynamic/*.c)
DYN_BINS  := $(patsubst tests-c/dynamic/%.c,$(DYN_BUILD)/%,$(DYN_SRCS))

$(DYN_BUILD)/%: tests-c/dynamic/%.c tests-c/dynamic/dyn.h tests-c/check.h tests-c/host.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_C) -o $@ $< $(LDFLAGS_C)

.PHONY: dynamic-build dynamic-check
dynamic-build: lib $(DYN_BINS)

dynamic-check: dynamic-build
	PMIXRUN=$(PMIXRUN) DYN=$(DYN_BUILD) TIMEOUT="$(TIMEOUT)" bash tests-c/dynamic/run.sh

CHECK_TARGETS += dynamic-check

# The C host adapter under valgrind (definite leaks and memory errors fail), clients too.
DYN_VALGRIND ?= valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite -q --trace-children=yes

.PHONY: dynamic-valgrind
dynamic-valgrind: dynamic-build
	@set -e; for s in null host; do \
	    echo "== valgrind chost $$s"; \
	    $(TIMEOUT) 300 $(DYN_VALGRIND) $(DYN_BUILD)/chost $$s > $(DYN_BUILD)/vg.txt 2>&1 || \
	        { cat $(DYN_BUILD)/vg.txt; echo "FAIL valgrind chost $$s"; exit 1; }; \
	done

CHECK_TARGETS += dynamic-valgrind
