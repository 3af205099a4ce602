# C tests of the runtime without pmixrun (tests-c/engine): a small C host on the server
# API that forks clients of itself, and a singleton client. engine-check runs each
# scenario under a timeout; a hang is a failure.

ENGINE_BINS := $(BUILD)/tests/engine/simphost $(BUILD)/tests/engine/singleton \
               $(BUILD)/tests/engine/multinode

$(BUILD)/tests/engine/%: tests-c/engine/%.c tests-c/check.h | lib
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_C) -o $@ $< $(LDFLAGS_C)

.PHONY: engine-check
engine-check: $(ENGINE_BINS)
	@set -e; b=$(BUILD)/tests/engine; \
	for s in "singleton" "simphost basic 4" "simphost basic 2" "simphost lost 2" "simphost abort 2" \
	         "multinode fence" "multinode dmodex"; do \
	    echo "== $$s"; $(TIMEOUT) 60 $$b/$$s > $$b/log.txt 2>&1 || { cat $$b/log.txt; echo "FAIL $$s"; exit 1; }; \
	    tail -1 $$b/log.txt; \
	done

CHECK_TARGETS += engine-check

# The same scenarios under valgrind (definite leaks and memory errors fail), clients too.
# multinode is the multi-node host pattern of Open MPI's daemons (the host owns and frees
# the fence blob, completes upcalls from its own threads, serves dmodex requests).
ENGINE_VALGRIND ?= valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite -q --trace-children=yes

.PHONY: engine-valgrind
engine-valgrind: $(ENGINE_BINS)
	@set -e; b=$(BUILD)/tests/engine; \
	for s in "singleton" "simphost basic 2" "multinode fence" "multinode dmodex"; do \
	    echo "== valgrind $$s"; $(TIMEOUT) 300 $(ENGINE_VALGRIND) $$b/$$s > $$b/vg.txt 2>&1 || { cat $$b/vg.txt; echo "FAIL valgrind $$s"; exit 1; }; \
	done

CHECK_TARGETS += engine-valgrind
