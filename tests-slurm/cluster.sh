# cluster.sh: a private Slurm 22.05 cluster on loopback, sourced by tests-slurm/run.sh.
#
# cluster_start writes slurm.conf, cgroup.conf and a munge key under a fresh temporary
# directory, then starts munged (its own socket, key and pid file), slurmctld and three
# slurmd (`slurmd -N n1..n3`, each with its own Port, spool, TmpFS, pid and log file; all
# NodeHostname=localhost, NodeAddr=127.0.0.1). cluster_stop stops exactly what
# cluster_start started, by pid, and every slurmstepd and rank of its jobs (found by the
# SLURM_TEST_TAG entry in their environment), then removes the directory.
#
# Inputs: PRELOAD (our libpmix.so.2, put in LD_PRELOAD of every slurmd and so of every
# slurmstepd; empty: Debian's libpmix, as Slurm's plugin loads it).
# A fourth node, PLAIN_NODE (n4), is never preloaded: it is alone in the partition
# "plain" (not the default one), where Slurm's plugin runs Debian's OpenPMIx server as a
# site's does, for ranks that bring their own library (srun -p plain).
# Outputs: SD (the directory), SLURM_CONF (exported), SRUN (srun with the tag),
# MUNGED_PID, CTLD_PID, SLURMD_PIDS.

SD=""
MUNGED_PID=""
CTLD_PID=""
SLURMD_PIDS=()
NODES=(n1 n2 n3)
PLAIN_NODE=n4

# A TCP port nobody listens on, from a base that differs between runs.
free_port() {
    local p=$1
    while ss -Htln "sport = :$p" 2>/dev/null | grep -q .; do p=$((p + 1)); done
    echo "$p"
}

cluster_write_conf() {
    local base=$((20000 + RANDOM % 20000)) p i
    CTLD_PORT=$(free_port "$base")
    p=$((CTLD_PORT + 1))
    NODE_PORTS=()
    local all=("${NODES[@]}" "$PLAIN_NODE")
    for i in "${!all[@]}"; do
        p=$(free_port "$p")
        NODE_PORTS[i]=$p
        p=$((p + 1))
        mkdir -p "$SD/spool/${all[i]}" "$SD/tmp/${all[i]}"
    done
    mkdir -p "$SD/ctld" "$SD/log" "$SD/munge"
    chmod 0700 "$SD/munge"
    cat >"$SD/slurm.conf" <<EOF
# Written by tests-slurm/cluster.sh for one test run; removed afterwards.
ClusterName=pmixrs
SlurmctldHost=localhost
SlurmctldPort=$CTLD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SD/munge/munge.socket
StateSaveLocation=$SD/ctld
SlurmctldPidFile=$SD/slurmctld.pid
SlurmctldLogFile=$SD/log/slurmctld.log
SlurmdSpoolDir=$SD/spool/%n
SlurmdPidFile=$SD/spool/%n.pid
SlurmdLogFile=$SD/log/%n.log
TmpFS=$SD/tmp/%n
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
MpiDefault=none
SlurmdParameters=config_overrides
ReturnToService=2
KillWait=2
MessageTimeout=10
SlurmdTimeout=60
InactiveLimit=0
MinJobAge=2
SlurmctldDebug=info
SlurmdDebug=info
EOF
    for i in "${!all[@]}"; do
        echo "NodeName=${all[i]} NodeHostname=localhost NodeAddr=127.0.0.1" \
            "Port=${NODE_PORTS[i]} CPUs=8 RealMemory=1000 State=UNKNOWN" >>"$SD/slurm.conf"
    done
    echo "PartitionName=test Nodes=$(IFS=,; echo "${NODES[*]}") Default=YES MaxTime=10" \
        "OverSubscribe=YES State=UP" >>"$SD/slurm.conf"
    echo "PartitionName=plain Nodes=$PLAIN_NODE Default=NO MaxTime=10 OverSubscribe=YES" \
        "State=UP" >>"$SD/slurm.conf"
    # No cgroup anywhere: processes are tracked by linuxproc.
    printf 'CgroupPlugin=autodetect\nConstrainCores=no\nConstrainRAMSpace=no\n' \
        >"$SD/cgroup.conf"
}

cluster_start_munge() {
    local key=$SD/munge/munge.key
    mungekey --create --keyfile="$key" >/dev/null 2>&1 \
        || dd if=/dev/urandom of="$key" bs=1024 count=1 2>/dev/null
    chmod 0400 "$key"
    munged --force --socket="$SD/munge/munge.socket" --key-file="$key" \
        --pid-file="$SD/munge/munged.pid" --log-file="$SD/log/munged.log" \
        --seed-file="$SD/munge/munged.seed" >>"$SD/log/munged.out" 2>&1 || return 1
    wait_for 10 test -s "$SD/munge/munged.pid" || return 1
    MUNGED_PID=$(cat "$SD/munge/munged.pid")
}

# wait_for SECONDS COMMAND...: polls COMMAND every 0.2 s until it succeeds.
wait_for() {
    local deadline=$((SECONDS + $1))
    shift
    until "$@" >/dev/null 2>&1; do
        [ "$SECONDS" -lt "$deadline" ] || return 1
        sleep 0.2
    done
}

nodes_idle() {
    [ "$(sinfo -h -N -o '%t' | grep -c '^idle')" -eq $((${#NODES[@]} + 1)) ]
}

cluster_start() {
    SD=$(mktemp -d /tmp/pmix-slurm.XXXXXX)
    chmod 0755 "$SD"
    export SLURM_CONF=$SD/slurm.conf
    SRUN=(env "SLURM_TEST_TAG=$SD" srun)
    cluster_write_conf
    if ! cluster_start_munge; then
        echo "cluster: munged did not start" >&2
        return 1
    fi
    SLURM_TEST_TAG=$SD slurmctld -D -f "$SLURM_CONF" >>"$SD/log/slurmctld.out" 2>&1 &
    CTLD_PID=$!
    local n
    for n in "${NODES[@]}"; do
        if [ -n "$PRELOAD" ]; then
            SLURM_TEST_TAG=$SD LD_PRELOAD=$PRELOAD slurmd -D -N "$n" -f "$SLURM_CONF" >>"$SD/log/$n.out" 2>&1 &
        else
            SLURM_TEST_TAG=$SD slurmd -D -N "$n" -f "$SLURM_CONF" >>"$SD/log/$n.out" 2>&1 &
        fi
        SLURMD_PIDS+=($!)
    done
    SLURM_TEST_TAG=$SD slurmd -D -N "$PLAIN_NODE" -f "$SLURM_CONF" >>"$SD/log/$PLAIN_NODE.out" 2>&1 &
    SLURMD_PIDS+=($!)
    if ! wait_for 60 nodes_idle; then
        echo "cluster: the nodes did not come up idle:" >&2
        sinfo -N >&2
        tail -n 20 "$SD"/log/*.log >&2
        return 1
    fi
}

# Every process of ours that the daemons started: job ranks carry SLURM_TEST_TAG=$SD in
# their environment (from srun); slurmstepd holds its node's log file under $SD open (its
# /proc environ is its process title, setproctitle writes over it).
tagged_pids() {
    {
        grep -lzxF "SLURM_TEST_TAG=$SD" /proc/[0-9]*/environ
        find /proc/[0-9]*/fd -mindepth 1 -maxdepth 1 -lname "$SD/*"
    } 2>/dev/null | cut -d/ -f3 | sort -un | grep -vx "$$"
}

# The tagged processes that are neither the daemons (slurmscriptd is slurmctld's) nor
# this shell's children (srun).
job_pids() {
    local pid comm
    for pid in $(tagged_pids); do
        read -r comm 2>/dev/null <"/proc/$pid/comm" && running "$pid" || continue
        case "$comm" in
            slurmd | slurmctld | slurmscriptd | munged | srun | timeout | bash) continue ;;
        esac
        echo "$pid"
    done
}

# Is PID a live process (a zombie waiting for init to reap it is not)?
running() {
    local st
    read -r st 2>/dev/null <"/proc/$1/stat" || return 1
    st=${st##*) }
    [ "${st%% *}" != Z ]
}

# stop_pids SIGNAL PID...: signal, then wait up to 3 s (SIGKILL: 5 s) for them to go.
stop_pids() {
    local sig=$1 pid n=30
    shift
    [ $# -gt 0 ] || return 0
    [ "$sig" != KILL ] || n=50
    kill "-$sig" "$@" 2>/dev/null
    for _ in $(seq "$n"); do
        local alive=0
        for pid in "$@"; do running "$pid" && alive=1; done
        [ "$alive" = 0 ] && return 0
        sleep 0.1
    done
    return 1
}

# The srun processes of this run (children of this shell, tagged by their environment).
srun_pids() {
    local pid comm
    for pid in $(tagged_pids); do
        read -r comm 2>/dev/null <"/proc/$pid/comm" && [ "$comm" = srun ] && echo "$pid"
    done
}

cluster_stop() {
    [ -n "$SD" ] || return 0
    local pids
    # srun and the steps first (their slurmd still answers), then the daemons, then any
    # stray process of the run.
    scancel --quiet --full --user=root >/dev/null 2>&1
    pids=$(srun_pids)
    # shellcheck disable=SC2086
    stop_pids TERM $pids || stop_pids KILL $pids
    pids=$(job_pids)
    # shellcheck disable=SC2086
    stop_pids TERM $pids || stop_pids KILL $pids
    stop_pids TERM "${SLURMD_PIDS[@]}" || stop_pids KILL "${SLURMD_PIDS[@]}"
    [ -z "$CTLD_PID" ] || stop_pids TERM "$CTLD_PID" || stop_pids KILL "$CTLD_PID"
    [ -z "$MUNGED_PID" ] || stop_pids TERM "$MUNGED_PID" || stop_pids KILL "$MUNGED_PID"
    pids=$(tagged_pids)
    # shellcheck disable=SC2086
    [ -z "$pids" ] || stop_pids KILL $pids
    wait 2>/dev/null
    if [ -n "${KEEP_SLURM_DIR:-}" ]; then
        echo "cluster: files kept in $SD"
    else
        rm -rf "$SD"
    fi
    SD=""
}
