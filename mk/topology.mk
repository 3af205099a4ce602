# Topology through hwloc (PMIx_Load_topology, PMIx_Get_cpuset, PMIx_Parse_cpuset_string,
# PMIx_Get_relative_locality, PMIx_Compute_distances[_nb], pmixrun's PMIX_LOCALITY_STRING /
# PMIX_CPUSET / PMIX_HWLOC_XML_V2): tests-c/topology/topo.c, built with -lpmix -lhwloc
# (Debian's libhwloc-dev), under pmixrun on one node and on simulated nodes.
#
#   make topology-check   build and run every case

TOPO_BUILD := $(BUILD)/tests-c/topology

$(TOPO_BUILD)/topo: tests-c/topology/topo.c tests-c/check.h | lib
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_C) -o $@ $< $(LDFLAGS_C) $(shell pkg-config --libs hwloc)

TOPO_CASES := "$(PMIXRUN) --timeout 50 -n 4 $(TOPO_BUILD)/topo" \
              "$(PMIXRUN) --timeout 50 --nodes 2 -n 4 $(TOPO_BUILD)/topo"

.PHONY: topology-check
topology-check: lib $(TOPO_BUILD)/topo
	@set -e; for c in $(TOPO_CASES); do \
	    echo "== $$c"; $(TIMEOUT) 60 $$c > $(TOPO_BUILD)/log.txt 2>&1 || \
	        { cat $(TOPO_BUILD)/log.txt; echo "FAIL $$c"; exit 1; }; \
	    if grep -q '^FAIL' $(TOPO_BUILD)/log.txt; then cat $(TOPO_BUILD)/log.txt; echo "FAIL $$c"; exit 1; fi; \
	    n=$$(grep -c 'checks, 0 failed' $(TOPO_BUILD)/log.txt); \
	    [ "$$n" = 4 ] || { cat $(TOPO_BUILD)/log.txt; echo "FAIL $$c: $$n of 4 ranks passed"; exit 1; }; \
	    grep -E 'checks, 0 failed' $(TOPO_BUILD)/log.txt | tail -1; \
	done

CHECK_TARGETS += topology-check
