# Layout rules (issue 17 item 4).
#
#   make layout-check    no Rust source file over 1,200 lines, no function over 100 lines,
#                        outside tests and generated code (tools/long-fns says what it
#                        counts; its self-test first). Part of make check.
#   make cycles-check    import circles between pmix-core's top-level modules
#                        (tools/mod-cycles). Not in make check yet: 23 pairs are left.

.PHONY: layout-check cycles-check
layout-check:
	python3 tools/long-fns --self-test >/dev/null || python3 tools/long-fns --self-test
	python3 tools/long-fns

cycles-check:
	python3 tools/mod-cycles

CHECK_TARGETS += layout-check
