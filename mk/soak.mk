# Soak: hang and failure rates of many back-to-back jobs, ours and the hosts' side by side
# (bench/soak.py says what each row runs). Not part of make check: the full counts take
# hours on 2 cores.
#
#   make soak                    every row at its full count, normal then loaded phase
#   make soak SOAK_N=20          20 jobs per row (a short run)
#   make soak SOAK_ROWS="ompi-8-ours ompi-8-debian" SOAK_PHASES=loaded
#
# Hangs leave their gdb stacks and the job's output in SOAK_LOG (default build/soak/<time>);
# report.md there holds the table and the diagnoses.

SOAK_N      ?=
SOAK_ROWS   ?=
SOAK_PHASES ?=
SOAK_LOG    ?=

.PHONY: soak
soak: lib $(HELLO_BIN) $(OMPI_EXES)
	env $(if $(SOAK_N),SOAK_N=$(SOAK_N)) $(if $(SOAK_ROWS),SOAK_ROWS="$(SOAK_ROWS)") \
	    $(if $(SOAK_PHASES),SOAK_PHASES="$(SOAK_PHASES)") $(if $(SOAK_LOG),SOAK_LOG=$(SOAK_LOG)) \
	    python3 $(CURDIR)/bench/soak.py
