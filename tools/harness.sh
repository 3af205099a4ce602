# harness.sh: the one shell test harness, sourced by every run.sh (bash).
#
#   AREA=runtime; . "$ROOT/tools/harness.sh"     (ROOT: the clone)
#   check NAME WANT_STATUS PATTERN SECS [NLINES] -- COMMAND...
#   verdict NAME WHY            # a case judged by the run.sh itself (WHY empty = passed)
#   harness_end                 # "<AREA>: N passed, M failed"; returns the verdict
#
# check runs COMMAND (stdout and stderr together in $out) and passes when its exit status
# is WANT_STATUS, PATTERN (an extended regex; empty = none) matches at least NLINES (1)
# lines, no line matches $REJECT (default '^FAIL'), no rank reports "N checks, M failed"
# with M > 0, and it ends within SECS seconds. One "ok"/"FAIL" line per case with its
# time; a failing case's output (its error lines, then its tail) is shown below it.
# `REJECT=regex check ...` changes the rejected lines for one case.
#
# A case still running after SECS seconds is a hang. Before it is killed, every process
# of the case is found (each carries HARNESS_CASE=<id> in its environment: the one
# mechanism, also for daemons that left the process tree), and
#   1. each process that catches the dump signal (SigCgt in /proc/PID/status) is sent it
#      (not a launcher that forwards signals to its tasks: HARNESS_NO_DUMP, "srun"):
#      pmix-rs processes (PMIX_RS_DUMP_SIGNAL is set for every case) write their debug dump
#      to the case's log directory; a dump that does not come within 1 s means the
#      process's progress thread is not responding;
#   2. every thread's stack of every process is taken with eu-stack, or gdb (bounded);
#   3. a hang report is printed: per process its pid, command, the PMIx call it is
#      blocked in (from its dump, else from its stacks), the start of its dump (a
#      server's pending fences with the ranks that are missing) and of its stacks;
#      the whole report stays in $HARNESS_LOG/<case>/hang-report;
# then every process of the case is killed with SIGKILL. Processes of a case still
# running after it ended are killed too (and said so in its output).
#
# Hooks (set around one case, or for the whole run): HARNESS_EXTRA_PIDS, a command
# printing the pids of processes of a case that do not carry its marker (slurmstepd,
# whose environment is not srun's): they get the same dump, stacks and kill after a hang;
# HARNESS_LINGER, the seconds the processes of a case may run on after it ended before
# they are counted in LEFT and killed (2); HARNESS_EXPLAIN, a command given the output
# file of a failing case that prints the lines that explain it (instead of its tail).
# harness_end lists the failed cases after the closing line.
#
# Settings: HARNESS_LOG (log directory; default build/test-logs/<AREA> in the clone),
# HARNESS_ONLY (regex: run only the cases whose name matches), HARNESS_LINES (lines of
# each dump shown per process, 40, twice that of stacks), HARNESS_FRAMES (frames shown per thread, 14),
# HARNESS_DUMP_SIGNAL (USR2).
# Helpers: now, elapsed T0 [T1], marked ID, HARNESS_MARK (the marker of the case being
# run, as NAME=VALUE: for a case that starts its command with `env -i`), run_job SECS --
# COMMAND... (the timeout handling alone; sets rc, HUNG, SECS_TAKEN), and its two halves
# job_start SECS -- COMMAND... / job_wait for a case that signals its job while it runs.

: "${AREA:?set AREA before sourcing harness.sh}"
HARNESS_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
HARNESS_LOG=${HARNESS_LOG:-$HARNESS_ROOT/build/test-logs/$AREA}
HARNESS_LINES=${HARNESS_LINES:-40}
HARNESS_FRAMES=${HARNESS_FRAMES:-14}
HARNESS_DUMP_SIGNAL=${HARNESS_DUMP_SIGNAL:-USR2}
HARNESS_ID=harness-$AREA-$$-$RANDOM
HARNESS_N=0
REJECT=${REJECT:-^FAIL}
pass=0
fail=0
HARNESS_FAILED=()
rm -rf "$HARNESS_LOG"
mkdir -p "$HARNESS_LOG"
out=$HARNESS_LOG/out
: >"$out"

now() { date +%s.%N; }
# elapsed T0 [T1]: seconds between two `now`s (T1 default: now), one decimal.
elapsed() { awk -v a="$1" -v b="${2:-$(now)}" 'BEGIN { printf "%.1f", b - a }'; }

# marked ID: pids of the processes whose environment carries HARNESS_CASE=ID.
marked() {
    grep -lzsx "HARNESS_CASE=$1" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3 | grep -vx "$$"
}

# The number of a signal name for kill -l (USR2 -> 12).
harness_signo() { kill -l "${1#SIG}" 2>/dev/null || echo "$1"; }

# catches PID SIGNO: true if PID has a handler for SIGNO.
catches() {
    local mask
    mask=$(awk '/^SigCgt:/ { print $2 }' "/proc/$1/status" 2>/dev/null)
    [ -n "$mask" ] && (((0x$mask >> ($2 - 1)) & 1))
}

# forwards PID: true if PID is a launcher that passes signals on to its job (its command
# name is in HARNESS_NO_DUMP, default "srun"): it is not sent the dump signal, which
# would reach (and kill) the tasks whose stacks are about to be taken.
forwards() {
    local c
    read -r c 2>/dev/null <"/proc/$1/comm" || return 1
    [[ " ${HARNESS_NO_DUMP:-srun} " == *" $c "* ]]
}

# blocked_in DUMP STACKS: the PMIx call a process is blocked in.
blocked_in() {
    local c
    c=$(sed -n 's/^    \([^ ]*\) started .* RUNNING (blocked)$/\1/p' "$1" 2>/dev/null | paste -sd, -)
    if [ -n "$c" ]; then
        echo "$c (from its dump)"
        return
    fi
    c=$(grep -oE '\bPMIx_[A-Za-z_]+' "$2" 2>/dev/null | grep -v '^PMIx_Progress' | head -n 1)
    if [ -n "$c" ]; then
        echo "$c (from its stacks)"
    else
        echo "no PMIx call found"
    fi
}

# case_pids ID: the processes of case ID (its marker, and HARNESS_EXTRA_PIDS's).
case_pids() {
    {
        marked "$1"
        [ -z "${HARNESS_EXTRA_PIDS:-}" ] || $HARNESS_EXTRA_PIDS
    } | sort -un
}

# hang_report ID DIR SECS: dumps, stacks and the report of a hung case (see above),
# into DIR/hang-report; prints nothing.
hang_report() {
    local id=$1 dir=$2 secs=$3 p pids signo waited=0
    pids=$(case_pids "$id")
    signo=$(harness_signo "$HARNESS_DUMP_SIGNAL")
    local -a asked=()
    for p in $pids; do
        if catches "$p" "$signo" && ! forwards "$p"; then
            kill -"$signo" "$p" 2>/dev/null && asked+=("$p")
        fi
    done
    # Up to 1 s for the dumps (written whole, then renamed into place).
    while [ "$waited" -lt 20 ]; do
        local all=1
        for p in "${asked[@]}"; do [ -s "$dir/pmix-dump.$p" ] || all=0; done
        [ "$all" = 1 ] && break
        sleep 0.05
        waited=$((waited + 1))
    done
    # The stacks of all processes at once, each taker waited for by its pid (not every
    # background job: a run.sh may keep daemons of its own in the background).
    local -a takers=()
    for p in $pids; do
        if [ -d "/proc/$p" ]; then
            stacks_of "$p" >"$dir/stacks.$p" 2>&1 &
            takers+=($!)
        fi
    done
    for p in "${takers[@]}"; do wait "$p" 2>/dev/null; done
    {
        echo "== hang report: still running after $secs s; $(echo "$pids" | grep -c .) processes"
        for p in $pids; do
            harness_proc "$p" "$dir" "${asked[*]}"
        done
    } >"$dir/hang-report"
}

# stacks_of PID: every thread's stack. eu-stack (elfutils) when installed: measured on
# a loaded 2-core machine, 0.05 s for a rank where gdb took 11 s; gdb otherwise (30 s
# bound). eu-stack's thread lines get the thread's name.
stacks_of() {
    local line t
    if command -v eu-stack >/dev/null; then
        timeout -s KILL 20 eu-stack -p "$1" 2>&1 | while IFS= read -r line; do
            if [[ "$line" =~ ^TID\ ([0-9]+):$ ]]; then
                t=${BASH_REMATCH[1]}
                echo "TID $t ($(cat "/proc/$1/task/$t/comm" 2>/dev/null)):"
            else
                echo "$line"
            fi
        done
    elif command -v gdb >/dev/null; then
        timeout -s KILL 30 gdb -q -batch -p "$1" -ex 'set pagination off' \
            -ex 'thread apply all bt'
    else
        echo "(neither eu-stack nor gdb is installed: no stacks)"
    fi
}

# harness_proc PID DIR ASKED: one process's part of the hang report.
harness_proc() {
    local p=$1 dir=$2 asked=" $3 " dump=$2/pmix-dump.$1 st=$2/stacks.$1
    echo "-- pid $p: $(tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline" | cut -c1-300)"
    echo "   blocked in: $(blocked_in "$dump" "$st")"
    if [ -s "$dump" ]; then
        echo "   PMIx debug dump ($dump):"
        head -n "$HARNESS_LINES" "$dump" | sed 's/^/   | /'
    elif [[ "$asked" == *" $p "* ]]; then
        echo "   PMIx debug dump: none within 1 s of the signal: progress thread not responding"
    else
        echo "   PMIx debug dump: none (the process does not catch SIG$HARNESS_DUMP_SIGNAL: not a pmix-rs process, or the library is not active; or it forwards signals: not sent)"
    fi
    echo "   stacks ($st; here the first $HARNESS_FRAMES frames of each thread):"
    awk -v n="$HARNESS_FRAMES" '/^(Thread|TID) / { k = 0; print; next }
        /^#/ { if (k++ < n) print substr($0, 1, 200) }' "$st" 2>/dev/null |
        head -n $((HARNESS_LINES * 2)) | sed 's/^/   | /'
}

# harness_mark: the marker of the next case, as NAME=VALUE, for a command that clears its
# environment: check ... -- env -i PATH="$PATH" "$(harness_mark)" PROG
harness_mark() { echo "HARNESS_CASE=$HARNESS_ID.$((HARNESS_N + 1))"; }

# harness_cleanup: kill every process of every case of this run (for an EXIT trap).
harness_cleanup() {
    local pids
    pids=$(grep -lzs "^HARNESS_CASE=$HARNESS_ID\." /proc/[0-9]*/environ 2>/dev/null |
        cut -d/ -f3 | grep -vx "$$")
    [ -n "$pids" ] && kill -KILL $pids 2>/dev/null
    return 0
}

# Kill every process carrying marker ID, after up to HARNESS_LINGER (2) s for them to
# end by themselves (daemons of a job that just ended); print how many had to be killed.
reap() {
    local pids i n=0
    for ((i = 0; i < ${HARNESS_LINGER:-2} * 5; i++)); do
        [ -z "$(marked "$1")" ] && break
        sleep 0.2
    done
    for i in 1 2 3 4 5 6 7 8 9 10; do
        pids=$(marked "$1")
        [ -z "$pids" ] && break
        [ "$i" = 1 ] && n=$(echo "$pids" | grep -c .)
        kill -KILL $pids 2>/dev/null
        sleep 0.1
    done
    echo "$n"
}

# run_job SECS -- COMMAND...: run COMMAND (output in $out) for at most SECS seconds, with
# the hang handling above. Sets rc (its exit status; 137 after a hang), HUNG (1 after a
# hang), SECS_TAKEN, HANG_REPORT (the report's path, or empty), CASE_DIR and LEFT (the
# number of its processes still running after it ended, then killed).
run_job() {
    job_start "$@"
    job_wait
}

# job_start SECS -- COMMAND...: run_job's first half, for a case that acts on its job
# while it runs: COMMAND starts in the background (its pid in HARNESS_JOB: the command
# itself, `env` execs it), its SECS begin; job_wait is the second half.
job_start() {
    HARNESS_SECS=$1
    shift 2
    HARNESS_N=$((HARNESS_N + 1))
    HARNESS_CASE_ID=$HARNESS_ID.$HARNESS_N
    CASE_DIR=$HARNESS_LOG/case$HARNESS_N
    HARNESS_MARK=HARNESS_CASE=$HARNESS_CASE_ID
    HANG_REPORT=""
    HUNG=0
    mkdir -p "$CASE_DIR"
    HARNESS_T0=$(now)
    env "HARNESS_CASE=$HARNESS_CASE_ID" "PMIX_RS_DUMP_SIGNAL=$HARNESS_DUMP_SIGNAL" \
        "PMIX_RS_DUMP_DIR=$CASE_DIR" "$@" >"$out" 2>&1 &
    HARNESS_JOB=$!
    sleep "$HARNESS_SECS" &
    HARNESS_SLEEPER=$!
}

# job_wait: wait for the job job_start started (see run_job for what it sets).
job_wait() {
    local id=$HARNESS_CASE_ID secs=$HARNESS_SECS done_pid
    wait -n -p done_pid "$HARNESS_JOB" "$HARNESS_SLEEPER"
    rc=$?
    if [ "$done_pid" = "$HARNESS_JOB" ]; then
        kill "$HARNESS_SLEEPER" 2>/dev/null
        wait "$HARNESS_SLEEPER" 2>/dev/null
    else
        HUNG=1
        hang_report "$id" "$CASE_DIR" "$secs"
        HANG_REPORT=$CASE_DIR/hang-report
        kill -KILL $(case_pids "$id") 2>/dev/null
        kill -KILL "$HARNESS_JOB" 2>/dev/null
        wait "$HARNESS_JOB" 2>/dev/null
        rc=137
    fi
    SECS_TAKEN=$(elapsed "$HARNESS_T0")
    LEFT=$(reap "$id")
    [ "$LEFT" != 0 ] && echo "harness: $LEFT processes of the case still ran after it ended (killed)" >>"$out"
    HARNESS_JOB=""
    [ "$HUNG" = 1 ] || rm -rf "$CASE_DIR"
}

# verdict NAME WHY: count and print one case's result (WHY empty = passed); a failing
# case's hang report (if any) and output follow.
verdict() {
    if [ -z "$2" ]; then
        pass=$((pass + 1))
        echo "ok   $1"
    else
        fail=$((fail + 1))
        HARNESS_FAILED+=("$1: $2")
        echo "FAIL $1: $2"
        if [ -n "${HANG_REPORT:-}" ] && [ -s "$HANG_REPORT" ]; then
            sed 's/^/    # /' "$HANG_REPORT"
            echo "    # (full report: $HANG_REPORT)"
        fi
        if [ -n "${HARNESS_EXPLAIN:-}" ]; then
            $HARNESS_EXPLAIN "$out" | sed 's/^/    | /'
        else
            grep -aE '^FAIL|panicked' "$out" | head -n 20 | sed 's/^/    | /'
            grep -av '^ok ' "$out" | tail -n 60 | sed 's/^/    | /'
        fi
    fi
    HANG_REPORT=""
}

# want_case NAME: false when HARNESS_ONLY excludes the case.
want_case() { [ -z "${HARNESS_ONLY:-}" ] || [[ "$1" =~ $HARNESS_ONLY ]]; }

# check NAME WANT_STATUS PATTERN SECS [NLINES] -- COMMAND... (see the top of this file)
check() {
    local name=$1 want=$2 pattern=$3 secs=$4 nlines=1
    shift 4
    if [ "$1" != "--" ]; then
        nlines=$1
        shift
    fi
    want_case "$name" || return 0
    run_job "$secs" "$@"
    local why=""
    if [ "$HUNG" = 1 ]; then
        why="hang: still running after $secs s (killed)"
    elif [ "$rc" -ne "$want" ]; then
        why="exit status $rc, want $want"
    elif [ -n "$pattern" ] && [ "$(grep -aEc -- "$pattern" "$out")" -lt "$nlines" ]; then
        if [ "$nlines" = 1 ]; then
            why="no line matches /$pattern/"
        else
            why="fewer than $nlines lines match /$pattern/"
        fi
    elif [ -n "$REJECT" ] && grep -aEq -- "$REJECT" "$out"; then
        why="$(grep -aEc -- "$REJECT" "$out") lines match /$REJECT/"
    elif grep -aE 'checks, [0-9]+ failed' "$out" | grep -vq ' 0 failed'; then
        why="a rank reported failed checks"
    fi
    verdict "$name (${SECS_TAKEN} s)" "$why"
}

# harness_end [NOTE]: the closing line (with NOTE), then the failed cases; the exit
# status is the verdict.
harness_end() {
    echo "$AREA: $pass passed, $fail failed${1:+ ($1)}"
    local f
    for f in "${HARNESS_FAILED[@]}"; do echo "   failed: $f"; done
    [ "$fail" -eq 0 ]
}
