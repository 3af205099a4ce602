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
#   MPI_BIN  tests-mpi programs (mpi_hello, mpi_ring), built by mpicc
set -u
: "${OURS:?}" "${CLIENT:?}" "${MPI_BIN:?}"
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

harness_end
