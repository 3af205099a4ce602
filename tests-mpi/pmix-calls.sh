#!/usr/bin/env bash
# pmix-calls.sh CMD... - which PMIx_* functions did Open MPI's plugin call, in the order of
# their first call, per process? Runs CMD (e.g. mpirun ... ./mpi_hello, with LD_PRELOAD or
# LD_LIBRARY_PATH set as usual) under LD_DEBUG=bindings: the plugin binds lazily, so each
# PMIx_* symbol is bound on its first call (PMIx_Get_version at load: it is also referenced
# as data). When a process fails, the last name of its line is the call to look at first.
# Prints "PID COMMAND: calls..." per process that loaded the plugin. Not with LD_BIND_NOW.
set -uo pipefail
[ $# -gt 0 ] || { echo "usage: pmix-calls.sh CMD..." >&2; exit 2; }
dir=$(mktemp -d /tmp/pmix-calls.XXXXXX)
trap 'rm -rf "$dir"' EXIT
LD_DEBUG=bindings LD_DEBUG_OUTPUT=$dir/b "$@"
rc=$?
found=0
for f in "$dir"/b.*; do
  calls=$(grep 'binding file [^ ]*/mca_pmix_ext3x\.so ' "$f" | grep -o 'symbol `PMIx_[A-Za-z0-9_]*' |
    cut -c9- | awk '!seen[$1]++' | paste -sd' ' -)
  [ -n "$calls" ] || continue
  lib=$(grep 'binding file [^ ]*/mca_pmix_ext3x\.so ' "$f" |
    sed -n 's/.*\] to \([^ ]*\) \[[0-9]*\]: normal symbol `PMIx_.*/\1/p' | sort -u | paste -sd, -)
  echo "pid ${f##*.} (via $lib): $calls"
  found=1
done
[ "$found" = 1 ] || echo "no process bound a PMIx_* symbol from mca_pmix_ext3x.so (plugin not loaded?)"
exit $rc
