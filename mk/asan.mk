# ASan/UBSan build of the C tests (issue 20 item 7): a representative set of the C test
# programs (clients and C hosts) compiled with AddressSanitizer and UndefinedBehavior-
# Sanitizer, linked with the ordinary build/lib/libpmix.so.2, and run under pmixrun or as
# their own servers. The Rust library is not instrumented (stable Rust has no sanitizers),
# but ASan replaces malloc/free for the whole process: a buffer the library hands C that
# was not malloc'ed, is freed twice, or is overrun by the library's writes into C storage
# is reported, as are the tests' own errors and leaks of what the library handed them.
# tests-c/asan/run.sh holds the cases; tests-c/asan/bad.c proves each kind of report
# stops a program.
#
#   make asan-check      build the sanitized programs and run them (about 2 minutes)

ASAN_BUILD  := $(BUILD)/tests-asan
ASAN_CFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all -O1
ASAN_AREAS  := runtime rules helpers misuse dynamic faults hostops engine iof tool hostlock \
               hostile asan
ASAN_SRCS   := $(foreach a,$(ASAN_AREAS),$(wildcard tests-c/$(a)/*.c)) tests-c/hello.c
ASAN_BINS   := $(patsubst tests-c/%.c,$(ASAN_BUILD)/%,$(ASAN_SRCS)) $(ASAN_BUILD)/pmix_bench \
               $(ASAN_BUILD)/misuse/gen_before_init $(ASAN_BUILD)/misuse/gen_lifecycle
ASAN_HDRS   := $(wildcard tests-c/*.h tests-c/*/*.h)

$(ASAN_BUILD)/%: tests-c/%.c $(ASAN_HDRS) | lib
	@mkdir -p $(@D)
	$(CC) $(ASAN_CFLAGS) $(CFLAGS_C) -Wno-unused-parameter -o $@ $< $(LDFLAGS_C)

$(ASAN_BUILD)/pmix_bench: bench/pmix_bench.c | lib
	@mkdir -p $(@D)
	$(CC) $(ASAN_CFLAGS) $(CFLAGS_C) -o $@ $< $(LDFLAGS_C)

# (robust.mk, included after this file, generates these sources in build/tests/robust.)
$(ASAN_BUILD)/misuse/gen_%: $(BUILD)/tests/robust/misuse/gen_%.c tests-c/check.h | lib
	@mkdir -p $(@D)
	$(CC) $(ASAN_CFLAGS) $(CFLAGS_C) -Itests-c/misuse -Wno-unused-parameter -o $@ $< $(LDFLAGS_C)

.PHONY: asan-build asan-check
asan-build: lib $(ASAN_BINS)

asan-check: asan-build
	PMIXRUN=$(PMIXRUN) AB=$(ASAN_BUILD) TIMEOUT="$(TIMEOUT)" bash tests-c/asan/run.sh $(ASAN_ONLY)

CHECK_TARGETS += asan-check
