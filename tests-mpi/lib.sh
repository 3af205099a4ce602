# lib.sh: what tests-mpi/run.sh (Open MPI 4.1.4 under mpirun) and tests-mpi/ompi5.sh (Open
# MPI 5 under pmixrun) share, sourced by both after they set ROOT and PMIX_LIB:
#
#   mpi_begin AREA        the work and log directories (WORK, LOG_DIR), the shared harness
#                         (tools/harness.sh) with AREA, PMIX_LIB resolved, the EXIT/INT/TERM
#                         traps (mpi_cleanup, then the runner's mpi_cleanup_more if it
#                         defines one)
#   mpi_lddir             LDDIR, the ldpath modes' directory
#   set_mode MODE [NAME=VALUE...]
#                         MODE_ENV (the variables that swap the library in, plus the extra
#                         ones) and MODE_X (the same as mpirun -x options)
#   mpi_case NAME SECS WANT_RC MIN_PROCS -- COMMAND...
#                         one case through the harness's run_job, output in
#                         LOG_DIR/NAME.log; sets WHY from the exit status, FAIL lines, the
#                         number of "who=self" proof lines (MIN_PROCS) and processes left
#                         behind, or is skipped after MAX_HANGS hangs (counted as failed;
#                         returns 1). The runner adds its own checks to WHY, then calls
#   mpi_verdict NAME      the harness's verdict, a failing case explained by first_error
#                         (VERBOSE=1: the whole log too)
#   mpi_end NOTE          the closing line ("AREA: N passed, M failed (NOTE)") and the list
#                         of failed cases; the exit status is the verdict
#
# Settings: MAX_HANGS (3), LOG_DIR (kept; default a temporary directory, removed when all
# passed unless KEEP_LOGS=1), VERBOSE=1.

MAX_HANGS=${MAX_HANGS:-3}
HANGS=0

mpi_begin() {
    WORK=$(mktemp -d "/tmp/pmix-$1.XXXXXX")
    LOG_DIR=${LOG_DIR:-$WORK/logs}
    mkdir -p "$LOG_DIR"
    # The shared harness: every process a case starts carries its HARNESS_CASE marker; a
    # case still running at its limit gets a hang report (debug dumps of our library's
    # processes, every thread's stacks) before it is killed, and processes still alive
    # after a case (a daemonized orted) are found by the marker and killed.
    AREA=$1
    HARNESS_LOG=$LOG_DIR/harness
    HARNESS_EXPLAIN=mpi_explain
    # shellcheck source=tools/harness.sh
    . "$ROOT/tools/harness.sh"
    trap mpi_cleanup EXIT
    # Also on INT/TERM (timeout -k sends TERM first): exiting runs the EXIT trap.
    trap 'exit 130' INT
    trap 'exit 143' TERM
    PMIX_LIB=$(readlink -f "$PMIX_LIB")
    [ -f "$PMIX_LIB" ] || { echo "$AREA: no such library: $PMIX_LIB" >&2; exit 2; }
}

# mpi_lddir: LDDIR, a directory holding only a libpmix.so.2 symlink to PMIX_LIB (the
# ldpath modes).
mpi_lddir() {
    LDDIR=$WORK/ldpath
    mkdir -p "$LDDIR"
    ln -s "$PMIX_LIB" "$LDDIR/libpmix.so.2"
}

mpi_cleanup() {
    harness_cleanup
    if declare -F mpi_cleanup_more >/dev/null; then mpi_cleanup_more; fi
    if [ "${KEEP_LOGS:-0}" = 1 ] || [ "$fail" != 0 ] || [ "$LOG_DIR" != "$WORK/logs" ]; then
        [ "$LOG_DIR" = "$WORK/logs" ] && echo "logs kept in $LOG_DIR"
        find "$WORK" -mindepth 1 -maxdepth 1 ! -name logs -exec rm -rf {} +
    else
        rm -rf "$WORK"
    fi
}

set_mode() {
    MODE=$1
    shift
    MODE_ENV=()
    MODE_X=()
    case $MODE in
        preload*) MODE_ENV+=("LD_PRELOAD=$PMIX_LIB") MODE_X+=(-x LD_PRELOAD) ;;
        ldpath*) MODE_ENV+=("LD_LIBRARY_PATH=$LDDIR") MODE_X+=(-x LD_LIBRARY_PATH) ;;
        bundled*) ;; # the program's own libpmix (an OpenPMIx client under our server)
        *) echo "$AREA: unknown mode $MODE" >&2; exit 2 ;;
    esac
    case $MODE in
        *+bindnow) MODE_ENV+=(LD_BIND_NOW=1) MODE_X+=(-x LD_BIND_NOW) ;;
    esac
    local kv
    for kv in "$@"; do MODE_ENV+=("$kv") MODE_X+=(-x "${kv%%=*}"); done
}

# first_error LOG: the lines of a log that best explain a failure: loader and crash
# messages first, then failed checks, then other error lines; the tail of the log if
# none of these.
first_error() {
    local lines
    lines=$({
        grep -E 'undefined symbol|symbol lookup error|Segmentation|core dumped|panicked' "$1"
        grep -E '^FAIL' "$1"
        grep -v '^ok ' "$1" | grep -E 'rror|PMIx|PMIX|not found|Not found|failed|hang'
    } | awk '!seen[$0]++' | head -n 4)
    if [ -n "$lines" ]; then
        echo "$lines"
    elif [ -s "$1" ]; then
        tail -n 4 "$1"
    else
        echo "(no output at all; tests-mpi/pmix-calls.sh shows the last PMIx_* call of each process)"
    fi
}

mpi_explain() {
    first_error "$1"
    if [ "${VERBOSE:-0}" = 1 ]; then sed 's/^/> /' "$1"; fi
}

mpi_case() {
    local name=$1 secs=$2 want=$3 nproc=$4
    shift 5
    out=$LOG_DIR/${name//\//_}.log
    WHY=""
    if [ "$HANGS" -ge "$MAX_HANGS" ]; then
        : >"$out"
        HANG_REPORT=""
        HARNESS_EXPLAIN=: verdict "$name" "skipped (after $HANGS hangs)"
        return 1
    fi
    run_job "$secs" -- "$@"
    local self
    self=$(grep -c '^pmixlib .* who=self ' "$out")
    if [ "$HUNG" = 1 ]; then
        WHY="hang: still running after ${secs} s (killed)"
        HANGS=$((HANGS + 1))
    elif [ "$rc" != "$want" ]; then
        WHY="exit status $rc, want $want"
    elif grep -q '^FAIL' "$out"; then
        WHY="$(grep -c '^FAIL' "$out") failed checks"
    elif [ "$self" -lt "$nproc" ]; then
        WHY="only $self of $nproc processes proved their libpmix"
    elif [ "$LEFT" != 0 ]; then
        WHY="$LEFT processes still running after the job ended (killed)"
    fi
    return 0
}

mpi_verdict() {
    verdict "$1 (${SECS_TAKEN} s)" "$WHY"
}

mpi_end() {
    harness_end "$1"
}
