# Tools over OpenPMIx's wire, both directions (issue 16), and Debian's python3-pmix.
#
#   make v41tools-check   tests-c/v41tools/run.sh: OpenPMIx 4.2.2's own tools (Debian's
#                         libpmix-bin: pps, pattrs, pevent) and qtool built against
#                         Debian's libpmix attached to a pmixrun job (namespaces, proc
#                         table, job size, flat query answers, event registration);
#                         Debian's python3-pmix ranks under
#                         pmixrun (tests-py/debian/pypmix_rank.py, /usr/bin/python3)
#                         and as a tool doing what pquery does (pypmix_tool.py);
#                         qtool built against our library attached as a tool to the
#                         Open MPI 5 wheel's prterun (OpenPMIx 5.0.11 / PRRTE 3.0.14) and
#                         to tests-c/v41tools/opx_host.c, a host on Debian's OpenPMIx
#                         4.2.2 server library, each beside Debian's own tool doing the
#                         same (the reference). Each part is skipped with a message when
#                         what it needs is not installed. About 15 s.

V41T_OUT      := $(BUILD)/tests/v41tools
V41T_REF_INC  ?= /usr/lib/x86_64-linux-gnu/pmix2/include
V41T_REF_LIB  ?= /usr/lib/x86_64-linux-gnu/pmix2/lib
V41T_PRTERUN  ?= /opt/ompi5/bin/prterun

$(V41T_OUT)/qtool_ours: tests-c/v41tools/qtool.c tests-c/check.h | lib
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_C) -o $@ $< $(LDFLAGS_C)

$(V41T_OUT)/qtool_openpmix: tests-c/v41tools/qtool.c tests-c/check.h
	@mkdir -p $(@D)
	$(CC) -Wall -Wextra -Werror -g -I$(V41T_REF_INC) -o $@ $< \
	  -L$(V41T_REF_LIB) -Wl,-rpath,$(V41T_REF_LIB) -lpmix

$(V41T_OUT)/opx_host: tests-c/v41tools/opx_host.c
	@mkdir -p $(@D)
	$(CC) -Wall -Wextra -Werror -g -I$(V41T_REF_INC) -o $@ $< \
	  -L$(V41T_REF_LIB) -Wl,-rpath,$(V41T_REF_LIB) -lpmix

.PHONY: v41tools-check
v41tools-check: lib $(V41T_OUT)/qtool_ours
	@set -e; opx=; if [ -f $(V41T_REF_INC)/pmix.h ] && [ -e $(V41T_REF_LIB)/libpmix.so ]; then \
	  $(MAKE) --no-print-directory $(V41T_OUT)/qtool_openpmix $(V41T_OUT)/opx_host; opx=1; \
	else echo "SKIP v41tools-check Debian-built programs: libpmix-dev not installed"; fi; \
	PMIXRUN=$(PMIXRUN) OURS=$(V41T_OUT)/qtool_ours \
	  OPX=$${opx:+$(V41T_OUT)/qtool_openpmix} OPX_HOST=$${opx:+$(V41T_OUT)/opx_host} \
	  PRTERUN=$(V41T_PRTERUN) PYRANK=$(CURDIR)/tests-py/debian/pypmix_rank.py \
	  PYTOOL=$(CURDIR)/tests-py/debian/pypmix_tool.py \
	  $(TIMEOUT) 200 bash tests-c/v41tools/run.sh

CHECK_TARGETS += v41tools-check
