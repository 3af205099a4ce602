# Client calls relayed to host module slots (credentials, allocation, monitoring,
# session control): a C host (tests-c/hostops/hchost.c: NULL slots, 32-slot and 28-slot
# modules), pmixrun's credential service (tests-c/hostops/pmixrun_cred.c), the
# server's own monitors under pmixrun (tests-c/hostops/pmixrun_monitor.c); regex2
# and PMIx_Progress (tests-c/hostops/regex2.c); PMIx_server_setup_fork in children
# forked while other threads keep the server busy, as Slurm's plugin calls it
# (tests-c/hostops/forkchild.c).
#
#   make hostops-check      build and run them

HOSTOPS_BUILD := $(BUILD)/tests-c/hostops
HOSTOPS_SRCS  := $(wildcard tests-c/hostops/*.c)
HOSTOPS_BINS  := $(patsubst tests-c/hostops/%.c,$(HOSTOPS_BUILD)/%,$(HOSTOPS_SRCS))

$(HOSTOPS_BUILD)/%: tests-c/hostops/%.c tests-c/check.h tests-c/host.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_C) -o $@ $< $(LDFLAGS_C)

# $(call hostops_ranks,N,PROGRAM,WHAT): run PROGRAM under `pmixrun -n N`; every rank must
# pass all its checks.
define hostops_ranks
	@echo "== pmixrun -n $(1) $(2)"
	@$(TIMEOUT) 60 $(PMIXRUN) -n $(1) $(HOSTOPS_BUILD)/$(2) > $(HOSTOPS_BUILD)/$(2).txt 2>&1 || \
	    { cat $(HOSTOPS_BUILD)/$(2).txt; echo "FAIL $(2)"; exit 1; }
	@! grep -aq '^FAIL' $(HOSTOPS_BUILD)/$(2).txt && \
	    test "$$(grep -ac 'checks, 0 failed' $(HOSTOPS_BUILD)/$(2).txt)" -ge $(1) || \
	    { cat $(HOSTOPS_BUILD)/$(2).txt; echo "FAIL $(2): not every rank passed"; exit 1; }
	@echo "ok   $(2): $(3)"
endef

.PHONY: hostops-build hostops-check
hostops-build: lib $(HOSTOPS_BINS)

hostops-check: hostops-build
	@$(TIMEOUT) 20 $(HOSTOPS_BUILD)/regex2 > $(HOSTOPS_BUILD)/regex2.txt 2>&1 || \
	    { cat $(HOSTOPS_BUILD)/regex2.txt; echo "FAIL regex2"; exit 1; }
	@grep -ah 'checks, 0 failed' $(HOSTOPS_BUILD)/regex2.txt
	@$(TIMEOUT) 60 $(HOSTOPS_BUILD)/forkchild > $(HOSTOPS_BUILD)/forkchild.txt 2>&1 || \
	    { cat $(HOSTOPS_BUILD)/forkchild.txt; echo "FAIL forkchild"; exit 1; }
	@grep -ah 'checks, 0 failed' $(HOSTOPS_BUILD)/forkchild.txt
	@set -e; for m in null host v4; do \
	    echo "== hchost $$m"; \
	    $(TIMEOUT) 60 $(HOSTOPS_BUILD)/hchost $$m > $(HOSTOPS_BUILD)/hchost-$$m.txt 2>&1 || \
	        { cat $(HOSTOPS_BUILD)/hchost-$$m.txt; echo "FAIL hchost $$m"; exit 1; }; \
	    grep -ah 'checks, 0 failed' $(HOSTOPS_BUILD)/hchost-$$m.txt; \
	done
	$(call hostops_ranks,3,pmixrun_cred,credentials issued and checked)
	$(call hostops_ranks,2,pmixrun_monitor,usage; periodic updates; heartbeat watches; job properties)

CHECK_TARGETS += hostops-check

# The host-slot adapter (lending and releasing arguments, credential and result copies)
# under valgrind, clients too: definite leaks and memory errors fail.
HOSTOPS_VALGRIND ?= valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite -q --trace-children=yes

.PHONY: hostops-valgrind
hostops-valgrind: hostops-build
	@set -e; for m in null host v4; do \
	    echo "== valgrind hchost $$m"; \
	    $(TIMEOUT) 300 $(HOSTOPS_VALGRIND) $(HOSTOPS_BUILD)/hchost $$m > $(HOSTOPS_BUILD)/vg-$$m.txt 2>&1 || \
	        { cat $(HOSTOPS_BUILD)/vg-$$m.txt; echo "FAIL valgrind hchost $$m"; exit 1; }; \
	done

CHECK_TARGETS += hostops-valgrind
