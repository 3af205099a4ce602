# Python bindings (python/, tests-py/).
#
#   make python-constants         regenerate python/pmix/_constants.py from the headers
#   make python-constants-check   fail if the committed file differs from a regeneration
#   make python-check             pytest suite: our library under build/bin/pmixrun
#   make python-check-debian      the same suite: Debian's libpmix under Open MPI's mpirun
#   make install-python           install the package (make install PREFIX=... calls it)
#
# make check runs python-constants-check and python-check (about a minute on 2 cores: one
# launch per test, mostly interpreter start-up; see tests-py/conftest.py).

# the interpreter the tests run with and the package is installed for (Debian's,
# where apt puts python3-pytest); PYTHON (any python3) runs the generator
PMIX_PYTHON     ?= $(if $(wildcard /usr/bin/python3),/usr/bin/python3,python3)
PYTHON          ?= python3
# the headers the constants come from (a parameter so that other header sets can be used)
PMIX_PY_INCLUDE ?= $(CURDIR)/include
DEBIAN_PMIX_LIB ?= /usr/lib/x86_64-linux-gnu/libpmix.so.2
PYTEST_ARGS     ?= -q
# where `make install` puts the package: Debian's python looks in dist-packages
PYTHON_SITEDIR  ?= $(shell $(PMIX_PYTHON) -c "import sys, sysconfig; \
kind = 'dist-packages' if 'dist-packages' in sysconfig.get_path('purelib') else 'site-packages'; \
print('$(PREFIX)/lib/python%d.%d/%s' % (sys.version_info[0], sys.version_info[1], kind))")

.PHONY: python-constants python-constants-check python-check python-check-debian install-python

# the C client of the Python host (tests-py/hosts/pyhost.py, test_server.py)
PY_SRV_CLIENT := $(BUILD)/tests-py/srv_client

$(PY_SRV_CLIENT): tests-py/clients/srv_client.c | lib
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_C) -o $@ $< $(LDFLAGS_C)

python-constants:
	$(PYTHON) python/gen_constants.py --cc "$(CC)" --include "$(PMIX_PY_INCLUDE)"

python-constants-check:
	$(PYTHON) python/gen_constants.py --cc "$(CC)" --include "$(PMIX_PY_INCLUDE)" --check

python-check: lib $(PY_SRV_CLIENT)
	PMIX_TEST_LAUNCHER=pmixrun PMIXRUN=$(PMIXRUN) PMIX_LIBRARY=$(LIBDIR)/libpmix.so.2 PMIX_PY_SRV_CLIENT=$(PY_SRV_CLIENT) \
	  $(TIMEOUT) 1800 $(PMIX_PYTHON) -m pytest $(PYTEST_ARGS) tests-py

python-check-debian:
	PMIX_TEST_LAUNCHER=mpirun PMIX_LIBRARY=$(DEBIAN_PMIX_LIB) \
	  $(TIMEOUT) 1800 $(PMIX_PYTHON) -m pytest $(PYTEST_ARGS) tests-py

# The package is copied (no pip needed); a link to the installed library sits
# next to it, so `import pmix` finds our libpmix.so.2 first.
install-python:
	install -d $(DESTDIR)$(PYTHON_SITEDIR)/pmix
	install -m 0644 python/pmix/*.py $(DESTDIR)$(PYTHON_SITEDIR)/pmix/
	ln -sf $(PREFIX)/lib/libpmix.so.2 $(DESTDIR)$(PYTHON_SITEDIR)/pmix/libpmix.so.2
CHECK_TARGETS += python-constants-check python-check
