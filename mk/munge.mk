# munge security in OpenPMIx's dialect (issue 16): tests-c/munge/run.sh.
#
#   make munge-check   in a private mount namespace with the test's own munged on the
#                      default socket (root and unshare needed, else skipped with a
#                      message): our client refuses a munge-only server when munged is
#                      down, pmixrun offers OpenPMIx children native (munged down) or
#                      native,munge (munged up); Debian's OpenPMIx 4.2.2 clients with
#                      PMIX_MCA_psec=munge, and by their own default, under pmixrun; our
#                      server refuses replayed, tampered, expired and another uid's
#                      credentials (the v41_server test binary's munge case); with the
#                      private munged stopped (SIGSTOP), a munge connect is refused with
#                      PMIX_ERR_TIMEOUT after PMIX_RS_MUNGE_TIMEOUT=2 s while a native one is
#                      served at once; our client under Debian's mpirun with
#                      PMIX_MCA_psec=munge (mpirun serving munge only). About 17 s.

# The Rust tests run in the dev profile: the binaries `make rust-check` (cargo test
# --workspace) already built, so `make check` compiles pmix-core's tests once, not
# a second time in release (minutes of CI on 2 cores).
.PHONY: munge-check
# (v41client.mk and v41server.mk, included after this file, build the two C programs.)
munge-check: lib $(BUILD)/tests/v41client/client
	@if ! command -v munged >/dev/null || ! command -v mpirun >/dev/null \
	  || [ ! -f $(DIFF_REF_INC)/pmix.h ]; then \
	  echo "SKIP munge-check: munge, openmpi-bin or libpmix-dev not installed"; exit 0; fi; \
	set -e; $(MAKE) --no-print-directory $(V41S_OUT)/mixed_openpmix; \
	bin=$$($(CARGO) test -p pmix-core --test v41_server --no-run \
	  --message-format=json 2>/dev/null | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -1); \
	OURS=$(LIBDIR)/libpmix.so.2 CLIENT=$(V41CLIENT_OUT)/client PMIXRUN=$(PMIXRUN) \
	  OPX=$(V41S_OUT)/mixed_openpmix V41TEST=$$bin $(TIMEOUT) 120 bash tests-c/munge/run.sh

CHECK_TARGETS += munge-check
