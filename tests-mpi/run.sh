#!/usr/bin/env bash
# tests-mpi/run.sh - run Debian's unchanged Open MPI 4.1.4 on a chosen libpmix.so.2.
#
#   PMIX_LIB=/path/to/libpmix.so.2 tests-mpi/run.sh [SCENARIO...]
#
# Scenarios (default: all, in this order):
#   symbols    the 48 PMIx_* functions Open MPI's plugin imports are all defined by PMIX_LIB
#   hello      MPI_Barrier + MPI_Allreduce at -np 1, 2, 8, 32
#   ring       ring exchange at -np 4
#   spawn      MPI_Comm_spawn of 3 children from a 2-rank parent job
#   connect    MPI_Comm_connect/accept between two mpiruns through one ompi-server
#   abort      MPI_Abort(42) from the last of 4 ranks; the job must exit with 42
#   singleton  ./mpi_hello without mpirun (it forks its own orted)
#   netns      hello and ring at -np 6, and spawn (2 parents + 4 children), over 3 network-
#              namespace hosts (mpirun on one, orted on the others): plain, with async modex
#              (--mca pmix_base_async_modex 1 --mca pmix_base_collect_data 0), and with
#              PMIX_MCA_pmix_server_fence_delta_modex=1 exported to every daemon; plus hello
#              with an ssh-like agent where only orte_launch_agent carries the library
#
# Each single-host scenario runs once per mode in MODES; a mode swaps the library in by
#   preload          LD_PRELOAD=PMIX_LIB (mpirun/orted inherit it, ranks get -x LD_PRELOAD)
#   ldpath           LD_LIBRARY_PATH=<dir holding only a libpmix.so.2 symlink to PMIX_LIB>
#   preload+bindnow  / ldpath+bindnow: the same with LD_BIND_NOW=1
# Every MPI process proves which library served it and its PMIx server (mpirun/orted): it reads
# /proc/<pid>/maps (see mpitest.h) and fails unless mca_pmix_ext3x.so and exactly PMIX_LIB are
# mapped, and unless the mode's variables are in both environments. If PMIX_LIB is the file the
# system loader would pick anyway, a copy is tested instead so that the proof means something.
#
# Every case runs through tests-c/harness.sh's run_job: a hang is a failure, reported (our
# processes' debug dumps, every thread's stacks) before the case's processes are killed. After MAX_HANGS hangs the rest is
# skipped (and counted as failed) so that a broken library cannot keep CI busy for long.
# Settings (environment): PMIX_LIB (required), MPI_BIN (compiled programs, default
# build/tests-mpi), MODES, NETNS_MODES (default "preload ldpath"), NETNS_VARIANTS (default
# "plain async delta agent"), NETNS_PROGS (default "hello ring spawn": the programs of the
# plain/async/delta variants; agent always runs hello), NETNS_PREFIX (default ompit<pid>:
# the namespaces of the netns hosts, made and removed by tests-mpi/netns/hosts), MAX_HANGS (3),
# LOG_DIR (kept; default a temporary directory, removed when all passed unless KEEP_LOGS=1),
# VERBOSE=1 (print each failing log in full).
# Exit status: 0 if every case passed.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
: "${PMIX_LIB:?set PMIX_LIB to the libpmix.so.2 to test}"
MPI_BIN=${MPI_BIN:-$ROOT/build/tests-mpi}
MODES=${MODES:-preload ldpath preload+bindnow ldpath+bindnow}
NETNS_MODES=${NETNS_MODES:-preload ldpath}
NETNS_VARIANTS=${NETNS_VARIANTS:-plain async delta agent}
NETNS_PROGS=${NETNS_PROGS:-hello ring spawn}
# The namespace hosts of the netns scenario: `hosts up/down/exec`, and `rsh`, the agent.
HOSTS=$ROOT/tests-mpi/netns/hosts
RSH=$ROOT/tests-mpi/netns/rsh
export NETNS_PREFIX=${NETNS_PREFIX:-ompit$$}
MAX_HANGS=${MAX_HANGS:-3}
SCENARIOS=${*:-symbols hello ring spawn connect abort singleton netns}

WORK=$(mktemp -d /tmp/pmix-ompi.XXXXXX)
LOG_DIR=${LOG_DIR:-$WORK/logs}
mkdir -p "$LOG_DIR"
# The shared harness (tests-c/harness.sh): every process a case starts carries its
# HARNESS_CASE marker; a case still running at its limit gets a hang report (debug dumps
# of our library's processes, every thread's stacks) before it is killed, and processes
# still alive after a case (a daemonized orted) are found by the marker and killed.
AREA=ompi
HARNESS_LOG=$LOG_DIR/harness
. "$ROOT/tests-c/harness.sh"
NETNS_MADE=0
npass=0
nfail=0
hangs=0
failed=()

cleanup() {
  harness_cleanup
  if [ "$NETNS_MADE" = 1 ]; then
    timeout -s KILL 30 "$HOSTS" down "$NETNS_PREFIX" || echo "run.sh: hosts down $NETNS_PREFIX failed" >&2
    NETNS_MADE=0
  fi
  if [ "${KEEP_LOGS:-0}" = 1 ] || [ "$nfail" != 0 ] || [ "$LOG_DIR" != "$WORK/logs" ]; then
    [ "$LOG_DIR" = "$WORK/logs" ] && echo "logs kept in $LOG_DIR"
    find "$WORK" -mindepth 1 -maxdepth 1 ! -name logs -exec rm -rf {} +
  else
    rm -rf "$WORK"
  fi
}
# Also on INT/TERM (timeout -k sends TERM first): exiting runs the EXIT trap.
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

PMIX_LIB=$(readlink -f "$PMIX_LIB")
[ -f "$PMIX_LIB" ] || { echo "run.sh: no such library: $PMIX_LIB" >&2; exit 2; }
sys_lib=$(ldconfig -p | awk '/libpmix\.so\.2 .*x86-64/ {print $NF; exit}')
if [ -n "$sys_lib" ] && [ "$(readlink -f "$sys_lib")" = "$PMIX_LIB" ]; then
  mkdir -p "$WORK/syscopy"
  cp "$PMIX_LIB" "$WORK/syscopy/libpmix.so.2"
  echo "note: $PMIX_LIB is the system default; testing a copy, $WORK/syscopy/libpmix.so.2"
  PMIX_LIB=$WORK/syscopy/libpmix.so.2
fi
LDDIR=$WORK/ldpath
mkdir -p "$LDDIR"
ln -s "$PMIX_LIB" "$LDDIR/libpmix.so.2"
echo "testing $PMIX_LIB; logs in $LOG_DIR"

# set_mode MODE [NAME=VALUE...]: the environment of a mode, plus extra exported variables.
set_mode() {
  MODE=$1
  shift
  MODE_ENV=()
  MODE_X=()
  case $MODE in
    preload*) MODE_ENV+=("LD_PRELOAD=$PMIX_LIB") MODE_X+=(-x LD_PRELOAD) ;;
    ldpath*) MODE_ENV+=("LD_LIBRARY_PATH=$LDDIR") MODE_X+=(-x LD_LIBRARY_PATH) ;;
    *) echo "run.sh: unknown mode $MODE" >&2; exit 2 ;;
  esac
  case $MODE in
    *+bindnow) MODE_ENV+=(LD_BIND_NOW=1) MODE_X+=(-x LD_BIND_NOW) ;;
  esac
  local kv
  for kv in "$@"; do MODE_ENV+=("$kv") MODE_X+=(-x "${kv%%=*}"); done
}

# The mpirun of a single-host case, in the current mode.
mpirun_cmd() {
  MPIRUN=(mpirun --allow-run-as-root --oversubscribe -x MPITEST_PMIX_LIB -x MPITEST_ENV "${MODE_X[@]}")
}

# The lines of a log that best explain a failure: loader and crash messages first, then
# failed checks, then other error lines; the tail of the log if none of these.
first_error() {
  local out
  out=$({
    grep -E 'undefined symbol|symbol lookup error|Segmentation|core dumped|panicked' "$1"
    grep -E '^FAIL' "$1"
    grep -v '^ok ' "$1" | grep -E 'rror|PMIx|PMIX|not found|Not found|failed'
  } | awk '!seen[$0]++' | head -n 4)
  if [ -n "$out" ]; then
    echo "$out"
  elif [ -s "$1" ]; then
    tail -n 4 "$1"
  else
    echo "(no output at all; tests-mpi/pmix-calls.sh shows the last PMIx_* call of each process)"
  fi
}

# run_case NAME SECS WANT_RC MIN_PROCS NEED_ORTED CMD...
#   MIN_PROCS: at least this many processes must print a "who=self" proof line;
#   NEED_ORTED=1: at least one proof line must come from an orted (multi-host cases).
run_case() {
  local name=$1 secs=$2 want=$3 nproc=$4 orted=$5
  shift 5
  local log=$LOG_DIR/${name//\//_}.log why=""
  if [ "$hangs" -ge "$MAX_HANGS" ]; then
    echo "SKIP $name (after $hangs hangs)"
    nfail=$((nfail + 1))
    failed+=("$name: skipped")
    return
  fi
  # The harness's run_job: output in $log, the hang report (if any) in $HANG_REPORT;
  # ranks and daemons still alive 2 s after the job ended are killed and counted (LEFT).
  out=$log
  run_job "$secs" -- env "${MODE_ENV[@]}" MPITEST_ENV="${MODE_ENV[*]}" \
    MPITEST_PMIX_LIB="$PMIX_LIB" "$@"
  local left=$LEFT
  local self srv
  self=$(grep -c '^pmixlib .* who=self ' "$log")
  srv=$(grep -cE '^pmix(lib|server) .* who=(mpirun|orterun|orted|orted-child|ompi-server) ' "$log")
  if [ "$HUNG" = 1 ]; then
    why="hang: killed after ${secs}s"
    hangs=$((hangs + 1))
  elif [ "$rc" != "$want" ]; then
    why="exit status $rc, want $want"
  elif grep -q '^FAIL' "$log"; then
    why="$(grep -c '^FAIL' "$log") failed checks"
  elif [ "$self" -lt "$nproc" ]; then
    why="only $self of $nproc processes proved their libpmix"
  elif [ "$srv" -lt 1 ]; then
    why="no PMIx server (mpirun/orted) proved its libpmix"
  elif [ "$orted" = 1 ] && ! grep -q '^pmixlib .* who=orted ' "$log"; then
    why="no orted proved its libpmix"
  elif [ "$left" != 0 ]; then
    why="$left processes still running after the job ended (killed)"
  fi
  local secs_taken=$SECS_TAKEN
  if [ -z "$why" ]; then
    npass=$((npass + 1))
    echo "PASS $name (${secs_taken}s)"
  else
    nfail=$((nfail + 1))
    failed+=("$name: $why")
    echo "FAIL $name (${secs_taken}s): $why"
    [ -n "$HANG_REPORT" ] && sed 's/^/     # /' "$HANG_REPORT" && echo "     # (full report: $HANG_REPORT)"
    first_error "$log" | sed 's/^/     | /'
    [ "${VERBOSE:-0}" = 1 ] && sed 's/^/     > /' "$log"
  fi
}

scenario_symbols() {
  local log=$LOG_DIR/symbols.log
  if "$ROOT/tests-mpi/symbols.sh" "$PMIX_LIB" >"$log" 2>&1; then
    npass=$((npass + 1))
    echo "PASS symbols ($(tail -n 1 "$log"))"
  else
    nfail=$((nfail + 1))
    failed+=("symbols: $(grep -c '^missing' "$log") missing")
    echo "FAIL symbols"
    sed 's/^/     | /' "$log" | tail -n 60
  fi
}

single_host() {
  local scen=$1 mode np
  for mode in $MODES; do
    set_mode "$mode"
    mpirun_cmd
    case $scen in
      hello)
        for np in 1 2 8 32; do
          local t=30
          [ "$np" = 32 ] && t=60
          run_case "$mode/hello-np$np" $t 0 "$np" 0 "${MPIRUN[@]}" -np "$np" "$MPI_BIN/mpi_hello" "$np"
        done ;;
      ring) run_case "$mode/ring-np4" 30 0 4 0 "${MPIRUN[@]}" -np 4 "$MPI_BIN/mpi_ring" ;;
      spawn) run_case "$mode/spawn-np2+3" 40 0 5 0 "${MPIRUN[@]}" -np 2 "$MPI_BIN/mpi_spawn" 3 ;;
      connect)
        mkdir -p "$WORK/connect"
        run_case "$mode/connect-np2+2" 60 0 4 0 "$ROOT/tests-mpi/connect.sh" "$WORK/connect" \
          "$MPI_BIN" 2 2 "${MPIRUN[@]}" ;;
      abort) run_case "$mode/abort-np4" 30 42 1 0 "${MPIRUN[@]}" -np 4 "$MPI_BIN/mpi_abort" 42 ;;
      singleton) run_case "$mode/singleton" 30 0 1 0 "$MPI_BIN/mpi_hello" 1 ;;
    esac
  done
}

# The mpirun of a multi-host case: mpirun runs "on" host 1 (`hosts exec node1`: its network
# namespace, its own UTS namespace, hostname node1); tests-mpi/netns/rsh (`hosts run`) starts
# orted on the other hosts, inheriting mpirun's environment
# (LD_PRELOAD, LD_LIBRARY_PATH, LD_BIND_NOW, PMIX_MCA_*), which the ranks then check.
# With "agent", the rsh agent drops the LD_* variables (as ssh would) and the orted command
# itself carries them: --mca orte_launch_agent "env LD_PRELOAD=... orted".
netns_mpirun() {
  local -a rsh=(--mca plm_rsh_agent "$RSH")
  if [ "${1:-}" = agent ]; then
    rsh=(--mca plm_rsh_agent "$ROOT/tests-mpi/rsh-clean-env"
      --mca orte_launch_agent "env ${MODE_ENV[*]} orted")
  fi
  MPIRUN=("$HOSTS" exec node1
    mpirun --allow-run-as-root --hostfile "$WORK/hostfile" "${rsh[@]}" --mca plm_rsh_no_tree_spawn 1
    --mca oob_tcp_if_include 10.211.0.0/24 --mca btl tcp,self --mca btl_tcp_if_include 10.211.0.0/24
    -x MPITEST_PMIX_LIB -x MPITEST_ENV "${MODE_X[@]}")
}

scenario_netns() {
  if ip netns list | grep -q "^${NETNS_PREFIX}_"; then
    echo "FAIL netns: namespaces ${NETNS_PREFIX}_* exist already"
    nfail=$((nfail + 1))
    failed+=("netns: namespaces exist already")
    return
  fi
  NETNS_MADE=1
  if ! timeout -s KILL 30 "$HOSTS" up 3 "$NETNS_PREFIX" >"$LOG_DIR/netns-setup.log" 2>&1; then
    echo "FAIL netns: hosts up 3 $NETNS_PREFIX failed"
    sed 's/^/     | /' "$LOG_DIR/netns-setup.log"
    nfail=$((nfail + 1))
    failed+=("netns: hosts up failed")
    return
  fi
  printf '10.211.0.1%d slots=2\n' 1 2 3 >"$WORK/hostfile"
  export MPITEST_RSH=$RSH
  local mode variant
  local -a extra
  for mode in $NETNS_MODES; do
    for variant in $NETNS_VARIANTS; do
      extra=()
      case $variant in
        plain) set_mode "$mode" ;;
        async)
          # PMIX_MCA_gds=hash: OpenPMIx 4.2.x's shared-memory store (ds21) answers a direct-
          # modex get for a peer that has not committed yet with NOT_FOUND, so MPI_Init fails
          # now and then ("PML add procs failed", openpmix issue #3077); hash makes it wait.
          # Our library has no ds21 and ignores the variable.
          set_mode "$mode" PMIX_MCA_gds=hash
          extra=(--mca pmix_base_async_modex 1 --mca pmix_base_collect_data 0) ;;
        delta) set_mode "$mode" PMIX_MCA_pmix_server_fence_delta_modex=1 ;;
        agent) set_mode "$mode" ;;
      esac
      local c=netns-$mode-$variant
      if [ "$variant" = agent ]; then
        netns_mpirun agent
        run_case "$c/hello-np6" 60 0 6 1 "${MPIRUN[@]}" -np 6 "$MPI_BIN/mpi_hello" 6
        continue
      fi
      netns_mpirun
      local prog
      for prog in $NETNS_PROGS; do
        case $prog in
          hello) run_case "$c/hello-np6" 60 0 6 1 "${MPIRUN[@]}" "${extra[@]}" -np 6 "$MPI_BIN/mpi_hello" 6 ;;
          ring) run_case "$c/ring-np6" 60 0 6 1 "${MPIRUN[@]}" "${extra[@]}" -np 6 "$MPI_BIN/mpi_ring" ;;
          spawn) run_case "$c/spawn-np2+4" 60 0 6 1 "${MPIRUN[@]}" "${extra[@]}" -np 2 "$MPI_BIN/mpi_spawn" 4 ;;
          *) echo "run.sh: unknown NETNS_PROGS entry $prog" >&2; exit 2 ;;
        esac
      done
    done
  done
  NETNS_MADE=0
  if ! timeout -s KILL 30 "$HOSTS" down "$NETNS_PREFIX" >>"$LOG_DIR/netns-setup.log" 2>&1; then
    echo "FAIL netns: hosts down $NETNS_PREFIX failed"
    sed 's/^/     | /' "$LOG_DIR/netns-setup.log"
    nfail=$((nfail + 1))
    failed+=("netns: hosts down failed")
  fi
}

for scen in $SCENARIOS; do
  case $scen in
    symbols) scenario_symbols ;;
    hello | ring | spawn | connect | abort | singleton) single_host "$scen" ;;
    netns) scenario_netns ;;
    *) echo "run.sh: unknown scenario $scen" >&2; exit 2 ;;
  esac
done

echo "== $npass passed, $nfail failed (library $PMIX_LIB)"
for f in "${failed[@]}"; do echo "   $f"; done
[ "$nfail" = 0 ]
