#!/usr/bin/env bash
# ds21-compare.sh WANT_DS21 PMIXRUN_ARGS...: run one job of tests-c/v41server/jobinfo.c
# ranks under pmixrun twice, with the server's ds21 store on (PMIX_RS_DS21=1) and off,
# each in a fresh TMPDIR. Passes (prints "SAME <n> values; ds21 ranks <k>") when both
# runs print the same values, exactly WANT_DS21 ranks say a ds21 data segment was mapped
# into them with the store on and none with it off, and no file is left in either
# TMPDIR after the job. Otherwise prints "FAIL ..." and the runs' output.
set -u
want=$1
shift
declare -A out
for mode in 1 0; do
    t=$(mktemp -d)
    out[$mode]=$(TMPDIR=$t PMIX_RS_DS21=$mode "$@" 2>&1)
    rc=$?
    left=$(find "$t" -mindepth 1 | head -5)
    rm -rf "$t"
    if [ $rc -ne 0 ]; then
        printf 'FAIL PMIX_RS_DS21=%s: exit %s\n%s\n' "$mode" "$rc" "${out[$mode]}"
        exit 1
    fi
    if [ -n "$left" ]; then
        printf 'FAIL PMIX_RS_DS21=%s left files behind:\n%s\n' "$mode" "$left"
        exit 1
    fi
done
on=$(grep -c '^gds [0-9]* ds21$' <<<"${out[1]}")
off=$(grep -c '^gds [0-9]* ds21$' <<<"${out[0]}")
if [ "$on" -ne "$want" ] || [ "$off" -ne 0 ]; then
    printf 'FAIL ds21 ranks: %s with the store on (want %s), %s off\n%s\n' \
        "$on" "$want" "$off" "${out[1]}"
    exit 1
fi
a=$(grep '^V ' <<<"${out[1]}" | sort)
b=$(grep '^V ' <<<"${out[0]}" | sort)
if [ "$a" != "$b" ] || [ -z "$a" ]; then
    echo "FAIL values differ (< ds21 on, > off):"
    diff <(echo "$a") <(echo "$b")
    exit 1
fi
echo "SAME $(wc -l <<<"$a") values; ds21 ranks $on"
