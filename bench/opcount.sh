#!/usr/bin/env bash
# opcount.sh: instructions per PMIx_Get / PMIx_Put, counted by callgrind (repeatable on a
# noisy machine, unlike timings). For each operation, bench/opcount runs it N1 and N2 times
# inside opcount_loop under `valgrind --tool=callgrind --toggle-collect=opcount_loop`;
# (I(N2) - I(N1)) / (N2 - N1) is the cost of one operation, value release included, without
# the loop's fixed costs. Get of a peer's key runs in rank 1 of a 2-rank job (after one
# warm-up Get has filled its cache); the others in a 1-rank job.
#
# Environment: PMIXRUN, OPCOUNT (binaries), N1 (1000), N2 (3000), OPS.
set -euo pipefail
: "${PMIXRUN:?}" "${OPCOUNT:?}"
n1=${N1:-1000}
n2=${N2:-3000}
ops=${OPS:-get-job get-self get-self-host get-self-nrank get-self-appnum get-self-jobkey get-peer get-peer-first put put-commit}
# get-peer-first reads N distinct keys of the peer once each, right after a collecting
# fence: every rank publishes N2+1 keys for it. The other operations run with one key
# published (a store holding thousands of keys makes a Put or Get of our own data cost
# more, which is not what they measure).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# count OP N: the instructions callgrind collected inside opcount_loop.
count() {
  local op=$1 n=$2 np=1 out=$tmp/cg.$1.$2 keys=1
  case $op in get-peer*) np=2 ;; esac
  case $op in get-peer-first) keys=$((n2 + 1)) ;; esac
  OPCOUNT_KEYS=$keys "$PMIXRUN" --timeout 120 -x OPCOUNT_KEYS -n $np sh -c '
    if [ "$PMIX_RANK" = "$1" ]; then
      exec valgrind --tool=callgrind --toggle-collect=opcount_loop --callgrind-out-file="$2" "$3" "$4" "$5"
    else
      exec "$3" "$4" "$5"
    fi' sh $((np - 1)) "$out" "$OPCOUNT" "$op" "$n" >"$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
  awk '/^summary:|^totals:/ { print $2; exit }' "$out"
}

echo "| operation | instructions per op | (I($n2) - I($n1)) / $((n2 - n1)) |"
echo "|---|---:|---|"
for op in $ops; do
  a=$(count "$op" "$n1")
  b=$(count "$op" "$n2")
  echo "| $op | $(( (b - a) / (n2 - n1) )) | $b - $a |"
done
