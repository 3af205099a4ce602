# The clone must be all a build, a test run or a benchmark needs:
#
#   make selfcontained-check   fails, naming file and line, if a tracked file refers to the
#                              folder beside the clone, to /work, to a relative path that
#                              climbs out of the tree, or gives a default path outside the
#                              repository and the system locations (tools/check-selfcontained;
#                              its --self-test runs first)

.PHONY: selfcontained-check
selfcontained-check:
	$(TIMEOUT) 60 python3 tools/check-selfcontained --self-test
	$(TIMEOUT) 60 python3 tools/check-selfcontained $(CURDIR)

CHECK_TARGETS += selfcontained-check
