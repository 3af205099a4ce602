#!/usr/bin/env bash
# run.sh: the host-lock cases (see mk/hostlock.mk): tests-c/hostlock/hostlock in its two
# modes. One ok/FAIL line per case, the output of a failing case below it, and
# "N passed, M failed". A case still running after $LIMIT seconds is a hang: the stacks
# of every thread of the host and of its client are printed (gdb), then it is killed.
#
# Environment (set by mk/hostlock.mk): HOSTLOCK (the built program), TIMEOUT (e.g.
# "timeout -s KILL", the outer bound).
set -u
: "${HOSTLOCK:?}" "${TIMEOUT:?}"
LIMIT=${HOSTLOCK_LIMIT:-40}
pass=0
fail=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# Print every thread's stack of `pid` and of its children.
stacks() {
    local p
    for p in "$1" $(pgrep -P "$1"); do
        echo "---- stacks of pid $p ($(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null))"
        if command -v gdb >/dev/null; then
            timeout -s KILL 30 gdb -q -batch -ex 'thread apply all bt' -p "$p" 2>&1 |
                grep -E '^(Thread|#)' | head -n 120
        else
            echo "(gdb is not installed: no stacks)"
        fi
    done
}

case_() {
    local name=$1 why="" rc i pid
    shift
    $TIMEOUT $((LIMIT + 60)) "$@" >"$out" 2>&1 &
    pid=$!
    for ((i = 0; i < LIMIT * 10; i++)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        # `pid` is the timeout wrapper; the host is its child.
        local host
        host=$(pgrep -P "$pid" | head -n 1)
        why="still running after $LIMIT s (a hang)"
        [ -n "$host" ] && stacks "$host" >>"$out"
        [ -n "$host" ] && pkill -KILL -P "$host"
        [ -n "$host" ] && kill -KILL "$host" 2>/dev/null
        kill -KILL "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    else
        wait "$pid"
        rc=$?
        if [ "$rc" -ne 0 ]; then
            why="exit status $rc"
        elif grep -q '^FAIL\|RELOCK' "$out"; then
            why="a check failed"
        elif ! grep -Eq 'hostlock.c: [0-9]+ checks, 0 failed' "$out"; then
            why="no verdict line"
        fi
    fi
    if [ -z "$why" ]; then
        pass=$((pass + 1))
        echo "ok   $name"
    else
        fail=$((fail + 1))
        echo "FAIL $name: $why"
        grep -v '^ok ' "$out" | tail -n 250 | sed 's/^/    | /'
    fi
}

case_ "a host completing inside its upcalls under its own lock" "$HOSTLOCK" inline
case_ "a host completing on its own thread under its own lock" "$HOSTLOCK" thread

echo "hostlock: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
