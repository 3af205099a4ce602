# OpenPMIx's wire protocol (issue 16), the sans-I/O dialect in pmix-core/src/codec/v41/wire:
#
#   make v41wire-check   the unit tests (every message of the 4.2.2 captures decodes with
#                        no leftover bytes and re-encodes byte for byte; refusals of
#                        versions, bfrops, gds and security we do not implement; malformed
#                        frames), then the LIVE test: pmix-core/examples/v41_client_probe
#                        run as every rank of Debian's mpirun (Open MPI 4.1.4, embedded
#                        OpenPMIx 4.2.2 server, nothing preloaded) at -np 2 and -np 4:
#                        handshake, job info, Put+Commit, collecting fence, Get of the next
#                        rank's key, Finalize; each rank must print PASS. Skipped with a
#                        message when mpirun is not installed. Then the server role, live:
#                        tests-c/v41wire/client.c built against Debian's libpmix, started
#                        and served by pmix-core/examples/v41_server_probe (handshake with
#                        credential check, hash job info, Get, fence, Finalize). Skipped
#                        with a message when libpmix-dev is not installed.

V41WIRE_PROBE := $(TARGET)/examples/v41_client_probe
V41WIRE_OUT   := $(BUILD)/tests/v41wire
V41WIRE_SRV   := $(TARGET)/examples/v41_server_probe

$(V41WIRE_OUT)/client: tests-c/v41wire/client.c
	@mkdir -p $(dir $@)
	$(CC) -Wall -Wextra -Werror -g -I$(DIFF_REF_INC) -o $@ $< \
	  -L$(DIFF_REF_LIB) -Wl,-rpath,$(DIFF_REF_LIB) -lpmix

# The Rust tests run in the dev profile: the binaries `make rust-check` (cargo test
# --workspace) already built, so `make check` compiles pmix-core's tests once, not
# a second time in release (minutes of CI on 2 cores).
.PHONY: v41wire-check
v41wire-check:
	$(TIMEOUT) 900 $(CARGO) test -p pmix-core --lib codec::v41::wire -q
	$(CARGO) build --$(PROFILE) $(CARGO_LIB_SET) --example v41_client_probe --example v41_server_probe
	@if ! command -v mpirun >/dev/null; then \
	  echo "SKIP v41wire-check live: mpirun (openmpi-bin) not installed"; exit 0; fi; \
	set -e; mkdir -p $(V41WIRE_OUT); for np in 2 4; do \
	  echo "== mpirun -np $$np v41_client_probe"; \
	  env -u LD_PRELOAD $(TIMEOUT) 120 mpirun --allow-run-as-root --oversubscribe -np $$np \
	    $(V41WIRE_PROBE) > $(V41WIRE_OUT)/np$$np.txt 2>&1 \
	    || { cat $(V41WIRE_OUT)/np$$np.txt; echo "FAIL v41wire-check: mpirun -np $$np"; exit 1; }; \
	  cat $(V41WIRE_OUT)/np$$np.txt; \
	  n=$$(grep -c '^PASS v41 wire' $(V41WIRE_OUT)/np$$np.txt || true); \
	  [ "$$n" = "$$np" ] || { echo "FAIL v41wire-check: $$n of $$np ranks passed"; exit 1; }; \
	done
	@if [ ! -f $(DIFF_REF_INC)/pmix.h ] || [ ! -e $(DIFF_REF_LIB)/libpmix.so ]; then \
	  echo "SKIP v41wire-check server role: OpenPMIx 4.2.2 (libpmix-dev) not installed"; exit 0; fi; \
	set -e; $(MAKE) --no-print-directory $(V41WIRE_OUT)/client; \
	echo "== v41_server_probe serving Debian's libpmix client"; \
	$(TIMEOUT) 60 $(V41WIRE_SRV) $(V41WIRE_OUT)/client > $(V41WIRE_OUT)/server.txt 2>&1 \
	  || { cat $(V41WIRE_OUT)/server.txt; echo "FAIL v41wire-check: server role"; exit 1; }; \
	cat $(V41WIRE_OUT)/server.txt; \
	grep -q '^PASS v41 client' $(V41WIRE_OUT)/server.txt \
	  || { echo "FAIL v41wire-check: the client did not print PASS"; exit 1; }

CHECK_TARGETS += v41wire-check
