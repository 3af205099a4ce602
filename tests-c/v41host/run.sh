#!/usr/bin/env bash
# run.sh: our server library under a host of another library's making, and the other way
# round (see mk/v41host.mk). One ok/FAIL line per case, a failing case's output below
# it, and a closing "N passed, M failed"; every case runs through tools/harness.sh (a
# hang is a failure, reported before it is killed).
#
#  1. Debian's Open MPI 4.1.4 with only mpirun/orted on our libpmix.so.2
#     (LD_PRELOAD for mpirun, `-x LD_PRELOAD=` so the ranks keep Debian's OpenPMIx 4.2.2,
#     which then speaks v41 to our server): tests-mpi's hello, ring and spawn at -np 1, 2
#     and 4, each rank proving which library it and its server map; and
#     tests-c/v41host/jobinfo.c (built on Debian's library) checking the job data ORTE
#     registered as an OpenPMIx client reads it (PMIX_APPNUM, PMIX_HOSTNAME, ...).
#  2. tests-c/v41host/host.c, a host built on Debian's OpenPMIx 4.2.2, serving
#     tests-c/v41host/client.c built on ours at 1, 3 and 8 ranks.
#
# Environment (set by mk/v41host.mk):
#   OURLIB    our build/lib/libpmix.so.2        DEBLIB  Debian's libpmix.so.2
#   MPI_BIN   tests-mpi programs (mpicc-built)  BIN     this area's programs
set -u
: "${OURLIB:?}" "${DEBLIB:?}" "${MPI_BIN:?}" "${BIN:?}"
AREA=v41host
. "$(dirname "$0")/../../tools/harness.sh"

# Only mpirun (and the orted it may start) loads ours; the ranks' LD_PRELOAD is emptied.
MPIRUN=(env LD_PRELOAD="$OURLIB" mpirun --allow-run-as-root --oversubscribe -x LD_PRELOAD=)
# Every rank maps Debian's library, its server (mpirun) ours: at least N lines each.
proof() {
    printf '^pmixlib rank=[0-9]+ who=%s pid=[0-9]+ ext3x=1 lib=%s$' "$1" "$2"
}
self_proof=$(proof self "$DEBLIB")
server_proof=$(proof mpirun "$OURLIB")
# mixed NAME SECS NPROCS PATTERN -- CMD...: a case whose output must also prove, at
# least NPROCS times each, a rank on Debian's library and its server (mpirun) on ours.
mixed() {
    local name=$1 secs=$2 n=$3 pat=$4 before=$fail a b
    shift 5
    check "$name" 0 "$pat" "$secs" "$n" -- "$@"
    [ "$fail" = "$before" ] || return 0
    a=$(grep -cE "$self_proof" "$out")
    b=$(grep -cE "$server_proof" "$out")
    if [ "$a" -lt "$n" ] || [ "$b" -lt "$n" ]; then
        verdict "$name: libraries" "$a of $n ranks proved Debian's OpenPMIx mapped, $b of $n their mpirun ours"
    fi
}

for np in 1 2 4; do
    mixed "mpirun on ours: hello -np $np" 60 "$np" "^hello rank=[0-9]+ size=$np " -- \
        "${MPIRUN[@]}" -np "$np" "$MPI_BIN/mpi_hello" "$np"
    if [ "$np" -gt 1 ]; then
        mixed "mpirun on ours: ring -np $np" 60 "$np" "^ring rank=[0-9]+ size=$np$" -- \
            "${MPIRUN[@]}" -np "$np" "$MPI_BIN/mpi_ring"
    fi
    mixed "mpirun on ours: spawn -np $np + 2" 90 "$np" "^spawn parent rank=[0-9]+ size=$np children=2$" -- \
        "${MPIRUN[@]}" -np "$np" "$MPI_BIN/mpi_spawn" 2
    check "mpirun on ours: job data of ORTE's registration, -np $np" 0 \
        'jobinfo.c: [0-9]+ checks, 0 failed' 60 "$np" -- \
        env JOBINFO_NP="$np" "${MPIRUN[@]}" -np "$np" -x JOBINFO_NP "$BIN/jobinfo"
done

for n in 1 3 8; do
    check "Debian-built host serving $n of our clients" 0 '^tests-c/v41host/host.c: [0-9]+ checks, 0 failed$' \
        60 -- "$BIN/host" "$n" "$BIN/client"
done

harness_end
