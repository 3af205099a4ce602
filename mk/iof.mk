# I/O forwarding (PMIx_IOF_pull/deregister/push, PMIx_server_IOF_deliver): C programs under
# tests-c/iof/. iof_peers runs under pmixrun (a rank pulls its peers' output); iof_host is a
# C host on the server API that forks a client of itself. Every case runs under a timeout.
#
#   make iof-check       build and run every case
#   make iof-valgrind    the C host cases under valgrind (clients too)

IOF_BUILD := $(BUILD)/tests-c/iof
IOF_BINS  := $(IOF_BUILD)/iof_peers $(IOF_BUILD)/iof_host

$(IOF_BUILD)/%: tests-c/iof/%.c tests-c/check.h | lib
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_C) -o $@ $< $(LDFLAGS_C)

IOF_CASES := "$(PMIXRUN) --timeout 50 -n 3 $(IOF_BUILD)/iof_peers pull" \
             "$(PMIXRUN) --timeout 50 -n 4 $(IOF_BUILD)/iof_peers explicit" \
             "$(PMIXRUN) --timeout 50 -n 3 $(IOF_BUILD)/iof_peers dereg" \
             "$(IOF_BUILD)/iof_host host" \
             "$(IOF_BUILD)/iof_host null"

.PHONY: iof-check iof-valgrind
iof-check: lib $(IOF_BINS)
	@set -e; for c in $(IOF_CASES); do \
	    echo "== $$c"; $(TIMEOUT) 60 $$c > $(IOF_BUILD)/log.txt 2>&1 || \
	        { cat $(IOF_BUILD)/log.txt; echo "FAIL $$c"; exit 1; }; \
	    if grep -q '^FAIL' $(IOF_BUILD)/log.txt; then cat $(IOF_BUILD)/log.txt; echo "FAIL $$c"; exit 1; fi; \
	    grep -E 'checks, 0 failed' $(IOF_BUILD)/log.txt | tail -1; \
	done

CHECK_TARGETS += iof-check

IOF_VALGRIND ?= valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite -q --trace-children=yes

iof-valgrind: lib $(IOF_BINS)
	@set -e; for s in host null; do \
	    echo "== valgrind iof_host $$s"; \
	    $(TIMEOUT) 300 $(IOF_VALGRIND) $(IOF_BUILD)/iof_host $$s > $(IOF_BUILD)/vg.txt 2>&1 || \
	        { cat $(IOF_BUILD)/vg.txt; echo "FAIL valgrind iof_host $$s"; exit 1; }; \
	done

CHECK_TARGETS += iof-valgrind
