# Layout rules (issue 17 item 4).
#
#   make layout-check    no Rust source file over 1,200 lines, no function over 100 lines,
#                        outside tests and generated code (tools/long-fns says what it
#                        counts; its self-test first). Part of make check.
#   make cycles-check    no import circle between pmix-core's top-level modules
#                        (tools/mod-cycles says what counts as a reference; its self-test
#                        first); prints the layers (docs/DESIGN.md, "Layers inside
#                        pmix-core"). Part of make check.

.PHONY: layout-check cycles-check
layout-check:
	python3 tools/long-fns --self-test >/dev/null || python3 tools/long-fns --self-test
	python3 tools/long-fns

cycles-check:
	python3 tools/mod-cycles --self-test
	python3 tools/mod-cycles

CHECK_TARGETS += layout-check cycles-check
