#!/usr/bin/env bash
# perf.sh HELLO OURS DEBIAN [NP...] - end-to-end time of
#   mpirun --allow-run-as-root --oversubscribe -np N HELLO N
# with each library swapped in by LD_PRELOAD, in the same run: per N, one warm-up each, then
# REPS (5) rounds that alternate the two libraries; prints the median wall time in ms per
# library as a Markdown table. A run that fails or takes over 60 s counts as failed; the
# median is over the runs that passed, and the cell says how many failed.
set -uo pipefail
hello=${1:?usage: perf.sh HELLO OURS DEBIAN [NP...]}
ours=$(readlink -f "${2:?}")
debian=$(readlink -f "${3:?}")
shift 3
nps=${*:-2 8 32}
reps=${REPS:-5}
run_id=pmixrs-perf-$$-$RANDOM
trap 'p=$(grep -lzsx "MPITEST_RUN=$run_id" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3); [ -n "$p" ] && kill -KILL $p' EXIT

# one LIB NP: prints the wall time in ms, or "fail".
one() {
  local t0 t1 rc
  t0=$(date +%s%N)
  timeout -s KILL 60 env LD_PRELOAD="$1" MPITEST_PMIX_LIB="$1" MPITEST_RUN="$run_id" \
    mpirun --allow-run-as-root --oversubscribe -x LD_PRELOAD -x MPITEST_PMIX_LIB \
    -np "$2" "$hello" "$2" </dev/null >/dev/null 2>&1 &
  wait $!
  rc=$?
  t1=$(date +%s%N)
  if [ "$rc" = 0 ]; then echo $(((t1 - t0) / 1000000)); else echo fail; fi
}

# cell TIMES...: "median ms" plus the failure count, if any.
cell() {
  local ok fails
  ok=$(printf '%s\n' "$@" | grep -v fail | sort -n)
  fails=$(printf '%s\n' "$@" | grep -c fail)
  if [ -z "$ok" ]; then
    echo "fails ($fails/$#)"
    return
  fi
  local n med
  n=$(echo "$ok" | wc -l)
  med=$(echo "$ok" | awk -v n="$n" 'NR == int((n + 1) / 2) {a = $1} NR == int(n / 2) + 1 {b = $1} END {print (a + b) / 2}')
  if [ "$fails" -gt 0 ]; then echo "$med ($fails/$# failed)"; else echo "$med"; fi
}

echo "mpirun -np N $(basename "$hello") N, median of $reps, ms (LD_PRELOAD)"
echo "  ours:   $ours"
echo "  Debian: $debian"
echo
echo "| np | Debian OpenPMIx 4.2.2 | pmix-rs | pmix-rs / Debian |"
echo "|---:|---:|---:|---:|"
for np in $nps; do
  one "$debian" "$np" >/dev/null
  one "$ours" "$np" >/dev/null
  d=()
  o=()
  for _ in $(seq 1 "$reps"); do
    d+=("$(one "$debian" "$np")")
    o+=("$(one "$ours" "$np")")
  done
  cd_=$(cell "${d[@]}")
  co=$(cell "${o[@]}")
  ratio=$(awk -v a="${co%% *}" -v b="${cd_%% *}" 'BEGIN { if (a ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/ && b > 0) printf "%.2f", a / b; else print "-" }')
  echo "| $np | $cd_ | $co | $ratio |"
done
