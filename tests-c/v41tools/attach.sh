#!/usr/bin/env bash
# attach.sh: run a tool against a live job (tests-c/v41tools/run.sh).
#
#   attach.sh pmixrun|prterun LAUNCHER NRANKS TOOL [ARGS...]
#
# Starts NRANKS ranks under LAUNCHER with a fresh TMPDIR (each rank writes its
# PMIX_NAMESPACE to the tmpdir and sleeps), waits for the launcher's tool rendezvous
# file (pmix.<host>.tool.<pid>, anywhere below the tmpdir) and the ranks' namespaces,
# then runs TOOL ARGS with TMPDIR set, "@PID@" and "@NS@" in ARGS replaced by the
# launcher's pid and the job's namespace. The job is killed after; the exit status is
# the tool's (99 when the job did not come up in 20 s). With ATTACH_WAIT=N the job is
# given N seconds to end by itself after the tool (a tool that ended it): "attach.sh:
# <kind> exited S" then, or "attach.sh: <kind> still runs".
set -u
kind=$1 launcher=$2 n=$3
shift 3
t=$(mktemp -d)
trap 'kill $pr 2>/dev/null; wait $pr 2>/dev/null; rm -rf "$t"' EXIT
rank='echo "$PMIX_NAMESPACE" > "$0/ns.$PMIX_RANK"; sleep 30'
# ATTACH_TICKS=1: the ranks print "tick N" every 0.2 s instead (output for a tool's pull).
[ -n "${ATTACH_TICKS:-}" ] &&
    rank='echo "$PMIX_NAMESPACE" > "$0/ns.$PMIX_RANK"; for i in $(seq 150); do echo "tick $i"; sleep 0.2; done'
case $kind in
    pmixrun) TMPDIR=$t "$launcher" --timeout 40 -n "$n" sh -c "$rank" "$t" & pr=$! ;;
    prterun) TMPDIR=$t OPAL_PREFIX=$(dirname "$(dirname "$launcher")") \
                 "$launcher" --allow-run-as-root -n "$n" sh -c "$rank" "$t" & pr=$! ;;
    *) echo "attach.sh: unknown launcher kind $kind"; exit 2 ;;
esac
for _ in $(seq 200); do
    if [ -n "$(find "$t" -name "pmix.*.tool.$pr" 2>/dev/null)" ] && [ -s "$t/ns.0" ] &&
        [ "$(ls "$t" | grep -c '^ns\.')" -ge "$n" ]; then
        break
    fi
    sleep 0.1
done
ns=$(cat "$t/ns.0" 2>/dev/null)
if [ -z "$ns" ]; then
    echo "FAIL attach.sh: the $kind job did not come up"
    exit 99
fi
args=()
for a in "$@"; do
    a=${a//@PID@/$pr}
    args+=("${a//@NS@/$ns}")
done
echo "attach.sh: $kind pid $pr, namespace $ns"
TMPDIR=$t "${args[@]}"
rc=$?
if [ -n "${ATTACH_WAIT:-}" ]; then
    for _ in $(seq $((ATTACH_WAIT * 10))); do
        kill -0 "$pr" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pr" 2>/dev/null; then
        echo "attach.sh: $kind still runs"
    else
        wait "$pr"
        echo "attach.sh: $kind exited $?"
    fi
fi
exit $rc
