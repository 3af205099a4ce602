# The tool API (PMIx_tool_*): C programs under tests-c/tool/. tool_job runs under pmixrun
# and starts tool_attach, a tool that attaches to the job's server; tool_host is a C host
# on the server API that forks tools of itself; tool_noserver runs alone with an empty
# tmpdir. Every case runs under a timeout.
#
#   make tool-check      build and run every case
#   make tool-valgrind   the C host cases under valgrind (tools too)

TOOL_BUILD := $(BUILD)/tests-c/tool
TOOL_BINS  := $(TOOL_BUILD)/tool_job $(TOOL_BUILD)/tool_attach $(TOOL_BUILD)/tool_noserver \
              $(TOOL_BUILD)/tool_host

$(TOOL_BUILD)/%: tests-c/tool/%.c tests-c/check.h | lib
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_C) -o $@ $< $(LDFLAGS_C)

TOOL_CASES := "$(PMIXRUN) --timeout 100 -n 2 $(TOOL_BUILD)/tool_job pid $(TOOL_BUILD)/tool_attach" \
              "$(PMIXRUN) --timeout 100 -n 2 $(TOOL_BUILD)/tool_job uri $(TOOL_BUILD)/tool_attach" \
              "$(PMIXRUN) --timeout 100 --no-tools -n 2 $(TOOL_BUILD)/tool_job refused $(TOOL_BUILD)/tool_attach" \
              "$(TOOL_BUILD)/tool_host slot" "$(TOOL_BUILD)/tool_host null" "$(TOOL_BUILD)/tool_host off" \
              "env -u PMIX_RS_SERVER_URI -u PMIX_SERVER_URI41 -u PMIX_SERVER_URI4 -u PMIX_SERVER_URI3 -u PMIX_SERVER_URI21 -u PMIX_SERVER_URI2 -u PMIX_NAMESPACE -u PMIX_RANK PMIX_SERVER_TMPDIR=$(TOOL_BUILD)/empty PMIX_SYSTEM_TMPDIR=$(TOOL_BUILD)/empty $(TOOL_BUILD)/tool_noserver"

.PHONY: tool-check
tool-check: lib $(TOOL_BINS)
	@mkdir -p $(TOOL_BUILD)/empty
	@set -e; for c in $(TOOL_CASES); do \
	    echo "== $$c"; $(TIMEOUT) 120 $$c > $(TOOL_BUILD)/log.txt 2>&1 || \
	        { cat $(TOOL_BUILD)/log.txt; echo "FAIL $$c"; exit 1; }; \
	    if grep -q '^FAIL' $(TOOL_BUILD)/log.txt; then cat $(TOOL_BUILD)/log.txt; echo "FAIL $$c"; exit 1; fi; \
	    grep -E 'checks, 0 failed' $(TOOL_BUILD)/log.txt | tail -2; \
	done

CHECK_TARGETS += tool-check

TOOL_VALGRIND ?= valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite -q --trace-children=yes

# The C host cases under valgrind (the tools it forks too): the tool_connected slot's
# lent infos and callback, the rendezvous files, the tool side's init/finalize.
.PHONY: tool-valgrind
tool-valgrind: lib $(TOOL_BINS)
	@set -e; for s in slot null; do \
	    echo "== valgrind tool_host $$s"; \
	    $(TIMEOUT) 300 $(TOOL_VALGRIND) $(TOOL_BUILD)/tool_host $$s > $(TOOL_BUILD)/vg.txt 2>&1 || \
	        { cat $(TOOL_BUILD)/vg.txt; echo "FAIL valgrind tool_host $$s"; exit 1; }; \
	done

CHECK_TARGETS += tool-valgrind
