#!/usr/bin/env bash
# run.sh: hostile clients, resources and socket hygiene against a live server (see
# mk/hostile.mk and docs/ROBUSTNESS.md). One ok/FAIL line per case, the output of a
# failing case below it, a closing "N passed, M failed"; the exit status is the verdict.
# Every case runs through tools/harness.sh: a hang is a failure, reported
# before it is killed.
#
# Environment (set by mk/hostile.mk):
#   PMIXRUN  the launcher      BIN   directory of rank and host      PEER  hostile_peer
#   TIMEOUT  e.g. "timeout -s KILL"
#   HOSTILE_ONLY=regex   run only the cases whose name matches (for repeated runs)
set -u
: "${PMIXRUN:?}" "${BIN:?}" "${PEER:?}" "${TIMEOUT:?}"
HARNESS_ONLY=${HOSTILE_ONLY:-}
# A private TMPDIR for every job (world-searchable like /tmp, so the test sees which
# directory below it keeps other users out); the peer is copied where user nobody can
# run it.
work=$(mktemp -d)
chmod 0755 "$work"
mkdir -p "$work/tmp" "$work/bin"
chmod 1777 "$work/tmp"
chmod 0755 "$work/bin"
cp "$PEER" "$work/bin/hostile_peer"
chmod 0755 "$work/bin/hostile_peer"
PEER="$work/bin/hostile_peer"
export TMPDIR="$work/tmp"
trap 'rm -rf "$work"' EXIT
AREA=hostile
. "$(dirname "$0")/../../tools/harness.sh"
PR=("$PMIXRUN" --timeout 100)

want() { want_case "$1"; }


# at_least NAME N REGEX: the last case's output has at least N lines matching REGEX.
at_least() {
    want "$1" || return 0
    local n
    n=$(grep -Ec -- "$3" "$out")
    if [ "$n" -ge "$2" ]; then verdict "$1" ""; else verdict "$1" "$n lines match /$3/, want >= $2"; fi
}

# exactly NAME N REGEX: the last case's output has exactly N lines matching REGEX.
exactly() {
    want "$1" || return 0
    local n
    n=$(grep -Ec -- "$3" "$out")
    if [ "$n" -eq "$2" ]; then verdict "$1" ""; else verdict "$1" "$n lines match /$3/, want $2"; fi
}

# ---- part 2: hostile clients -------------------------------------------------------

# Rank 0 runs hostile_peer against the job's own server (and, as root, the same as user
# nobody); rank 1 keeps using the server. pmixrun logs each refusal (PMIX_DEBUG=warn).
check "attacks: garbage, truncated/oversized frames, false identities, floods of connections" 0 '' 90 -- \
    env PMIX_DEBUG=warn HOSTILE_PEER="$PEER" "${PR[@]}" -n 2 "$BIN/rank" attacks
if want "attacks"; then
    refusals=$(sed -n 's/^# refusals expected in the server.s log: at least \([0-9]*\)$/\1/p' "$out")
    at_least "attacks: every refused handshake is logged" "${refusals:-1}" 'refusing connection'
    at_least "attacks: every oversized length prefix is logged" 4 'malformed frame.*exceeds'
    at_least "attacks: every connection cut before its handshake is logged" 5 'closed before its handshake'
    if [ "$(id -u)" = 0 ]; then
        at_least "attacks: the wrong uid is logged" 1 'peer uid 65534 but the client was registered for uid 0'
    else
        echo "SKIP wrong-uid clients: not root"
    fi
fi

# Rank 2 is hostile_peer: a legitimate client that floods its server.
check "flood: 300 x 1 MiB replies not read, 20000 small requests; ranks 0-1 unaffected" 0 '' 90 -- \
    "${PR[@]}" -n 2 "$BIN/rank" flood : -n 1 "$PEER" flood parent

# Rank 0 posts Gets nobody can answer: past the server's per-client cap (64 Ki requests
# or 64 MiB) each is refused with PMIX_ERR_OUT_OF_RESOURCE, logged once; pmixrun's VmHWM
# stays bounded (160 MiB; ~180 MB for the first variant before the cap) while ranks 1-2
# fence and read each other's data (HC10, HC11).
check "parked: 1,000,000 Get_nb nobody answers; cap 64 Ki, OUT_OF_RESOURCE, ranks 1-2 unaffected" 0 '' 120 -- \
    env PMIX_DEBUG=warn "${PR[@]}" -n 3 "$BIN/parked" small 1000000
exactly "parked: the refusal logged once" 1 'waiting for answers, the most a client may'
check "parked: 100,000 Get_nb with 500-byte keys and 1 KiB infos; the 64 MiB cap" 0 '' 120 -- \
    env PMIX_DEBUG=warn "${PR[@]}" -n 3 "$BIN/parked" large 100000
exactly "parked large: the refusal logged once" 1 'waiting for answers, the most a client may'

# The job-data segment is a sealed memory file: rank 0 cannot truncate, grow or write it
# through /proc/<pmixrun>/fd/N while ranks 1-3 read from their mappings (HC12).
check "sealed: the job-data segment resists truncation through /proc/<server>/fd; readers unaffected" 0 '' 60 -- \
    env PMIX_RS_JOB_SEGMENT_MIN=0 "${PR[@]}" -n 4 "$BIN/sealed"

# An accepted client sending a message only the server may send: that connection is
# closed (and the job fails, as for any rank that leaves without finalizing).
check "badreq: a server-only message from a client closes that client" 1 '' 30 -- \
    env PMIX_DEBUG=warn "${PR[@]}" -n 1 "$PEER" badreq
at_least "badreq: logged" 1 'malformed request on connection'

# A C host: a client registered for another uid is refused (the same check as the setpriv
# case above, but without privileges).
check "uid: a client registered for another uid is refused by a C host" 0 '' 30 -- \
    env PMIX_DEBUG=warn "$BIN/host" uid
at_least "uid: logged" 1 'but the client was registered for uid'

# ---- part 5: resources -------------------------------------------------------------

# These count descriptors before the first PMIx_Init and after the last finalize: the
# debug dump (which the harness turns on) keeps its wake-up socket pair for the process's
# life, so it is off here.
check "1000 Init/Finalize cycles under pmixrun (2 ranks)" 0 '' 60 -- \
    env -u PMIX_RS_DUMP_SIGNAL "${PR[@]}" -n 2 "$BIN/rank" cycles 1000
check "1000 Init/Finalize cycles as a singleton" 0 '' 60 -- \
    env -u PMIX_NAMESPACE -u PMIX_RS_DUMP_SIGNAL "$BIN/rank" cycles 1000
check "C host: 10 waves of 100 short-lived clients, no growth" 0 '' 90 -- \
    "$BIN/host" waves 10 100

# pmixrun -n 1000: pmixrun's descriptors, threads and memory sampled while it runs.
if want "1000 ranks"; then
    t0=$(now)
    # The harness's job_start/job_wait: its bound and hang report; the job's pid is
    # pmixrun's own.
    job_start 120 -- "${PR[@]}" -n 1000 "$BIN/rank" tiny
    pid=$HARNESS_JOB
    maxfd=0 maxthr=0 hwm=0
    while [ -n "$pid" ] && [ -d "/proc/$pid" ]; do
        fd=$(ls "/proc/$pid/fd" 2>/dev/null | wc -l)
        thr=$(ls "/proc/$pid/task" 2>/dev/null | wc -l)
        h=$(awk '/^VmHWM/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo 0)
        [ "$fd" -gt "$maxfd" ] && maxfd=$fd
        [ "$thr" -gt "$maxthr" ] && maxthr=$thr
        [ -n "$h" ] && [ "$h" -gt "$hwm" ] && hwm=$h
        sleep 0.1
    done
    job_wait
    secs=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
    echo "# pmixrun -n 1000: ${secs} s, at most $maxfd descriptors, $maxthr threads, VmHWM $hwm KiB" | tee -a "$out"
    why=""
    if [ "$rc" -ne 0 ]; then why="exit status $rc"
    elif [ -z "$pid" ]; then why="pmixrun's pid not found"
    elif [ "$maxthr" -gt 8 ]; then why="$maxthr threads (a thread per rank?)"
    elif [ "$maxfd" -gt 8100 ]; then why="$maxfd descriptors (more than 8 per rank)"
    elif [ "$hwm" -gt 524288 ]; then why="VmHWM $hwm KiB > 512 MiB"
    elif awk -v s="$secs" 'BEGIN { exit !(s > 90) }'; then why="took $secs s"
    fi
    verdict "1000 ranks: pmixrun -n 1000 ($secs s; max $maxfd fds, $maxthr threads, VmHWM $hwm KiB)" "$why"
fi

# ---- part 6: socket hygiene ---------------------------------------------------------

check "hygiene: private rendezvous, no network socket" 0 '' 30 -- \
    "${PR[@]}" -n 2 "$BIN/rank" hygiene
check "hygiene under umask 000" 0 '' 30 -- \
    sh -c 'umask 000; exec "$@"' sh "${PR[@]}" -n 2 "$BIN/rank" hygiene
check "hygiene with --nodes 2 (node daemons)" 0 '' 30 -- \
    "${PR[@]}" --nodes 2 -n 4 "$BIN/rank" hygiene

# A pmixrun SIGKILLed in the middle of a job leaves its directories behind; the next run
# in the same TMPDIR works and removes them.
if want "stale"; then
    why=""
    # A TMPDIR of its own: afterwards it must be empty.
    export TMPDIR="$work/stale"
    mkdir -p "$TMPDIR"
    ready="$work/ready"
    mkdir -p "$ready"
    rm -f "$ready"/*
    job_start 60 -- "$PMIXRUN" -n 2 "$BIN/rank" victim "$ready"
    pid=$HARNESS_JOB
    for _ in $(seq 400); do
        [ -s "$ready/0" ] && [ -s "$ready/1" ] && break
        sleep 0.05
    done
    if [ -z "$pid" ] || ! [ -s "$ready/0" ] || ! [ -s "$ready/1" ]; then
        why="the victim job did not start"
        job_wait
    else
        kill -KILL "$pid"
        job_wait
        # The ranks end with their launcher (it gives them a parent-death signal).
        for r in 0 1; do
            rp=$(cat "$ready/$r")
            for _ in $(seq 400); do [ -d "/proc/$rp" ] || break; sleep 0.05; done
            [ -d "/proc/$rp" ] && why="rank $r (pid $rp) still runs after pmixrun was killed"
        done
        left=$(find "$TMPDIR" -mindepth 1 -maxdepth 1 -name "pmixrun.*.$pid*" | wc -l)
        [ "$left" -ge 1 ] || why="${why:-nothing was left behind (test cannot tell)}"
        socks=$(find "$TMPDIR" -type s | wc -l)
        echo "# left by the SIGKILLed pmixrun $pid: $left scratch tree(s), $socks socket(s)" | tee -a "$out"
    fi
    verdict "stale: a SIGKILLed pmixrun leaves its rendezvous behind" "$why"
    check "stale: the next pmixrun in the same TMPDIR runs" 0 '' 30 -- \
        "${PR[@]}" -n 2 "$BIN/rank" hygiene
    left=$(find "$TMPDIR" -mindepth 1 -maxdepth 1 | wc -l)
    if [ "$left" -eq 0 ]; then verdict "stale: the dead run's directories were removed" ""
    else find "$TMPDIR" -maxdepth 3 >"$out"; verdict "stale: the dead run's directories were removed" "$left entries left in TMPDIR"; fi
    export TMPDIR="$work/tmp"
fi

harness_end
