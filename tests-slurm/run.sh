#!/usr/bin/env bash
# run.sh: Slurm 22.05 jobs (srun --mpi=pmix) on a private loopback cluster (cluster.sh), one
# node and two nodes. One ok/FAIL line per case, the output of a failing case below it, and
# a closing "N passed, M failed"; the exit status is the verdict.
#
# Environment (set by mk/slurm.mk):
#   PMIX_LIB  our libpmix.so.2: preloaded in slurmd n1..n3 (and so in slurmstepd) and every
#             rank. Empty: Debian's libpmix on both sides, one-node cases only. Node n4
#             (partition "plain") is never preloaded: group "plain" runs our ranks under
#             Slurm's plugin on Debian's OpenPMIx server, as at a site.
#   HELLO RT MN MPI_BIN CLIENT   the programs (tests-c/hello, runtime, multinode,
#             tests-mpi, tests-slurm/slurm_client)
#   OPX       tests-c/v41server/mixed.c built on Debian's OpenPMIx 4.2.2 (group opx;
#             left out when unset)
# Arguments: case groups to run (default all): info hello putget dmodex mpi abort kill
#   timeout plain opx. Every case runs through the shared harness (tools/harness.sh): a case that
#   outlives its bound is a hang; the harness's report (debug dumps of our processes,
#   every thread's stacks of srun, every slurmstepd and rank) is printed, then they are
#   killed and the case fails.
set -u
cd "$(dirname "$0")"
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null \
    || ! command -v srun >/dev/null || ! command -v munged >/dev/null; then
    echo "skip slurm-check: slurm-wlm or munge is not installed (apt-get install slurm-wlm munge)"
    exit 0
fi
: "${HELLO:?}" "${RT:?}" "${MN:?}" "${MPI_BIN:?}" "${CLIENT:?}"
PMIX_LIB=${PMIX_LIB-}
DEBIAN_LIB=/usr/lib/x86_64-linux-gnu/libpmix.so.2
PRELOAD=$PMIX_LIB
RANK_LIB=$(readlink -f "${PMIX_LIB:-$DEBIAN_LIB}")
JOB_ENV=()
# The version our server puts in PMIX_VERSION of its clients.
OUR_VERSION=$(sed -n 's/^pub const VERSION_STRING: &str = "\(.*\)";$/\1/p' \
    ../pmix-core/src/params.rs)
: "${OUR_VERSION:?not found in pmix-core/src/params.rs}"
GROUPS_WANTED=" ${*:-info hello putget dmodex mpi abort kill timeout plain opx} "
# shellcheck source=tests-slurm/cluster.sh
source ./cluster.sh
AREA=slurm
# shellcheck source=tools/harness.sh
. ../tools/harness.sh

on_exit() {
    cluster_stop
    harness_cleanup
}
trap on_exit EXIT
trap 'echo "run.sh: interrupted"; exit 130' INT TERM

# Kill every slurmstepd and rank of ours (after a hang: the harness has their stacks).
kill_jobs() {
    scancel --quiet --full --user=root >/dev/null 2>&1
    # shellcheck disable=SC2046
    stop_pids KILL $(job_pids)
}

# job NAME WANT PATTERN COUNT LIMIT -- SRUN-ARGS...
# Runs srun --mpi=pmix SRUN-ARGS (ranks preloaded with RANK_LIB, or RANK_PRELOAD when set,
# empty for none; srun's environment plus
# the NAME=VALUE entries of JOB_ENV exported to them) for at most LIMIT seconds
# and wants its exit status (a number, or "nz" for any failure), and COUNT lines matching
# the extended regular expression PATTERN (COUNT 0: at least one; PATTERN empty: none).
job() {
    local name=$1 want=$2 pattern=$3 count=$4 limit=$5
    shift 6
    local why=""
    # The harness's run_job: srun and the ranks carry the case's marker (--export=ALL);
    # the slurmstepds do not (job_pids finds them): after a hang all of them get the
    # report and are killed. Ranks may outlive srun for 15 s before counting as left.
    HARNESS_EXTRA_PIDS=job_pids HARNESS_LINGER=15 run_job "$limit" -- \
        env "${JOB_ENV[@]}" "${SRUN[@]}" --mpi=pmix --time=2 \
        --export="ALL,LD_PRELOAD=${RANK_PRELOAD-$RANK_LIB}" "$@"
    if [ "$HUNG" = 1 ]; then
        kill_jobs
        # Beside the hang report: what the step printed and what Slurm logged (a task
        # that never started or died early shows there, not in the stacks).
        mkdir -p "$CASE_DIR"
        cp "$out" "$CASE_DIR/output" 2>/dev/null
        [ -z "$SD" ] || cp "$SD"/log/*.log "$CASE_DIR/" 2>/dev/null
        verdict "$name" "hung (no end within $limit s; output and Slurm's logs in $CASE_DIR)"
        return
    fi
    local n=0
    [ -z "$pattern" ] || n=$(grep -Ec -- "$pattern" "$out")
    if [ "$want" = nz ] && [ "$rc" -eq 0 ]; then
        why="exit status 0, want a failure"
    elif [ "$want" != nz ] && [ "$rc" -ne "$want" ]; then
        why="exit status $rc, want $want"
    elif [ -n "$pattern" ] && [ "$count" -eq 0 ] && [ "$n" -eq 0 ]; then
        why="no line matches /$pattern/"
    elif [ -n "$pattern" ] && [ "$count" -gt 0 ] && [ "$n" -ne "$count" ]; then
        why="$n lines match /$pattern/, want $count"
    fi
    # Nothing of the step may outlive srun for long: its ranks (the harness counted and
    # killed those still running 15 s after srun), its slurmstepds.
    if [ -z "$why" ] && [ "$LEFT" != 0 ]; then
        why="$LEFT ranks still running 15 s after the step (killed)"
    elif [ -z "$why" ] && ! wait_for 15 no_job_pids; then
        why="processes left after the step: $(job_pids | tr '\n' ' ')"
        mkdir -p "$CASE_DIR"
        HARNESS_EXTRA_PIDS=job_pids hang_report none "$CASE_DIR" "15 (after srun ended)"
        HANG_REPORT=$CASE_DIR/hang-report
        kill_jobs
    fi
    # Slurm's plugin now and then fails to open its own TCP connection between two
    # slurmstepd (about one two-node job in a hundred here, its log line below): that case
    # runs once more, said so, and counts by its second run.
    if [ -n "$why" ] && [ -z "${JOB_RETRY:-}" ] \
        && grep -q 'Cannot establish direct connection' "$out"; then
        echo "note $name: $(grep -m1 'Cannot establish direct connection' "$out"); once more"
        JOB_RETRY=1 job "$name" "$want" "$pattern" "$count" "$limit" -- "$@"
        return
    fi
    verdict "$name" "$why"
}

no_job_pids() { [ -z "$(job_pids)" ]; }
want_group() { [[ $GROUPS_WANTED == *" $1 "* ]]; }

# The -N/-n shapes: one node always; two nodes only with our library on both sides (and
# SLURM_TWO_NODES not 0).
SHAPES_1="1:1 1:2 1:4 1:8"
SHAPES_2="2:2 2:5 2:8"
two_nodes() { [ -n "$PMIX_LIB" ] && [ "${SLURM_TWO_NODES:-1}" != 0 ]; }
two() { if two_nodes; then echo "$@"; fi; }
shapes() { echo "$SHAPES_1 $(two "$SHAPES_2")"; }

if ! cluster_start; then
    verdict "cluster starts (munged, slurmctld, 3 slurmd)" "did not start"
    harness_end
    exit 1
fi
verdict "cluster starts (munged, slurmctld, 3 slurmd)" ""
echo "# libpmix: slurmstepd ${PMIX_LIB:-the Debian one, no preload} (n4: the Debian one), ranks $RANK_LIB"
source ./cases.sh

harness_end
