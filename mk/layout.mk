# Layout rule (issue 17 item 4): no Rust source file over 1,200 lines, no function over
# 100 lines, outside tests and generated code (tools/long-fns says what it counts).
#
#   make layout-check    tools/long-fns's self-test, then the whole workspace; then
#                        tools/mod-cycles (import circles between pmix-core's modules)
#
# Not in CHECK_TARGETS yet: the splits of the large files land branch by branch.

.PHONY: layout-check
layout-check:
	python3 tools/long-fns --self-test >/dev/null || python3 tools/long-fns --self-test
	python3 tools/long-fns
	python3 tools/mod-cycles
