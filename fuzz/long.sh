#!/usr/bin/env bash
# Long libFuzzer campaign: every fuzz target for SECS seconds of wall time (default 600),
# JOBS targets at a time (default 2), niced. Run from the fuzz/ directory (`make fuzz-long`
# does). For each target it prints one summary line with the wall time, executions,
# executions per second, corpus files, new units, crash/timeout artifacts and libFuzzer's
# final coverage and in-memory corpus (entries/size), and keeps the
# full libFuzzer log in target/long-<target>.log. Exit status 1 when any target failed.
#
#   SECS=600 JOBS=2 bash long.sh value_decode info_decode ...
set -u
SECS=${SECS:-600}
JOBS=${JOBS:-2}
NICE=${NICE:-19}
# Per-input limit: an input running longer than this is written out as a timeout artifact.
UNIT_TIMEOUT=${UNIT_TIMEOUT:-10}
export RUSTC_BOOTSTRAP=1
targets=("$@")
[ ${#targets[@]} -gt 0 ] || { echo "usage: long.sh TARGET..." >&2; exit 2; }

"${CARGO:-cargo}" fuzz build -O || exit 1

count_artifacts() { # kind target
    find "artifacts/$2" -maxdepth 1 -name "$1-*" 2>/dev/null | wc -l
}

run_one() { # target
    local t=$1 log=target/long-$1.log start end rc
    mkdir -p "corpus/$t" "artifacts/$t"
    local crashes0 timeouts0
    crashes0=$(count_artifacts crash "$t")
    timeouts0=$(count_artifacts timeout "$t")
    start=$(date +%s)
    # -max_total_time ends the run; the outer timeout is only a guard against a wedged
    # process (libFuzzer's own -timeout handles slow inputs).
    PMIX_FUZZ_SEEDS=corpus/$t timeout -s KILL $((SECS + 300)) nice -n "$NICE" \
        "${CARGO:-cargo}" fuzz run -O "$t" "corpus/$t" -- -max_total_time="$SECS" -timeout="$UNIT_TIMEOUT" \
        -print_final_stats=1 >"$log" 2>&1
    rc=$?
    end=$(date +%s)
    local execs rate newu done
    execs=$(grep -ao 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
    rate=$(grep -ao 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$')
    newu=$(grep -ao 'stat::new_units_added: *[0-9]*' "$log" | grep -o '[0-9]*$')
    # libFuzzer's last line: "#N DONE cov: C ft: F corp: ENTRIES/SIZE ..."
    done=$(grep -a 'DONE  *cov:' "$log" | tail -n 1 | grep -o 'cov: [0-9]* ft: [0-9]* corp: [^ ]*')
    printf '%-15s rc=%d wall=%ds executions=%s exec/s=%s corpus_files=%d new_units=%s crashes=%d timeouts=%d %s\n' \
        "$t" "$rc" $((end - start)) "${execs:-?}" "${rate:-?}" "$(find "corpus/$t" -type f | wc -l)" \
        "${newu:-?}" $(($(count_artifacts crash "$t") - crashes0)) \
        $(($(count_artifacts timeout "$t") - timeouts0)) "${done:-}"
    [ "$rc" -eq 0 ] || { tail -40 "$log"; return 1; }
}

failed=0
i=0
while [ $i -lt ${#targets[@]} ]; do
    pids=()
    for ((j = 0; j < JOBS && i < ${#targets[@]}; j++, i++)); do
        run_one "${targets[$i]}" &
        pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p" || failed=1; done
done
exit $failed
