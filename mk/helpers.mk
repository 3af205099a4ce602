# C tests of the helper API (tests-c/helpers): one program per scenario, each run
# directly (helpers-check) and under valgrind (helpers-valgrind, definite leaks and
# memory errors fail). HELPERS_INCLUDE selects the headers the tests compile against.

HELPERS_INCLUDE ?= $(CURDIR)/include
HELPERS_SRCS    := $(wildcard tests-c/helpers/*.c)
HELPERS_BINS    := $(patsubst tests-c/helpers/%.c,$(BUILD)/tests/helpers/%,$(HELPERS_SRCS))
HELPERS_VALGRIND ?= valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite -q

$(BUILD)/tests/helpers/%: tests-c/helpers/%.c tests-c/check.h | lib
	@mkdir -p $(dir $@)
	$(CC) -I$(HELPERS_INCLUDE) $(CFLAGS_C) -o $@ $< $(LDFLAGS_C)

.PHONY: helpers-check helpers-valgrind
helpers-check: $(HELPERS_BINS)
	@set -e; for t in $(HELPERS_BINS); do \
	    echo "== $$t"; $(TIMEOUT) 60 $$t > $$t.log || { cat $$t.log; exit 1; }; tail -1 $$t.log; \
	done

helpers-valgrind: $(HELPERS_BINS)
	@set -e; for t in $(HELPERS_BINS); do \
	    echo "== valgrind $$t"; $(TIMEOUT) 600 $(HELPERS_VALGRIND) $$t > /dev/null; \
	done

CHECK_TARGETS += helpers-check helpers-valgrind
