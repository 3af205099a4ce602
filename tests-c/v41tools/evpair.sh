#!/usr/bin/env bash
# evpair.sh: an event from one tool to another through their server (run.sh).
#
#   evpair.sh PID "LISTENER" "NOTIFIER" CODE RANGE
#
# LISTENER and NOTIFIER are evtool commands (words split on spaces: "env LD_PRELOAD=..
# evtool"). The listener attaches to the server of pid PID and registers for CODE; once
# it is registered the notifier attaches and raises CODE with range RANGE. The exit
# status is the listener's (it fails when its handler does not see the event in 10 s).
set -u
pid=$1 listener=$2 notifier=$3 code=$4 range=$5
ready=$(mktemp -u)
trap 'rm -f "$ready"' EXIT
$listener "$pid" listen "$code" "$ready" & lp=$!
for _ in $(seq 100); do
    [ -e "$ready" ] && break
    sleep 0.1
done
$notifier "$pid" notify "$code" "$range"
wait $lp
