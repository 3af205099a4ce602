# ABI checks: generated header fragments, the headers themselves, layouts and constants
# against OpenPMIx 4.2.2 (Debian's headers), the exported symbols, and use of an installed
# copy through pkg-config. `make abi` runs them all; each is also a target of its own.
#
#   make header            regenerate include/pmix_{status,attrs}[_deprecated]_gen.h
#   make abi-header-check  the committed fragments equal what the tables generate
#   make abi-headers       every public header compiles alone (C99/C11/C++11, -pedantic)
#   make abi-check         layout/constant/prototype diff against Debian's 4.2.2 headers
#                          (allow-list: tests-c/abi/allow-debian.txt), and pmix-sys's
#                          constants and #[repr(C)] layouts against our headers
#   make abi-stubs-check   capi/src/stubs.rs is what tools/gen-stubs.py generates
#   make abi-exports       nm/readelf checks of build/lib/libpmix.so.2
#   make abi-install       make install into a temp dir, build + run a program via pkg-config

PYTHON          ?= python3
ABI_OUT         := $(BUILD)/abi
ABI_REF_INC     ?= /usr/lib/x86_64-linux-gnu/pmix2/include
ABI_SIGS        := tests-c/abi/api-master-signatures.txt
GEN_HEADER      := $(CARGO) run -q -p pmix-sys --bin gen-header --
ABI_FRAGMENTS   := pmix_status_gen.h pmix_status_deprecated_gen.h pmix_attrs_gen.h pmix_attrs_deprecated_gen.h
ABI_HEADERS     := pmix.h pmix_common.h pmix_server.h pmix_tool.h pmix_deprecated.h pmix_version.h

.PHONY: header abi abi-header-check abi-headers abi-check abi-stubs-check abi-exports \
        abi-install

header:
	$(GEN_HEADER) include

abi: abi-header-check abi-headers abi-check abi-stubs-check abi-exports abi-install

abi-header-check:
	@tmp=$$(mktemp -d) && trap 'rm -rf $$tmp' EXIT && $(GEN_HEADER) $$tmp && \
	for f in $(ABI_FRAGMENTS); do \
	  diff -u include/$$f $$tmp/$$f || { echo "FAIL include/$$f differs from the tables: run make header"; exit 1; }; \
	done; echo "ok   generated header fragments match pmix-sys tables"

abi-headers:
	@for h in $(ABI_HEADERS); do \
	  for std in c99 c11; do \
	    printf '#include <%s>\nint abi_nonempty;\n' $$h | $(CC) -std=$$std -pedantic -Wall -Wextra -Werror -fsyntax-only -Iinclude -x c - \
	      || { echo "FAIL $$h does not compile alone ($$std)"; exit 1; }; \
	  done; \
	  printf '#include <%s>\nint abi_nonempty;\n' $$h | $(CXX) -std=c++11 -pedantic -Wall -Wextra -Werror -fsyntax-only -Iinclude -x c++ - \
	    || { echo "FAIL $$h does not compile alone (C++11)"; exit 1; }; \
	done; echo "ok   every public header compiles alone (C99, C11, C++11)"

abi-check: abi-headers
	@mkdir -p $(ABI_OUT)
	@$(GEN_HEADER) --list > $(ABI_OUT)/rust-list.txt
	@$(GEN_HEADER) --layout > $(ABI_OUT)/rust-layout.txt
	$(PYTHON) tests-c/abi/abicheck.py --cc $(CC) --ours include --ref $(ABI_REF_INC) --ref-label debian \
	  --allow tests-c/abi/allow-debian.txt --out $(ABI_OUT)/debian --signatures $(ABI_SIGS) \
	  --rust-list $(ABI_OUT)/rust-list.txt --rust-layout $(ABI_OUT)/rust-layout.txt

abi-stubs-check:
	$(PYTHON) tools/gen-stubs.py --check
	@echo "ok   capi/src/stubs.rs is up to date"

abi-exports: lib
	$(PYTHON) tests-c/abi/exports.py --lib $(LIBDIR)/libpmix.so.2 --signatures $(ABI_SIGS)

abi-install: lib
	@tmp=$$(mktemp -d) && trap 'rm -rf $$tmp' EXIT && \
	$(MAKE) --no-print-directory install PREFIX=$$tmp > $$tmp/install.log 2>&1 \
	  || { cat $$tmp/install.log; echo "FAIL make install"; exit 1; }; \
	flags=$$(PKG_CONFIG_LIBDIR=$$tmp/lib/pkgconfig pkg-config --cflags --libs pmix) \
	  || { echo "FAIL pkg-config does not find the installed pmix.pc"; exit 1; }; \
	echo "pkg-config: $$flags"; \
	$(CC) -Wall -Wextra -Werror -Itests-c tests-c/abi/install_smoke.c $$flags -o $$tmp/smoke \
	  || { echo "FAIL building against the installed copy"; exit 1; }; \
	env -u LD_LIBRARY_PATH $(TIMEOUT) 20 $$tmp/smoke

# No target builds anything from OpenPMIx's own sources (headers, examples): the terms under
# which we read them allow facts only, not a recipe that builds them. Layouts are checked
# against Debian's installed 4.2.2 headers (abi-check); master's signatures are facts in
# tests-c/abi/api-master-signatures.txt.

# The C prototype of every export, as cbindgen reads it from capi's Rust signatures
# (tools/exports-h), compiled together with our headers: a signature that differs from
# its declaration is a "conflicting types" error; every exported symbol must be covered.
# The expansion shares `make lib`'s target directory, so only capi is expanded (0.7 s;
# its own directory compiled every dependency again: 149 s of make check); the next
# release build recompiles capi once (about 20 s).
# cbindgen in the dev profile: about a third of a release build's CPU (a clean make check
# builds it once); it parses the expanded capi in about a second either way.
EXPORTS_H_BIN := $(CURDIR)/target/tools/debug/exports-h
.PHONY: abi-prototypes
abi-prototypes: lib
	@mkdir -p $(ABI_OUT)
	$(CARGO) build -q --locked --manifest-path tools/exports-h/Cargo.toml --target-dir $(CURDIR)/target/tools
	RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR=$(CURDIR)/target $(EXPORTS_H_BIN) capi $(ABI_OUT)/exports.h
	@printf '#include <pmix.h>\n#include <pmix_server.h>\n#include <pmix_tool.h>\n#include <pmix_cuda.h>\n#include "exports.h"\nint abi_nonempty;\n' \
	  | $(CC) -std=c11 -Wall -Wextra -Werror -Wno-array-parameter -fsyntax-only -Iinclude -I$(ABI_OUT) -x c - \
	  || { echo "FAIL a Rust export's signature differs from its declaration in include/"; exit 1; }
	@nm -D --defined-only $(LIBDIR)/libpmix.so.2 | awk '$$3 ~ /^PMIx_/ {print $$3}' | sort > $(ABI_OUT)/exported.txt; \
	grep -oE '\bPMIx_[A-Za-z0-9_]+\(' $(ABI_OUT)/exports.h | tr -d '(' | sort -u > $(ABI_OUT)/prototyped.txt; \
	missing=$$(comm -23 $(ABI_OUT)/exported.txt $(ABI_OUT)/prototyped.txt); \
	[ -z "$$missing" ] || { echo "FAIL exported but not seen by cbindgen: $$missing"; exit 1; }; \
	echo "ok   $$(wc -l < $(ABI_OUT)/exported.txt) exports: Rust signatures agree with include/ (cbindgen)"

CHECK_TARGETS += abi-header-check abi-headers abi-check abi-stubs-check abi-exports abi-install \
                 abi-prototypes

# docs/STATUS.md's per-function table matches what capi/src implements.
.PHONY: status status-check
status:
	$(PYTHON) tools/gen-status.py
status-check:
	$(PYTHON) tools/gen-status.py --check
CHECK_TARGETS += status-check
