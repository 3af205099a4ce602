#!/usr/bin/env bash
# run.sh: the multi-node scenarios, run by pmixrun --nodes K (see mk/multinode.mk). One
# ok/FAIL line per case, the output of a failing case below it, and a closing
# "N passed, M failed". The exit status is the verdict; every case runs through
# tools/harness.sh: a hang is a failure, reported before it is killed.
#
# Environment (set by mk/multinode.mk):
#   PMIXRUN   the launcher       MN   directory of the built multinode scenarios
#   RT        the runtime scenarios (reused across nodes)       HELLO   the example job
#   PEERS     the peers programs (tests-peers/)
#   TIMEOUT   e.g. "timeout -s KILL"
set -u
: "${PMIXRUN:?}" "${MN:?}" "${RT:?}" "${HELLO:?}" "${PEERS:?}" "${TIMEOUT:?}"
AREA=multinode
. "$(dirname "$0")/../../tools/harness.sh"
PR=("$PMIXRUN" --timeout 40)
DELTA=PMIX_MCA_pmix_server_fence_delta_modex
out2=$(mktemp)
trap 'rm -f "$out2"' EXIT
# The servers' delta-modex setting comes from each case, never from the caller.
unset "$DELTA"

# pmixrun's block placement: ranks on node i of K for N ranks.
count() { echo $(($2 / $3 + ($1 < $2 % $3 ? 1 : 0))); }
# Direct-modex requests when every node fetches every remote rank once.
remote_fetches() {
    local n=$1 k=$2 i s=0
    for ((i = 0; i < k; i++)); do s=$((s + n - $(count "$i" "$n" "$k"))); done
    echo "$s"
}

# --- the bench itself ---
check "help documents the multi-node test bench" 0 'Multi-node test bench' 60 -- "$PMIXRUN" --help
check "--nodes needs a rank per node" 2 'needs at least 3 processes' 60 -- "$PMIXRUN" --nodes 3 -n 2 true
check "--node-env names an existing node" 2 'there is no node 2' 60 -- \
    "$PMIXRUN" --nodes 2 -n 2 --node-env 2:A=1 true
check "ranks know their node (2 nodes, 5 ranks)" 0 'node=node1 rank=4' 60 -- \
    "${PR[@]}" --nodes 2 -n 5 sh -c 'echo "node=$PMIX_HOSTNAME rank=$PMIX_RANK"'

# --- node-level keys ---
check "node-level keys (2 nodes, 5 ranks)" 0 '' 60 -- "${PR[@]}" --nodes 2 -n 5 "$MN/layout" 2
check "node-level keys (4 nodes, 16 ranks)" 0 '' 60 -- "${PR[@]}" --nodes 4 -n 16 "$MN/layout" 4
check "node-level keys (3 nodes, 3 ranks)" 0 '' 60 -- "${PR[@]}" --nodes 3 -n 3 "$MN/layout" 3

# --- scopes, collecting fence and direct modex ---
check "scopes across nodes, collecting fence (2 nodes, 8 ranks)" 0 '' 60 -- \
    "${PR[@]}" --nodes 2 -n 8 "$MN/scopes" 2 collect
check "scopes across nodes, collecting fence (4 nodes, 16 ranks)" 0 '' 60 -- \
    "${PR[@]}" --report-modex --nodes 4 -n 16 "$MN/scopes" 4 collect
why=""
n=$(grep -c 'direct modex' "$out")
[ "$n" -eq 0 ] || why="$n direct-modex requests after a collecting fence"
verdict "a collecting fence needs no direct modex" "$why"
run_job 60 -- "${PR[@]}" --report-modex --nodes 3 -n 7 "$MN/scopes" 3 nocollect
why=""
want=$(remote_fetches 7 3)
got=$(grep -c 'pmixrun: direct modex' "$out")
if [ "$rc" -ne 0 ]; then
    why="exit status $rc"
elif [ "$got" -ne "$want" ]; then
    why="$got direct-modex requests, want $want (each node fetches each remote rank once)"
fi
verdict "scopes across nodes through direct modex, fetched once per node (3 nodes, 7 ranks)" "$why"
check "a Get waits for data not yet committed on another node, bounded by PMIX_TIMEOUT" 0 '' 60 -- \
    "${PR[@]}" --nodes 2 -n 4 "$MN/dmodex_wait"

# --- deletions ---
check "deletion across nodes (3 nodes, 6 ranks)" 0 '' 60 -- "${PR[@]}" --nodes 3 -n 6 "$MN/deletion" 3
check "deletion across nodes with delta modex (2 nodes, 4 ranks)" 0 '' 60 -- \
    env "$DELTA=1" "${PR[@]}" --nodes 2 -n 4 "$MN/deletion" 2

# --- delta modex ---
# The same sequence with delta modex off (the default: variable unset) and on: every
# value checked in the program, the digests of what was read compared, and the last
# collecting fence's contribution compared (100 keys, 1 changed per fence).
nf=5
last=$((2 * nf - 1)) # collecting fences are 1, 3, ...; each is followed by a barrier
run_job 60 -- "${PR[@]}" --report-modex --nodes 4 -n 8 "$MN/delta" 100 "$nf"
rc_off=$rc
hang_off=$HANG_REPORT
cp "$out" "$out2"
run_job 60 -- env "$DELTA=1" "${PR[@]}" --report-modex --nodes 4 -n 8 "$MN/delta" 100 "$nf"
rc_on=$rc
HANG_REPORT=${HANG_REPORT:-$hang_off}
total() { sed -n "s/^pmixrun: fence $last over .*total \([0-9]*\) bytes$/\1/p" "$1"; }
full=$(total "$out2")
delta=$(total "$out")
why=""
if [ "$rc_off" -ne 0 ] || [ "$rc_on" -ne 0 ]; then
    why="exit status $rc_off (delta off), $rc_on (delta on)"
    [ "$rc_off" -ne 0 ] && cp "$out2" "$out"
elif ! diff <(grep '^digest' "$out2" | sort) <(grep '^digest' "$out" | sort) >/dev/null; then
    why="the values read differ between delta modex off and on"
elif [ "$(grep -c '^digest' "$out")" -ne $((8 * nf)) ]; then
    why="not every rank reported every fence"
fi
verdict "delta modex on and off deliver the same values (4 nodes, 8 ranks, $nf fences)" "$why"
why=""
if [ -z "$full" ] || [ -z "$delta" ]; then
    why="no report of fence $last"
elif [ $((full)) -lt $((20 * delta)) ]; then
    why="full contribution $full bytes, delta $delta bytes: less than 20x smaller"
fi
verdict "delta contribution ${delta:-?} bytes vs full ${full:-?} bytes (at least 20x smaller)" "$why"
check "servers with different delta settings fail the collecting fence with BAD_PARAM" 0 '' 60 -- \
    "${PR[@]}" --nodes 2 -n 4 --node-env "1:$DELTA=1" "$MN/mixed" 2
check "same, 3 nodes, the odd one out turned off" 0 '' 60 -- \
    env "$DELTA=1" "${PR[@]}" --nodes 3 -n 6 --node-env "2:$DELTA=0" "$MN/mixed" 3

# --- events, aborts, lost clients, the runtime scenarios across nodes ---
check "an event reaches every node (4 nodes, 8 ranks)" 0 '' 60 -- "${PR[@]}" --nodes 4 -n 8 "$MN/notify"
check "PMIx_Abort on another node kills the job with its status" 7 \
    'rank 1 called PMIx_Abort with status 7' 60 -- "${PR[@]}" --nodes 4 -n 4 "$RT/abort"
check "exit without PMIx_Finalize on another node fails the job" 1 \
    'rank 0 called PMIx_Init but exited without calling PMIx_Finalize' 60 -- \
    "${PR[@]}" --nodes 3 -n 3 "$RT/no_finalize"
# Rank 2 kills its node's server (the daemon's pid ends its rendezvous directory's name).
# Either message is right: the server may die before or after its other rank (3) was set up.
check "a node whose server dies fails the job" 1 \
    "the PMIx server of node 1 failed|node 1's server did not answer" 60 -- \
    "${PR[@]}" --nodes 2 -n 4 sh -c 'if [ "$PMIX_RANK" = 2 ]; then d=${PMIX_RS_SERVER_URI%/sock};
        kill -9 "${d##*.}"; fi; sleep 30'
check "fences over subsets across nodes (3 nodes, 7 ranks)" 0 ' 0 failed' 60 -- \
    "${PR[@]}" --nodes 3 -n 7 "$RT/fence_subset"
check "Fence_nb and Get_nb across nodes (2 nodes, 4 ranks)" 0 ' 0 failed' 60 -- \
    "${PR[@]}" --nodes 2 -n 4 "$RT/fence_nb"
check "MPMD across nodes" 0 ' 0 failed' 60 -- \
    "${PR[@]}" --nodes 2 -n 2 "$RT/mpmd" 0 2 0 : -n 3 "$RT/mpmd" 1 3 2
# --- host upcalls the front end serves for every node ---
check "publish/lookup/unpublish across nodes (2 nodes, 4 ranks)" 0 ' 0 failed' 60 -- \
    "${PR[@]}" --nodes 2 -n 4 "$MN/pubsub" 2
check "publish/lookup/unpublish across nodes (4 nodes, 8 ranks)" 0 ' 0 failed' 60 -- \
    "${PR[@]}" --nodes 4 -n 8 "$MN/pubsub" 4
check "PMIx_Log to stderr from another node reaches pmixrun's output" 0 \
    '^mn-log rank 3 node node1$' 60 -- "${PR[@]}" --nodes 2 -n 4 "$MN/log"
check "PMIx_Log to stdout from another node reaches pmixrun's output" 0 \
    '^mn-log rank 7 node node3$' 60 -- "${PR[@]}" --nodes 4 -n 8 "$MN/log" stdout
check "PMIx_Job_control signals a rank on another node (2 nodes, 4 ranks)" 0 ' 0 failed' 60 4 -- \
    "${PR[@]}" --nodes 2 -n 4 "$MN/jctrl"
check "PMIx_Process_monitor of ranks on other nodes: updates, cancel, finalize ends it (2 nodes, 4 ranks)" \
    0 ' 0 failed' 60 4 -- "${PR[@]}" --nodes 2 -n 4 "$MN/monitor"
check "heartbeat and file alerts reach the watched rank's namespace, not the rank (one node)" \
    0 ' 0 failed' 60 2 -- "${PR[@]}" -n 2 "$MN/liveness"
check "heartbeat and file alerts cross nodes (2 nodes, 2 ranks)" \
    0 ' 0 failed' 60 2 -- "${PR[@]}" --nodes 2 -n 2 "$MN/liveness"
# Rank 2 stops node 1's daemon, rank 0 asks a monitor there, rank 2 kills the daemon:
# the waiting monitor and the periodic one running there end with PMIX_ERR_UNREACH.
lost=$(mktemp -d)
check "monitors of ranks on a node whose daemon is lost end with PMIX_ERR_UNREACH" \
    1 'monitor_lost.c: [0-9]+ checks, 0 failed' 60 -- \
    env MONITOR_LOST_DIR="$lost" "${PR[@]}" --nodes 2 -n 4 sh -c '
        w() { i=0; while [ ! -e "$MONITOR_LOST_DIR/$1" ] && [ $i -lt 200 ]; do
            sleep 0.1; i=$((i + 1)); done; }
        case $PMIX_RANK in
        0) exec "$0" ;;
        2) d=${PMIX_RS_SERVER_URI%/sock}; w periodic; kill -STOP "${d##*.}";
           touch "$MONITOR_LOST_DIR/stopped"; w asked; sleep 0.5; kill -9 "${d##*.}";
           sleep 30 ;;
        *) sleep 30 ;;
        esac' "$MN/monitor_lost"
rm -rf "$lost"
check "group construct/destruct across nodes, context ids, endpoint data (2 nodes, 4 ranks)" 0 \
    ' 0 failed' 60 -- "${PR[@]}" --nodes 2 -n 4 "$MN/group" 2
check "group construct/destruct across nodes (4 nodes, 8 ranks)" 0 ' 0 failed' 60 -- \
    "${PR[@]}" --nodes 4 -n 8 "$MN/group" 4
# A member that leaves without PMIx_Finalize aborts a construct across nodes for every
# other member, on every node (PMIX_GROUP_CONSTRUCT_ABORT well before its PMIX_TIMEOUT);
# pmixrun's status is the victim's failure (1), tolerated by --enable-recovery.
check "group construct across nodes aborts on every node when a member leaves (2 nodes, 4 ranks)" \
    1 ' 0 failed' 60 3 -- "${PR[@]}" --enable-recovery --nodes 2 -n 4 "$MN/grpfail" 3 during
check "same, the victim on the first node (2 nodes, 4 ranks)" 1 ' 0 failed' 60 3 -- \
    "${PR[@]}" --enable-recovery --nodes 2 -n 4 "$MN/grpfail" 0 during
check "a construct naming a member that already ended aborts at once (3 nodes, 5 ranks)" \
    1 ' 0 failed' 60 4 -- "${PR[@]}" --enable-recovery --nodes 3 -n 5 "$MN/grpfail" 4 after
check "an optional construct forms without the member that ended (2 nodes, 4 ranks)" \
    1 ' 0 failed' 60 3 -- "${PR[@]}" --enable-recovery --nodes 2 -n 4 "$MN/grpfail" 3 optional
# The same while the construct is under way: the nodes whose members entered first sent
# their parts naming the victim; the group still forms from the survivors, the same at
# every node (the front end decides the membership), whether the victim shares its node
# with a survivor, is on the first node, or is alone on its node (never sends a part).
check "an optional construct forms when a member ends during it (2 nodes, 4 ranks)" \
    1 ' 0 failed' 60 3 -- "${PR[@]}" --enable-recovery --nodes 2 -n 4 "$MN/grpfail" 3 during-optional
check "same, optional, the victim on the first node (2 nodes, 4 ranks)" 1 ' 0 failed' 60 3 -- \
    "${PR[@]}" --enable-recovery --nodes 2 -n 4 "$MN/grpfail" 0 during-optional
check "same, optional, the victim alone on its node (3 nodes, 4 ranks)" 1 ' 0 failed' 60 3 -- \
    "${PR[@]}" --enable-recovery --nodes 3 -n 4 "$MN/grpfail" 3 during-optional
# A node whose server dies, with --enable-recovery: the job goes on without the node; its
# rank is lost (killed), the construct waiting for it aborts on the other nodes and they
# hear of the rank's end (group_daemon_fail's scenario; without recovery, see above).
check "a node's server dies mid-construct: the others' construct aborts, the job goes on (3 nodes, 4 ranks)" \
    1 'grpfail.c: 8 checks, 0 failed' 60 3 -- \
    "${PR[@]}" --enable-recovery --nodes 3 -n 4 "$MN/grpfail" 3 daemon
why=""
grep -Eq 'the PMIx server of node 2 failed: .*continuing \(--enable-recovery\)' "$out" ||
    why="no line reports the node's failure and goes on"
verdict "same: pmixrun reports the node's failure and goes on" "$why"
# A job spawned on a node that is then lost (--enable-recovery): pmixrun kills its processes
# with the node's (they would run on, their server gone), a fence of another node's rank
# with them fails at once instead of waiting for them, and pmixrun reports the spawned
# job's loss as the job's. Nothing of the run may be left behind.
for k in 2 3; do
    name="a job spawned on a node that is lost is killed with it, the others go on ($k nodes)"
    want_case "$name" || continue
    check "$name" 1 'spawnlost.c: 18 checks, 0 failed' 60 -- \
        "${PR[@]}" --enable-recovery --nodes "$k" -n "$k" "$MN/spawnlost"
    why=""
    if [ "$LEFT" != 0 ]; then
        why="$LEFT processes of the run were left behind"
    elif ! grep -Eq "spawned job [^ ]+: the PMIx server of node $((k - 1)) failed: .*continuing \(--enable-recovery\)" "$out"; then
        why="no line reports the spawned job's loss with the node"
    fi
    verdict "same: pmixrun reports the spawned job's loss, nothing is left behind ($k nodes)" "$why"
done
# Invitations whose invitees another node's server hosts: the answers travel to the
# leader's server, the completion (or abort) back to the invitees' servers.
check "invite across nodes: leader outside the group, context id, abort for all (2 nodes, 4 ranks)" \
    0 ' 0 failed' 60 4 -- "${PR[@]}" --nodes 2 -n 4 "$PEERS/invite"
check "invite across nodes (3 nodes, 5 ranks)" 0 ' 0 failed' 60 5 -- \
    "${PR[@]}" --nodes 3 -n 5 "$PEERS/invite"
check "a rank's exit on another node is told to the others (PMIX_ERR_PROC_ABORTED, 3 nodes)" \
    3 ' 0 failed' 30 2 -- "${PR[@]}" --nodes 3 -n 3 "$PEERS/fault_notice"
# An event raised before another rank registers its handler (or even connects) reaches
# that handler once it registers, on every node (the alloc example's race, made certain).
check "an event reaches a handler registered after it was raised, on every node (3 nodes, 6 ranks)" \
    0 ' 0 failed' 60 6 -- "${PR[@]}" --nodes 3 -n 6 "$MN/lateev" register
check "an event reaches a rank that connects after it was raised, on every node (3 nodes, 6 ranks)" \
    0 ' 0 failed' 60 6 -- "${PR[@]}" --nodes 3 -n 6 "$MN/lateev" connect
check "a --pset set reaches a late PMIX_PROCESS_SET_DEFINE handler on every node" \
    0 ' 0 failed' 30 2 -- "${PR[@]}" --nodes 2 -n 2 --pset late.set "$PEERS/pset_late"
check "bootstrap construct, leaders and added members on different nodes (2 nodes, 4 ranks)" \
    0 ' 0 failed' 60 4 -- "${PR[@]}" --nodes 2 -n 4 "$MN/bootstrap" 2
check "bootstrap construct with a node that has no leader (3 nodes, 6 ranks)" \
    0 ' 0 failed' 60 6 -- "${PR[@]}" --nodes 3 -n 6 "$MN/bootstrap" 3
# An added member leaves without PMIx_Finalize instead of joining; the leaders said
# PMIX_GROUP_OPTIONAL: the group forms without it on every node (--enable-recovery).
check "optional bootstrap construct forms without an added member that ended (2 nodes, 4 ranks)" \
    1 ' 0 failed' 60 3 -- "${PR[@]}" --enable-recovery --nodes 2 -n 4 "$MN/bootstrap" 2 lost
check "same, optional bootstrap (3 nodes, 6 ranks)" 1 ' 0 failed' 60 5 -- \
    "${PR[@]}" --enable-recovery --nodes 3 -n 6 "$MN/bootstrap" 3 lost
check "PMIx_Spawn from node 1, then connect parent and child jobs (2 nodes, 4 ranks)" 0 \
    ' 0 failed' 60 6 -- "${PR[@]}" --nodes 2 -n 4 "$MN/spawn"
check "PMIx_Spawn from node 3, then connect parent and child jobs (4 nodes, 8 ranks)" 0 \
    ' 0 failed' 60 10 -- "${PR[@]}" --nodes 4 -n 8 "$MN/spawn"
check "hello example (2 nodes, 4 ranks)" 0 '^rank 3/4 .*host=node1 .*neighbour 0 says "hello from rank 0' 60 -- \
    "${PR[@]}" --nodes 2 -n 4 "$HELLO"

harness_end
