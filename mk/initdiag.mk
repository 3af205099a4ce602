# Init diagnostics: PMIx_Init / PMIx_tool_init tell once on stderr (without PMIX_DEBUG)
# why they could not reach or talk to their server; a successful init says nothing.
# tests-c/initdiag/run.sh holds the cases.
#
#   make initdiag-check

INITDIAG_BUILD := $(BUILD)/tests-c/initdiag

$(INITDIAG_BUILD)/initdiag: tests-c/initdiag/initdiag.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_C) -o $@ $< $(LDFLAGS_C)

.PHONY: initdiag-check
initdiag-check: lib $(INITDIAG_BUILD)/initdiag
	INITDIAG=$(INITDIAG_BUILD)/initdiag PMIXRUN=$(PMIXRUN) TIMEOUT="$(TIMEOUT)" \
	    bash tests-c/initdiag/run.sh

CHECK_TARGETS += initdiag-check
