# cases.sh: the table of cases, sourced by tests-slurm/run.sh once the cluster is up.
# Each shape is NODES:RANKS (srun -N NODES -n RANKS).

# Which libpmix serves the step: the rank's parent is slurmstepd, whose maps show what
# Slurm's plugin can run on (with ours preloaded Debian's is mapped too: the plugin still
# dlopen()s it); PMIX_VERSION is set by the server's PMIx_server_setup_fork, so it names
# the library that really answered the plugin's calls. (slurmstepd's /proc environ is
# its process title, not its environment.)
if want_group info; then
    srun --mpi=list >"$out" 2>&1
    why=""
    grep -qx $'\tpmix' "$out" || why="srun --mpi=list names no pmix plugin"
    grep -q 'pmix_v4' "$out" || why="${why:-srun --mpi=list names no pmix_v4}"
    verdict "srun --mpi=list offers pmix (pmix_v4)" "$why"
    # shellcheck disable=SC2016
    probe='echo "parent=$(cat /proc/$PPID/comm)";
        grep -o "/[^ ]*libpmix\.so[^ ]*" /proc/$PPID/maps | sort -u | sed "s/^/stepd-maps=/";
        grep -o "/[^ ]*libpmix\.so[^ ]*" /proc/self/maps | sort -u | sed "s/^/rank-maps=/";
        echo "version=$PMIX_VERSION"'
    if [ -n "$PMIX_LIB" ]; then
        job "slurmstepd maps ours (preloaded), the rank only ours" 0 \
            "^(stepd-maps=$RANK_LIB|rank-maps=$RANK_LIB)\$" 2 30 \
            -- -N 1 -n 1 sh -c "$probe"
        job "the step's server is ours (PMIX_VERSION from its setup_fork)" 0 \
            "^version=$OUR_VERSION\$" 1 30 -- -N 1 -n 1 sh -c "$probe"
    else
        job "slurmstepd runs Debian's libpmix, no preload" 0 \
            "^(stepd-maps=$(readlink -f /usr/lib/x86_64-linux-gnu/pmix2/lib/libpmix.so)|version=4\.2\..*)\$" \
            2 30 -- -N 1 -n 1 sh -c "$probe"
    fi
    for s in $(shapes); do
        job "job and node info, every peer, collecting fence (-N ${s%:*} -n ${s#*:})" 0 \
            ' 0 failed$' "${s#*:}" 40 -- -N "${s%:*}" -n "${s#*:}" "$CLIENT" info
    done
fi

if want_group hello; then
    for s in $(shapes); do
        job "hello (-N ${s%:*} -n ${s#*:})" 0 "^rank [0-9]+/${s#*:} .*neighbour" "${s#*:}" 40 \
            -- -N "${s%:*}" -n "${s#*:}" "$HELLO"
    done
fi

# One node: every type, collecting or not. Two nodes: a value of every rank; without a
# collecting fence the remote ones come by direct modex (Slurm's dmdx to the other node's
# slurmstepd). (tests-c/multinode/scopes is left out: under Slurm a remote rank's
# out-of-scope keys are not told apart, with OpenPMIx 4.2.2 too.)
if want_group putget; then
    for mode in collect nocollect; do
        job "put/fence($mode)/get of every type (-N 1 -n 4)" 0 ' 0 failed$' 4 60 \
            -- -N 1 -n 4 "$RT/put_get" "$mode"
        for s in $(two 2:4 2:5); do
            job "fence($mode), Get of every rank's value (-N 2 -n ${s#*:})" 0 \
                ' 0 failed$' "${s#*:}" 60 -- -N 2 -n "${s#*:}" "$CLIENT" exchange "$mode"
        done
    done
fi

# A Get that waits for a key committed later. One node only: Slurm's direct-modex request
# names no key, so the other node answers at once with what the rank has committed
# (OpenPMIx 4.2.2 and ours alike: PMIX_ERR_NOT_FOUND at once).
if want_group dmodex; then
    job "a Get waits for a late commit (-N 1 -n 3)" 0 ' 0 failed$' 3 60 \
        -- -N 1 -n 3 "$MN/dmodex_wait"
fi

# Open MPI 4.1.4 (Debian's mpicc programs), launched by srun directly.
MPI_ENV=("MPITEST_PMIX_LIB=$RANK_LIB" OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=lo)
[ -z "$PMIX_LIB" ] || MPI_ENV+=("MPITEST_ENV=LD_PRELOAD=$PMIX_LIB")
# mpi NAME WANT PATTERN COUNT LIMIT EXTRA-ENV -- SRUN-ARGS: job with MPI_ENV (and EXTRA-ENV,
# space-separated NAME=VALUE entries) exported to the ranks.
mpi() {
    local name=$1 want=$2 pattern=$3 count=$4 limit=$5 extra
    read -r -a extra <<<"$6"
    shift 7
    JOB_ENV=("${MPI_ENV[@]}" "${extra[@]}")
    job "$name" "$want" "$pattern" "$count" "$limit" -- "$@"
    JOB_ENV=()
}
if want_group mpi; then
    for s in $(shapes); do
        n=${s#*:}
        mpi "MPI hello/allreduce (-N ${s%:*} -n $n)" 0 "^hello rank=[0-9]+ size=$n " "$n" 60 "" \
            -- -N "${s%:*}" -n "$n" "$MPI_BIN/mpi_hello" "$n"
        mpi "MPI ring (-N ${s%:*} -n $n)" 0 "^ring rank=[0-9]+ size=$n\$" "$n" 60 "" \
            -- -N "${s%:*}" -n "$n" "$MPI_BIN/mpi_ring"
    done
    for s in 1:4 $(two 2:4); do
        mpi "MPI hello with async modex (-N ${s%:*} -n ${s#*:})" 0 \
            "^hello rank=[0-9]+ size=${s#*:} " "${s#*:}" 60 \
            "OMPI_MCA_pmix_base_async_modex=1 OMPI_MCA_pmix_base_collect_data=0" \
            -- -N "${s%:*}" -n "${s#*:}" "$MPI_BIN/mpi_hello" "${s#*:}"
    done
fi

if want_group timeout; then
    job "PMIX_TIMEOUT on Get and Fence (-N 1 -n 3)" 0 ' 0 failed$' 3 30 \
        -- -N 1 -n 3 "$CLIENT" timeout fence
    if two_nodes; then
        job "PMIX_TIMEOUT on a remote Get (-N 2 -n 4)" 0 ' 0 failed$' 4 30 \
            -- -N 2 -n 4 "$CLIENT" timeout
    fi
fi

# OpenPMIx clients under our server: slurmstepd's plugin runs our server (slurmd
# preloaded), the ranks run Debian's OpenPMIx 4.2.2 client (tests-c/v41server/mixed.c
# built on it, found by its RUNPATH, nothing preloaded) over OpenPMIx's wire protocol:
# job size, local size and app number, Put/Commit, both kinds of fence, every peer's keys.
# (No step mixing them with ranks on ours yet: mixed.c on our client fails alone under
# Slurm, a job-level Get NOT_FOUND: Slurm registers no job-level PMIX_APPNUM, and only
# the v41 job info adds it.)
if want_group opx && [ -n "$PMIX_LIB" ] && [ -n "${OPX:-}" ]; then
    RANK_PRELOAD=""
    for n in 1 4; do
        job "opx: OpenPMIx 4.2.2 ranks under our server in slurmstepd (-n $n)" 0 \
            "^PASS mixed openpmix .* of $n .*peers on openpmix: $n\$" "$n" 40 \
            -- -N 1 -n "$n" "$OPX"
    done
    # One step, both libraries: ranks 0-1 on Debian's OpenPMIx, 2-3 on ours (its rpath),
    # in the same namespace and fences; each rank counts 2 OpenPMIx peers.
    if [ -n "${OPX_OURS:-}" ]; then
        printf '0-1 %s\n2-3 %s\n' "$OPX" "$OPX_OURS" >"$SD/opx-mixed.conf"
        job "opx: 2 OpenPMIx 4.2.2 ranks and 2 of ours in one step (--multi-prog)" 0 \
            "^PASS mixed (openpmix|pmix-rs) .* of 4 .*peers on openpmix: 2\$" 4 40 \
            -- -N 1 -n 4 --multi-prog "$SD/opx-mixed.conf"
    fi
    unset RANK_PRELOAD
fi

# Slurm's plugin registers a catch-all event handler in slurmstepd that logs "Error
# handler invoked" and kills the step: no routine job above may reach it (the server
# must not hand its own handlers events at client connect, fence or finalize).
hits=$(cat "$SD"/log/n[0-9]*.log 2>/dev/null | grep -c 'Error handler invoked')
why=""
[ "$hits" -eq 0 ] || why="$hits events reached it: $(grep -h 'Error handler invoked' \
    "$SD"/log/n[0-9]*.log | head -n 3)"
: >"$out"
verdict "no event reached Slurm's catch-all handler in the routine jobs" "$why"

if want_group abort; then
    for s in 1:4 $(two 2:4); do
        mpi "MPI_Abort(42) ends the step with its code (-N ${s%:*} -n ${s#*:})" 42 \
            '^abort rank=3 code=42$' 1 30 "" -- -N "${s%:*}" -n "${s#*:}" "$MPI_BIN/mpi_abort" 42
    done
fi

# One node: the server fails the fence of the ranks left, they exit, the step ends. Two
# nodes: the other node's part of Slurm's collective waits for the dead rank (about a
# minute, with OpenPMIx 4.2.2 too), so the step is ended by srun --kill-on-bad-exit,
# which must still tear it down promptly with ranks inside our fence.
if want_group kill; then
    job "a rank killed in a fence ends the step promptly (-N 1 -n 4)" nz \
        'killing myself in the fence' 1 25 -- -N 1 -n 4 "$CLIENT" killfence
    if two_nodes; then
        job "a rank killed in a fence, --kill-on-bad-exit ends the step (-N 2 -n 4)" nz \
            'killing myself in the fence' 1 25 \
            -- --kill-on-bad-exit=1 -N 2 -n 4 "$CLIENT" killfence
    fi
fi

# Slurm's plugin unmodified on the site's library: node n4's slurmd is not preloaded, so
# slurmstepd's mpi_pmix_v4.so runs Debian's OpenPMIx 4.2.2 server, and only the ranks
# bring ours (srun --export=ALL,LD_PRELOAD=<ours>): our client over OpenPMIx's wire
# protocol. The probe also names the security the plugin's server offers the ranks.
if want_group plain && [ -n "$PMIX_LIB" ]; then
    deb_lib=$(readlink -f /usr/lib/x86_64-linux-gnu/pmix2/lib/libpmix.so)
    # shellcheck disable=SC2016
    probe='grep -o "/[^ ]*libpmix\.so[^ ]*" /proc/$PPID/maps | sort -u | sed "s/^/stepd-maps=/";
        grep -o "/[^ ]*libpmix\.so[^ ]*" /proc/self/maps | sort -u | sed "s/^/rank-maps=/";
        echo "version=$PMIX_VERSION"; echo "security=$PMIX_SECURITY_MODE"'
    job "plain: slurmstepd maps Debian's libpmix, the rank ours, server 4.2, native" 0 \
        "^(stepd-maps=$deb_lib|rank-maps=$RANK_LIB|version=4\.2\..*|security=native)\$" 4 30 \
        -- -p plain -N 1 -n 1 sh -c "$probe"
    for n in 1 4; do
        job "plain: hello (-n $n)" 0 "^rank [0-9]+/$n .*neighbour" "$n" 40 \
            -- -p plain -N 1 -n "$n" "$HELLO"
    done
    job "plain: job and node info, every peer, collecting fence (-n 4)" 0 ' 0 failed$' 4 40 \
        -- -p plain -N 1 -n 4 "$CLIENT" info
    job "plain: put/fence/get of every type (-n 4)" 0 ' 0 failed$' 4 60 \
        -- -p plain -N 1 -n 4 "$RT/put_get" collect
    for n in 1 4; do
        mpi "plain: MPI hello/allreduce (-n $n)" 0 "^hello rank=[0-9]+ size=$n " "$n" 60 \
            "MPITEST_SERVER_PMIX_LIB=$deb_lib" -- -p plain -N 1 -n "$n" "$MPI_BIN/mpi_hello" "$n"
    done
    mpi "plain: MPI ring (-n 4)" 0 "^ring rank=[0-9]+ size=4\$" 4 60 \
        "MPITEST_SERVER_PMIX_LIB=$deb_lib" -- -p plain -N 1 -n 4 "$MPI_BIN/mpi_ring"
fi
