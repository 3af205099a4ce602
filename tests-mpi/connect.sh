#!/usr/bin/env bash
# connect.sh WORKDIR BINDIR NP_SERVER NP_CLIENT MPIRUN-ARGS...
# Two separate Open MPI jobs meet through one ompi-server: the server job opens a port and
# publishes it under a name, the client job looks the name up and connects (mpi_connect).
# Prints the output of all three processes; exit status 0 only if both jobs passed and the
# ompi-server (an ORTE HNP, which also loads the PMIx plugin) used the expected libpmix.
# run.sh runs this under timeout -s KILL; on any exit the ompi-server started here is killed.
set -u
work=$1 bin=$2 nps=$3 npc=$4
shift 4
uri=$work/ompi-server.uri
name=pmixrs-connect-$$
rm -f "$uri"

# Keep every address of this test on loopback.
lo=(--mca oob_tcp_if_include lo)
ompi-server --no-daemonize "${lo[@]}" -r "$uri" </dev/null >"$work/ompi-server.log" 2>&1 &
srv=$!
cleanup() { kill -KILL "$srv" 2>/dev/null; wait "$srv" 2>/dev/null; }
trap cleanup EXIT

for _ in $(seq 1 100); do
  [ -s "$uri" ] && break
  kill -0 "$srv" 2>/dev/null || break
  sleep 0.1
done
if [ ! -s "$uri" ]; then
  echo "FAIL connect.sh: ompi-server wrote no URI"
  cat "$work/ompi-server.log"
  exit 1
fi

"$@" "${lo[@]}" --ompi-server "file:$uri" -np "$nps" "$bin/mpi_connect" server "$name" \
  </dev/null >"$work/connect-server.log" 2>&1 &
job=$!
# The client may only look the name up once it is published.
for _ in $(seq 1 200); do
  grep -q '^connect server published' "$work/connect-server.log" && break
  kill -0 "$job" 2>/dev/null || break
  sleep 0.1
done
"$@" "${lo[@]}" --ompi-server "file:$uri" -np "$npc" "$bin/mpi_connect" client "$name" \
  </dev/null >"$work/connect-client.log" 2>&1
crc=$?
# A server job whose client failed waits in MPI_Comm_accept forever: give it 10 s.
if [ "$crc" != 0 ]; then
  for _ in $(seq 1 100); do
    kill -0 "$job" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$job" 2>/dev/null
fi
wait "$job"
src=$?

# The ompi-server's own PMIx plugin and library, read while it still runs.
maps=$(grep -E '/(libpmix\.so[^/]*|mca_pmix_ext3x\.so)$' "/proc/$srv/maps" 2>/dev/null |
  awk '{print $6}' | sort -u)
lib=$(echo "$maps" | grep '/libpmix\.so' | paste -sd, -)
ext3x=0
echo "$maps" | grep -q 'mca_pmix_ext3x\.so' && ext3x=1

echo "== server job (rc=$src)"
cat "$work/connect-server.log"
echo "== client job (rc=$crc)"
cat "$work/connect-client.log"
echo "== ompi-server"
cat "$work/ompi-server.log"
echo "pmixserver who=ompi-server pid=$srv ext3x=$ext3x lib=${lib:-(none)}"

rc=0
[ "$src" = 0 ] || { echo "FAIL connect.sh: server job exited $src"; rc=1; }
[ "$crc" = 0 ] || { echo "FAIL connect.sh: client job exited $crc"; rc=1; }
[ "$ext3x" = 1 ] || { echo "FAIL connect.sh: ompi-server has no mca_pmix_ext3x.so mapped"; rc=1; }
if [ -n "${MPITEST_PMIX_LIB:-}" ] && [ "$lib" != "$MPITEST_PMIX_LIB" ]; then
  echo "FAIL connect.sh: ompi-server uses libpmix ${lib:-(none)} (want $MPITEST_PMIX_LIB)"
  rc=1
fi
exit $rc
