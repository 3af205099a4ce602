# pmix-rs: make | make check | make install PREFIX=... | make run | make bench | make header
#
# Cargo does the building; this file only arranges the outputs the way C users expect
# (build/lib/libpmix.so -> libpmix.so.2, build/bin/pmixrun and pmix_info, include/) and
# runs the tests.
# Each test area lives in mk/<area>.mk and appends its targets to CHECK_TARGETS.

PREFIX   ?= /usr/local
CARGO    ?= cargo
PROFILE  ?= release
BUILD    := $(CURDIR)/build
LIBDIR   := $(BUILD)/lib
BINDIR   := $(BUILD)/bin
TARGET   := $(CURDIR)/target/$(PROFILE)
CC       ?= cc
CFLAGS_C := -Wall -Wextra -Werror -g -I$(CURDIR)/include -I$(CURDIR)/tests-c
LDFLAGS_C:= -L$(LIBDIR) -Wl,-rpath,$(LIBDIR) -lpmix -lpthread
PMIXRUN  := $(BINDIR)/pmixrun
# A hung test is a failure, never a stuck CI.
TIMEOUT  := timeout -s KILL

CHECK_TARGETS :=

.PHONY: all lib check run install header bench clean rust-check
all: lib

# Each output is copied to a temporary name and renamed over the old one: a copy in place
# (cp -f) rewrites the file that running processes have mapped, and a daemon that has
# libpmix.so.2 preloaded (slurmd, orted) then dies of SIGBUS/SIGSEGV (docs/ROBUSTNESS.md F9).
INSTALL_AS = cp -f $(1) $(2).tmp$$$$ && mv -f $(2).tmp$$$$ $(2)

# What `make lib` builds; a test area that needs an example binary builds it with these
# (`$(CARGO) build --$(PROFILE) $(CARGO_LIB_SET) --example NAME`), so that cargo plans the
# same units as make lib and compiles only the example (alone, `-p pmix-core --example`
# rebuilt pmix-core in another LTO mode: minutes of CPU in a clean make check).
CARGO_LIB_SET := --workspace --lib --bins

lib:
	$(CARGO) build --$(PROFILE) $(CARGO_LIB_SET)
	@mkdir -p $(LIBDIR) $(BINDIR)
	@$(call INSTALL_AS,$(TARGET)/libpmix.so,$(LIBDIR)/libpmix.so.2)
	@ln -sf libpmix.so.2 $(LIBDIR)/libpmix.so
	@$(call INSTALL_AS,$(TARGET)/pmixrun,$(BINDIR)/pmixrun)
	@$(call INSTALL_AS,$(TARGET)/pmix_info,$(BINDIR)/pmix_info)

include $(wildcard mk/*.mk)

# The C test programs of every area are compiled in parallel (JOBS at a time, default the
# machine's cores) before the tests run one after another: compiling them is a large part
# of a clean `make check` and needs no order. (The areas whose programs need an optional
# compiler, mpicc or a venv, build theirs in their own targets. Under `make -jN` the outer
# jobserver is used instead.)
JOBS         ?= $(shell nproc 2>/dev/null || echo 2)
CHECK_BUILDS := asan-build chaos-build cuda-build dynamic-build faults-build hangdump-build \
                hostile-build hostlock-build hostops-build multinode-build peers-build \
                rules-build runtime-build $(ENGINE_BINS) $(HELPERS_BINS) $(IOF_BINS) \
                $(TOOL_BINS) $(MISUSE_BINS)

.PHONY: check-builds
check-builds: lib
	$(MAKE) --no-print-directory $(if $(findstring jobserver,$(MAKEFLAGS)),,-j$(JOBS)) $(CHECK_BUILDS)

rust-check:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	$(CARGO) test --workspace --locked
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --workspace --no-deps --locked

check: lib rust-check check-builds $(CHECK_TARGETS)
	@echo "make check: all passed"

install: lib install-python
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 0755 $(LIBDIR)/libpmix.so.2 $(DESTDIR)$(PREFIX)/lib/libpmix.so.2
	ln -sf libpmix.so.2 $(DESTDIR)$(PREFIX)/lib/libpmix.so
	install -m 0644 include/*.h $(DESTDIR)$(PREFIX)/include/
	install -m 0755 $(BINDIR)/pmixrun $(DESTDIR)$(PREFIX)/bin/pmixrun
	install -m 0755 $(BINDIR)/pmix_info $(DESTDIR)$(PREFIX)/bin/pmix_info
	install -d $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0644 docs/man/pmixrun.1 docs/man/pmix_info.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	sed -e 's|@PREFIX@|$(PREFIX)|g' pmix.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/pmix.pc

clean:
	$(CARGO) clean
	rm -rf $(BUILD)
