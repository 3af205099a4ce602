#!/usr/bin/env bash
# run.sh: the init diagnostics (see mk/initdiag.mk). Each case runs initdiag with a
# server address that cannot work and checks that exactly one "PMIx_Init failed" (or
# "PMIx_tool_init failed") line on stderr names what was tried and why; a successful
# init under pmixrun prints nothing on stderr. "N passed, M failed" at the end.
#
# Environment (set by mk/initdiag.mk): INITDIAG (the program), PMIXRUN, TIMEOUT.
set -u
: "${INITDIAG:?}" "${PMIXRUN:?}" "${TIMEOUT:?}"
AREA=initdiag
. "$(dirname "$0")/../../tools/harness.sh"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export PMIX_NAMESPACE=initdiag-job PMIX_RANK=0
unset PMIX_DEBUG

# expect NAME PATTERN -- COMMAND...: stderr has exactly one line matching PATTERN and
# no other line from the library; stdout says both inits failed.
expect() {
    local name=$1 pattern=$2 why=""
    shift 3
    # stdout in $out (the harness's), stderr apart.
    run_job 30 -- sh -c 'err=$1; shift; exec "$@" 2>"$err"' sh "$dir/err" "$@"
    cp "$out" "$dir/out"
    local n
    n=$(grep -Ec -- "$pattern" "$dir/err")
    if [ "$HUNG" = 1 ]; then
        why="hang: still running after 30 s (killed)"
    elif [ "$n" -ne 1 ]; then
        why="$n stderr lines match /$pattern/, want 1"
    elif [ "$(grep -c '^\[pmix ' "$dir/err")" -ne 1 ]; then
        why="more than one line from the library on stderr"
    elif [ "$(grep -Ec 'init: [A-Z-]+$' "$dir/out")" -ne 2 ] || grep -q 'init: SUCCESS' "$dir/out"; then
        why="the init did not fail"
    fi
    verdict_io "$name" "$why"
}

# verdict_io NAME WHY: the harness's verdict, showing stdout and stderr apart.
verdict_io() {
    if [ -n "$2" ]; then
        { sed 's/^/out: /' "$dir/out"; sed 's/^/err: /' "$dir/err"; } >"$out"
    fi
    verdict "$1" "$2"
}

PFX='^\[pmix [0-9]+\] PMIx_Init failed: '
expect "a URI of a transport we do not speak" \
    "${PFX}NOT-SUPPORTED \(-47\): PMIX_SERVER_URI41: server URI \"initdiag-job.0;ucx://x\" is neither a unix: socket nor a tcp4:// or tcp6:// address" -- \
    env PMIX_SERVER_URI41='initdiag-job.0;ucx://x' "$INITDIAG" client
expect "an OpenPMIx server that is not there" \
    "${PFX}UNREACH \(-25\): cannot reach the OpenPMIx server at 127.0.0.1:1: " -- \
    env PMIX_SERVER_URI41='initdiag-job.0;tcp4://127.0.0.1:1' "$INITDIAG" client
expect "a URI without an address" \
    "${PFX}BAD-PARAM \(-27\): PMIX_SERVER_URI2: server URI \"garbage\" has no address" -- \
    env PMIX_SERVER_URI2=garbage "$INITDIAG" client
expect "a socket that does not exist" \
    "${PFX}UNREACH \(-25\): cannot reach the PMIx server at $dir/none/sock: No such file or directory" -- \
    env PMIX_SERVER_URI41="initdiag-job.0;unix:$dir/none/sock" "$INITDIAG" client
# A socket file nobody listens on: connect is refused.
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$dir/dead"
expect "a socket nobody listens on" \
    "${PFX}UNREACH \(-25\): cannot reach the PMIx server at $dir/dead: Connection refused" -- \
    env PMIX_SERVER_URI41="initdiag-job.0;unix:$dir/dead" "$INITDIAG" client
expect "a server that refuses the handshake" \
    "${PFX}NOT-FOUND \(-46\): the PMIx server at /.*/sock refused us: .*:99 is not a registered client" -- \
    "$PMIXRUN" --timeout 20 -n 1 "$INITDIAG" wrongrank
expect "a tool whose rendezvous file does not exist" \
    "^\[pmix [0-9]+\] PMIx_tool_init failed: UNREACH \(-25\): no server found: rendezvous file $dir/none/rndz: No such file or directory" -- \
    "$INITDIAG" tool "file:$dir/none/rndz"

# A successful init says nothing.
run_job 30 -- sh -c 'err=$1; shift; exec "$@" 2>"$err"' sh "$dir/err" \
    "$PMIXRUN" --timeout 20 -n 2 "$INITDIAG" client
cp "$out" "$dir/out"
why=""
if [ "$HUNG" = 1 ]; then
    why="hang: still running after 30 s (killed)"
elif [ "$(grep -c 'init: SUCCESS' "$dir/out")" -ne 2 ]; then
    why="the inits did not succeed"
elif [ -s "$dir/err" ]; then
    why="something was printed on stderr"
fi
verdict_io "a successful init prints nothing" "$why"

harness_end
