# pmix_info, the man pages and the environment-parameter table (tests-c/info/).
# info_check.py runs pmix_info (text, --json, a parameter set in its environment, usage
# errors), compares `pmix_info --attrs --json` with what a client under pmixrun gets from
# PMIx_Query_info(PMIX_QUERY_ATTRIBUTE_SUPPORT) (tests-c/info/attr_query.c), checks that
# --help and the man page of pmixrun and of pmix_info list the same options, and that
# `make install DESTDIR=... PREFIX=/usr` puts the programs and man pages in place.
#
#   make info-check

INFO_BUILD := $(BUILD)/tests-c/info

$(INFO_BUILD)/attr_query: tests-c/info/attr_query.c | lib
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_C) -o $@ $< $(LDFLAGS_C)

.PHONY: info-check
info-check: lib $(INFO_BUILD)/attr_query
	@rm -rf $(INFO_BUILD)/root && mkdir -p $(INFO_BUILD)/root
	@$(MAKE) --no-print-directory install DESTDIR=$(INFO_BUILD)/root PREFIX=/usr \
	    > $(INFO_BUILD)/install.log 2>&1 || { cat $(INFO_BUILD)/install.log; echo "FAIL make install"; exit 1; }
	$(TIMEOUT) 600 python3 tests-c/info/info_check.py $(BINDIR) $(LIBDIR)/libpmix.so.2 \
	    $(INFO_BUILD)/attr_query docs/man $(INFO_BUILD)/root

CHECK_TARGETS += info-check
