#!/usr/bin/env bash
# opxcount.sh: instructions per job-level PMIx_Get of an OpenPMIx 4.2.2 client (Debian's
# libpmix, bench/opcount built against it) under three servers: our pmixrun, Debian's
# mpirun (OpenPMIx hands job data to its clients in its ds21 shared-memory store) and
# Debian's mpirun with PMIX_MCA_gds=hash (job data in messages to the client's hash store,
# as ours does). Counted by callgrind over the whole rank, every thread (OpenPMIx answers
# a Get on its progress thread when the data is in its hash store, so --toggle-collect on
# the calling thread would miss it); (I(N2) - I(N1)) / (N2 - N1) per Get. One rank, two
# for get-peer (rank 1 counted: its repeated Get of rank 0's committed key, which an
# OpenPMIx server's clients read from ds21). docs/PERF.md "Mixed pairs", "Job-level Gets
# of OpenPMIx clients", "Stage 1 of ds21 served".
#
# Environment: PMIXRUN, OPCOUNT_DEB (binaries), N1 (1000), N2 (3000), OPS (get-job
# get-self get-peer).
set -euo pipefail
: "${PMIXRUN:?}" "${OPCOUNT_DEB:?}"
n1=${N1:-1000}
n2=${N2:-3000}
ops=${OPS:-get-job get-self get-peer}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mpirun=(timeout -s KILL 300 mpirun --allow-run-as-root --oversubscribe)
vg=(valgrind --tool=callgrind)

# count SERVER OP N: the instructions callgrind counted in the rank.
count() {
  local server=$1 op=$2 n=$3 out=$tmp/cg.$1.$2.$3 np=1 rank=0
  case $op in get-peer*) np=2 rank=1 ;; esac
  local file=$out.%q{PMIX_RANK}
  case $server in
  pmixrun) timeout -s KILL 300 "$PMIXRUN" --timeout 240 -n $np \
               "${vg[@]}" --callgrind-out-file="$file" "$OPCOUNT_DEB" "$op" "$n" ;;
  ds21) env -u PMIX_MCA_gds "${mpirun[@]}" -np $np \
            "${vg[@]}" --callgrind-out-file="$file" "$OPCOUNT_DEB" "$op" "$n" ;;
  hash) PMIX_MCA_gds=hash "${mpirun[@]}" -np $np -x PMIX_MCA_gds \
            "${vg[@]}" --callgrind-out-file="$file" "$OPCOUNT_DEB" "$op" "$n" ;;
  esac >"$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
  awk '/^summary:|^totals:/ { print $2; exit }' "$out.$rank"
}

echo "| operation | pmixrun | Debian mpirun (ds21) | Debian mpirun, gds=hash |"
echo "|---|---:|---:|---:|"
for op in $ops; do
  row="| $op |"
  for server in pmixrun ds21 hash; do
    a=$(count $server "$op" "$n1")
    b=$(count $server "$op" "$n2")
    row="$row $(( (b - a) / (n2 - n1) )) |"
  done
  echo "$row"
done
