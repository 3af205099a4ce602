#!/usr/bin/env bash
# run.sh: chaos rounds (see mk/chaos.mk). Each round starts
#   pmixrun [--enable-recovery] [--nodes K] -n N chaosloop ITERS spawn
# (every rank loops over Put/Commit/Fence/Get, Connect/Disconnect; rank 0 also spawns:
# the child runs on rank 0's node), waits
# until every rank runs, then does one seeded random thing to it:
#   rank-kill      SIGKILL a random rank (with or without --enable-recovery): the job must
#                  end within BOUND s with a non-zero status and pmixrun naming a failed
#                  rank (the victim, or a survivor that exited on the error it got: a
#                  fence/connect with the victim fails with PROC-TERM-WO-SYNC, a
#                  disconnect after the victim left with INVALID-OPERATION)
#   rank-stop      SIGSTOP a random rank, SIGCONT it 0.5-2 s later: the job must succeed
#   daemon-stop    the same for a random node daemon (--nodes 2/3)
#   daemon-kill    SIGKILL a random node daemon (with or without --enable-recovery; the
#                  node's processes of every job, spawned children too, are killed with
#                  it): the job must end within BOUND s, non-zero, with pmixrun naming
#                  the lost node
#   pmixrun-kill   SIGKILL pmixrun itself: every rank and daemon must be gone within BOUND s
#   stop-timeout   SIGSTOP a rank and never resume it, under --timeout 4: pmixrun must end
#                  the job with status 124 (a stopped process still dies of SIGKILL)
# After every round nothing of the job may be left: no process carrying the round's
# HARNESS_CASE marker (tools/harness.sh's; a scan of /proc/*/environ), and the round's private TMPDIR (where
# pmixrun puts its scratch tree: rendezvous sockets, PMIX_NSDIR/PROCDIRs, job-data segment
# files) must be empty. After pmixrun-kill nobody is left to remove the tree; the next
# pmixrun in the same TMPDIR removes the trees of dead pmixruns (scratch::remove_stale),
# so the round runs one (`pmixrun -n 1 true`) and then requires the directory empty.
#
# Environment: PMIXRUN, CHAOS (directory of the built programs), CHAOS_SEED (default: the
# time; printed), CHAOS_ROUNDS (default 14), CHAOS_BOUND (default 20 s).
# One ok/FAIL line per round, the job's output under a failing one, "N passed, M failed".
# Through the shared harness (tools/harness.sh): its verdict, markers and hang report. A
# job that does not end within its bound, and processes left behind after a round, get
# the harness's hang report (debug dumps of our processes, every thread's stacks) before
# they are killed.
set -u
: "${PMIXRUN:?}" "${CHAOS:?}"
AREA=chaos
. "$(dirname "$0")/../../tools/harness.sh"
SEED=${CHAOS_SEED:-$(date +%s)}
ROUNDS=${CHAOS_ROUNDS:-14}
BOUND=${CHAOS_BOUND:-20}
# Enough rounds that the job is still running when the action comes (0-0.3 s after every
# rank started): 1,200 take 2-4.5 s here since session 9's faster fences (600 ended
# before some actions).
ITERS=${CHAOS_ITERS:-1200}
RANDOM=$SEED
echo "chaos: seed $SEED (rerun with CHAOS_SEED=$SEED), $ROUNDS rounds, bound $BOUND s"
WORK=$(mktemp -d /tmp/pmix-chaos.XXXXXX)
MARK=""
why=""

cleanup() {
    harness_cleanup
    rm -rf "$WORK"
}
trap cleanup EXIT

now_ms() { date +%s%3N; }

# expect COND MESSAGE: record the first failed condition of the round.
expect() {
    if [ -z "$why" ] && ! eval "$1"; then
        why=$2
    fi
}

# The ranks of the job (not the spawned children, not pmixrun), or the node daemons.
ranks() {
    local p c
    for p in $(marked "$MARK"); do
        read -r c 2>/dev/null <"/proc/$p/comm" && [ "$c" = chaosloop ] || continue
        tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q "chaosloop $ITERS" && echo "$p"
    done
}
daemons() {
    local p
    for p in $(marked "$MARK"); do
        tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q -- "--node-daemon" && echo "$p"
    done
}
pick() { local a=("$@"); [ ${#a[@]} -gt 0 ] && echo "${a[RANDOM % ${#a[@]}]}"; }

# wait_gone PID SECONDS: wait for PID to exit (it is our child); sets rc (or 999 if not).
wait_gone() {
    local deadline=$(($(now_ms) + $2 * 1000))
    while kill -0 "$1" 2>/dev/null && [ "$(now_ms)" -lt "$deadline" ]; do sleep 0.05; done
    if kill -0 "$1" 2>/dev/null; then
        rc=999
    else
        wait "$1" 2>/dev/null
        rc=$?
    fi
}

# wait_started N SECONDS: until N ranks printed "started".
wait_started() {
    local i
    for ((i = 0; i < $2 * 20; i++)); do
        [ "$(grep -c ': started$' "$out")" -ge "$1" ] && return 0
        sleep 0.05
    done
    return 1
}

# report_and_kill SECS: the harness's hang report of the round's processes (into the
# round's log directory; verdict prints it), then SIGKILL them.
report_and_kill() {
    local dir=$HARNESS_LOG/${MARK##*.}
    mkdir -p "$dir"
    hang_report "$MARK" "$dir" "$1"
    HANG_REPORT=$dir/hang-report
    # shellcheck disable=SC2046
    kill -KILL $(marked "$MARK") 2>/dev/null
}

# nothing_left: no marked process within 5 s, the round's TMPDIR empty.
nothing_left() {
    local i left
    for ((i = 0; i < 100; i++)); do
        left=$(marked "$MARK")
        [ -z "$left" ] && break
        sleep 0.05
    done
    expect '[ -z "$left" ]' "processes left behind: $(for p in $left; do
        tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null; echo -n "($p); "; done)"
    [ -z "$left" ] || report_and_kill 5
    expect '[ -z "$(ls -A "$tmp")" ]' "left in TMPDIR: $(cd "$tmp" && find . -mindepth 1 | head -n 8 | tr '\n' ' ')"
}

# act ACTION: does it to the running job (pmixrun is $job); sets victim (a description).
act() {
    local v
    case $1 in
    rank-kill)
        v=$(pick $(ranks))
        victim="rank pid $v"
        [ -n "$v" ] && kill -KILL "$v"
        ;;
    rank-stop | daemon-stop)
        if [ "$1" = rank-stop ]; then v=$(pick $(ranks)); else v=$(pick $(daemons)); fi
        victim="${1%-stop} pid $v"
        [ -n "$v" ] || return
        kill -STOP "$v"
        sleep "0.$((5 + RANDOM % 5))"
        [ $((RANDOM % 2)) = 0 ] && sleep 1
        kill -CONT "$v"
        ;;
    daemon-kill)
        v=$(pick $(daemons))
        victim="daemon pid $v"
        [ -n "$v" ] && kill -KILL "$v"
        ;;
    pmixrun-kill)
        victim="pmixrun pid $job"
        kill -KILL "$job"
        ;;
    stop-timeout)
        v=$(pick $(ranks))
        victim="rank pid $v (never resumed)"
        [ -n "$v" ] && kill -STOP "$v"
        ;;
    esac
}

# judge ACTION: the round's verdict from rc, the time since the action and the output.
judge() {
    case $1 in
    rank-kill)
        expect '[ "$rc" -ne 0 ] && [ "$rc" -ne 999 ]' "exit status $rc, want a failure"
        # pmixrun names the first failure it sees: the killed rank, or a survivor that
        # exited on the error its call returned (the victim is named then as well, or
        # the job's remaining ranks are killed).
        expect 'grep -Eq "pmixrun: rank [0-9]+ (was killed by SIGKILL|exited with status)" "$out"' \
            "pmixrun did not name a failed rank"
        ;;
    rank-stop | daemon-stop)
        expect '[ "$rc" -eq 0 ]' "exit status $rc, want 0 (a stopped and resumed process only runs late)"
        expect '[ "$(grep -c ": done $ITERS rounds" "$out")" -eq "$n" ]' "not every rank finished"
        ;;
    daemon-kill)
        expect '[ "$rc" -ne 0 ] && [ "$rc" -ne 999 ]' "exit status $rc, want a failure"
        expect 'grep -Eiq "node [0-9]+" "$out"' "pmixrun did not name the lost node"
        ;;
    pmixrun-kill) ;;
    stop-timeout)
        expect '[ "$rc" -eq 124 ]' "exit status $rc, want 124 (--timeout)"
        ;;
    esac
}

# one_round I: a random layout and action.
one_round() {
    local i=$1 nodes n action rec="" tmo=60 t_act dt
    nodes=$((1 + RANDOM % 3))
    n=$((nodes + 3 + RANDOM % 3))
    local acts=(rank-kill rank-stop pmixrun-kill stop-timeout)
    [ "$nodes" -gt 1 ] && acts+=(daemon-kill daemon-stop daemon-kill)
    action=$(pick "${acts[@]}")
    case $action in rank-kill | daemon-kill)
        [ $((RANDOM % 2)) = 0 ] && rec=--enable-recovery ;;
    esac
    [ "$action" = stop-timeout ] && tmo=4
    MARK=$HARNESS_ID.round$i
    tmp=$WORK/tmp$i
    out=$WORK/out$i
    mkdir -p "$tmp"
    : >"$out"
    why=""
    victim=""
    local name="round $i: -n $n --nodes $nodes $rec $action"
    # pmixrun and everything it starts carry the marker (and the harness's dump
    # settings); the scratch tree goes to $tmp.
    HARNESS_CASE=$MARK PMIX_RS_DUMP_SIGNAL=$HARNESS_DUMP_SIGNAL \
        PMIX_RS_DUMP_DIR=$HARNESS_LOG/round$i TMPDIR=$tmp \
        "$PMIXRUN" --timeout "$tmo" $rec --nodes "$nodes" -n "$n" \
        "$CHAOS/chaosloop" "$ITERS" spawn >"$out" 2>&1 &
    job=$!
    HARNESS_JOB=$job
    HANG_REPORT=""
    if wait_started "$n" 30; then
        sleep "0.$((RANDOM % 3))$((RANDOM % 10))"
        t_act=$(now_ms)
        kill -0 "$job" 2>/dev/null ||
            expect 'false' "the job ended before the $action (raise CHAOS_ITERS: $ITERS rounds are too few here)"
        act "$action"
        # A stopped process makes the job late, not failed: its rest may take a while.
        case $action in
        *-stop) wait_gone "$job" $((BOUND + 40)) ;;
        *) wait_gone "$job" $((BOUND + (tmo < 60 ? tmo : 0))) ;;
        esac
        dt=$(($(now_ms) - t_act))
        expect '[ "$rc" -ne 999 ]' "the job did not end within $BOUND s of the $action"
        judge "$action"
    else
        wait_gone "$job" 1
        expect 'false' "the ranks did not all start within 30 s (exit status $rc)"
        dt=0
    fi
    if [ "$rc" = 999 ]; then
        report_and_kill "$BOUND"
        kill -KILL "$job" 2>/dev/null
        wait "$job" 2>/dev/null
    fi
    HARNESS_JOB=""
    if [ "$action" = pmixrun-kill ]; then
        nothing_left_procs_only
        cleaner_run
    fi
    nothing_left
    verdict "$name [$victim] ended ${dt} ms after, status $rc" "$why"
    rm -rf "$tmp" "$out"
}

# cleaner_run: after pmixrun-kill, one `pmixrun -n 1 true` in the round's TMPDIR (it
# removes the trees of dead pmixruns), through the harness's run_job (20 s bound).
cleaner_run() {
    local round_out=$out
    out=$WORK/cleaner
    run_job 20 -- env TMPDIR="$tmp" "$PMIXRUN" -n 1 true
    cat "$out" >>"$round_out"
    out=$round_out
    expect '[ "$HUNG" = 0 ]' "pmixrun -n 1 true in the round's TMPDIR hung (report: $HANG_REPORT)"
}

# After pmixrun-kill: the processes must go by themselves within BOUND s.
nothing_left_procs_only() {
    local i left
    for ((i = 0; i < BOUND * 20; i++)); do
        left=$(marked "$MARK")
        [ -z "$left" ] && return
        sleep 0.05
    done
    expect 'false' "$BOUND s after pmixrun was killed these still run: $(for p in $left; do
        tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null; echo -n "($p); "; done)"
    report_and_kill "$BOUND"
}

# Not random: one rank spawning 112 jobs one after the other (each spawned job's scratch
# tree must go when it ends; before, the 100th spawn failed with "no free scratch
# directory name" and the trees stayed until the whole job ended).
spawn_many() {
    tmp=$WORK/tmp-spawn
    mkdir -p "$tmp"
    why=""
    # The harness's run_job: a hang (60 s) gets its report before the kill; processes
    # still running 2 s after the end are killed and counted (LEFT).
    run_job 60 -- env TMPDIR="$tmp" "$PMIXRUN" -n 1 "$CHAOS/chaosloop" 900 spawn
    MARK=${HARNESS_MARK#HARNESS_CASE=}
    expect '[ "$HUNG" = 0 ]' "hang: still running after 60 s (killed)"
    expect '[ "$rc" -eq 0 ]' "exit status $rc, want 0"
    expect '[ "$LEFT" = 0 ]' "$LEFT processes left behind (killed)"
    nothing_left
    verdict "one rank spawns 112 jobs in turn; nothing left" "$why"
    rm -rf "$tmp"
}
spawn_many

for ((r = 1; r <= ROUNDS; r++)); do
    one_round "$r"
done
harness_end "seed $SEED"
