#!/usr/bin/env bash
# run.sh: the C tests built with ASan/UBSan (see mk/asan.mk), against the ordinary
# library. First the negative controls (tests-c/asan/bad.c: each kind of error must be
# reported and stop the program), then the runtime, rules and dynamic tables (their own
# run.sh scripts, pointed at the sanitized programs) and the helper, misuse, C host,
# engine, IOF, tool and hostlock programs. Every ASan/LeakSanitizer report goes to a file
# under $AB/reports (log_path); any such file fails the run, even from a case whose
# expected exit status is not 0. UBSan reports go to stderr (the combined runtime ignores
# log_path for them) and abort the program, so the case fails on its exit status
# (SIGABRT, 134), which no case expects. One ok/FAIL line per case and
# "asan: N passed, M failed". Every case runs through the shared harness (tools/harness.sh):
# a case still running at its bound is a hang, reported (dumps, every thread's stacks)
# before it is killed.
#
# Environment (set by mk/asan.mk): PMIXRUN, AB (the sanitized build), TIMEOUT.
# An optional argument keeps only the groups whose name contains it
# (controls, runtime, rules, dynamic, faults, programs).
set -u
: "${PMIXRUN:?}" "${AB:?}" "${TIMEOUT:?}"
only=${1:-}
here=$(cd "$(dirname "$0")" && pwd)
AREA=asan
. "$here/../../tools/harness.sh"
trap harness_cleanup EXIT
reports=$AB/reports
rm -rf "$reports" "$AB/controls"
mkdir -p "$reports" "$AB/controls" "$AB/tool/empty"

# detect_leaks: leaks of what the library handed the tests; suppressions only for the
# library-internal allocations listed (with reasons) in lsan.supp.
# allocator_may_return_null: the misuse tests pass huge counts on purpose; the library
# must get NULL from malloc and fail cleanly, as it does with glibc, not an ASan abort.
sanitize_env() { # LOGDIR
    export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:allocator_may_return_null=1:log_path=$1/asan"
    export LSAN_OPTIONS="suppressions=$here/lsan.supp:print_suppressions=0"
    export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:abort_on_error=1"
}

want() { [ -z "$only" ] || [[ "$1" == *"$only"* ]]; }

# prog NAME SECS -- COMMAND...: must exit 0, print no FAIL line and a "0 failed" verdict
# when it prints a verdict at all (the harness's check).
prog() {
    local name=$1 secs=$2
    shift 3
    check "$name" 0 '' "$secs" -- "$@"
}

# control MODE PATTERN: bad MODE under pmixrun must fail and leave a report matching PATTERN.
control() {
    local mode=$1 pattern=$2 dir=$AB/controls/$1 why=""
    mkdir -p "$dir"
    sanitize_env "$dir"
    run_job 60 -- "$PMIXRUN" --timeout 50 -n 1 "$AB/asan/bad" "$mode"
    cat "$dir"/* >>"$out" 2>/dev/null
    if [ "$HUNG" = 1 ]; then
        why="hang: still running after 60 s (killed)"
    elif [ "$mode" = clean ]; then
        [ "$rc" -eq 0 ] || why="exit status $rc, want 0"
        [ -z "$(ls "$dir")" ] || why="a sanitizer report for correct code"
    elif [ "$rc" -eq 0 ]; then
        why="exited 0: the error was not caught"
    elif ! grep -Eq -- "$pattern" "$out"; then
        why="no report matching /$pattern/"
    fi
    verdict "control: bad $mode is caught" "$why"
}

if want controls; then
    control clean ''
    control overflow 'ERROR: AddressSanitizer: heap-buffer-overflow'
    control double-free 'ERROR: AddressSanitizer: attempting double-free'
    control leak 'ERROR: LeakSanitizer: detected memory leaks'
    control ubsan 'runtime error: signed integer overflow'
fi

sanitize_env "$reports"

# table NAME SCRIPT VAR=VALUE...: one of the other areas' run.sh over the sanitized
# programs. It runs its own cases through the harness (each with its own bound and hang
# report, its logs under this run's); the whole table is bounded by 900 s here.
table() {
    local name=$1 script=$2 why=""
    shift 2
    want "$name" || return 0
    echo "== $name table ($script)"
    run_job 900 -- env "$@" PMIXRUN="$PMIXRUN" TIMEOUT="$TIMEOUT" \
        HARNESS_LOG="$HARNESS_LOG/$name" bash "$here/../$script"
    sed 's/^/  /' "$out"
    if [ "$HUNG" = 1 ]; then
        why="hang: still running after 900 s (killed)"
    elif [ "$rc" -ne 0 ]; then
        why="exit status $rc"
    fi
    # The table's own lines are above: only the hang report, if any, below the verdict.
    : >"$out"
    verdict "$name table, sanitized" "$why"
}
table runtime runtime/run.sh RT="$AB/runtime" HELLO="$AB/hello" BENCH="$AB/pmix_bench"
table rules rules/run.sh RB="$AB/rules"
table dynamic dynamic/run.sh DYN="$AB/dynamic"
# The faults table's C host (hostcb) keeps one request whose callback never comes, by
# design: its own suppression file says which. Its pattern is a frame of our library
# several calls above malloc, which the fast unwinder (frame pointers, which the release
# library does not keep) may not reach, depending on what the compiler inlined: the
# table's allocation stacks are taken with the slow unwinder (DWARF).
table faults faults/run.sh FAULTS="$AB/faults" \
    ASAN_OPTIONS="$ASAN_OPTIONS:fast_unwind_on_malloc=0" \
    LSAN_OPTIONS="suppressions=$here/lsan-faults.supp:print_suppressions=0"

if want programs; then
    for t in "$AB"/helpers/*; do
        [ -x "$t" ] && prog "helpers/${t##*/}" 60 -- "$t"
    done
    for t in "$AB"/misuse/*; do
        case ${t##*/} in gen_lifecycle | *.c | *.log) continue ;; esac
        [ -x "$t" ] && prog "misuse/${t##*/}" 120 -- "$t"
    done
    for m in client-during client-after server-during server-after; do
        prog "misuse/gen_lifecycle $m" 120 -- "$AB/misuse/gen_lifecycle" "$m"
    done
    prog "engine/singleton" 60 -- "$AB/engine/singleton"
    for s in "basic 4" "lost 2" "abort 2"; do
        # shellcheck disable=SC2086 # the mode and the rank count are two words
        prog "engine/simphost $s (C host)" 60 -- "$AB/engine/simphost" $s
    done
    for s in fence dmodex; do
        prog "engine/multinode $s (C hosts)" 60 -- "$AB/engine/multinode" "$s"
    done
    prog "hostops/regex2" 30 -- "$AB/hostops/regex2"
    for m in null host v4; do
        prog "hostops/hchost $m (C host)" 60 -- "$AB/hostops/hchost" "$m"
    done
    prog "hostops/pmixrun_cred, 3 ranks" 60 -- "$PMIXRUN" --timeout 50 -n 3 "$AB/hostops/pmixrun_cred"
    prog "iof/iof_peers pull, 3 ranks" 60 -- "$PMIXRUN" --timeout 50 -n 3 "$AB/iof/iof_peers" pull
    for m in host null; do
        prog "iof/iof_host $m (C host)" 60 -- "$AB/iof/iof_host" "$m"
    done
    prog "tool/tool_job pid + tool_attach" 120 -- \
        "$PMIXRUN" --timeout 100 -n 2 "$AB/tool/tool_job" pid "$AB/tool/tool_attach"
    for m in slot null off; do
        prog "tool/tool_host $m (C host)" 60 -- "$AB/tool/tool_host" "$m"
    done
    for m in inline thread; do
        prog "hostlock $m (C host)" 100 -- "$AB/hostlock/hostlock" "$m"
    done
    prog "hostile/host uid (C host refusing a client of another uid)" 30 -- \
        env PMIX_DEBUG=warn "$AB/hostile/host" uid
    # waves checks that the host's RSS does not grow from wave to wave; ASan's quarantine
    # of freed blocks would grow it, so this one case runs without quarantine (use after
    # free of a recycled block is then found only until the block is reused).
    prog "hostile/host waves 4 20 (C host, short-lived clients, no quarantine)" 90 -- \
        env ASAN_OPTIONS="$ASAN_OPTIONS:quarantine_size_mb=0:thread_local_quarantine_size_kb=0" \
        "$AB/hostile/host" waves 4 20
fi

# Any report, from any case, fails the run.
n=$(find "$reports" -type f | wc -l)
if [ "$n" -eq 0 ]; then
    verdict "no sanitizer report from any test" ""
else
    find "$reports" -type f -exec cat {} + >"$out"
    verdict "no sanitizer report from any test" "$n report(s) in $reports"
fi
harness_end
