#!/usr/bin/env bash
# run.sh: munge security in OpenPMIx's dialect (see mk/munge.mk), both roles. It re-runs
# itself in a private mount namespace (unshare -m) where an empty temporary directory is
# bound over /run/munge: libmunge (ours and Debian's alike) only knows the default socket
# /run/munge/munge.socket.2, so the test's own munged (its own key, socket, pid and log
# file in that directory) serves every process of the test and nothing else on the
# machine; it is stopped at the end whatever happens. Without root or unshare, or when
# munged does not start, the whole area is skipped with a message.
#
# Environment (set by mk/munge.mk):
#   OURS      our libpmix.so.2 (its directory is the ranks' LD_LIBRARY_PATH)
#   CLIENT    tests-c/v41client/client.c built against our headers (no rpath)
#   OPX       tests-c/v41server/mixed.c built against Debian's OpenPMIx 4.2.2
#   PMIXRUN   the launcher
#   V41TEST   the v41_server test binary (its munge case)
set -u
: "${OURS:?}" "${CLIENT:?}" "${OPX:?}" "${PMIXRUN:?}" "${V41TEST:?}"
if [ -z "${MUNGE_NS:-}" ]; then
    if [ "$(id -u)" != 0 ] || ! unshare -m true 2>/dev/null; then
        echo "SKIP munge-check: needs root and unshare -m (a private /run/munge)"
        exit 0
    fi
    made=""
    [ -d /run/munge ] || { mkdir -p /run/munge && made=1; }
    MUNGE_NS=1 unshare -m --propagation private bash "$0" "$@"
    rc=$?
    [ -z "$made" ] || rmdir /run/munge 2>/dev/null
    exit $rc
fi

AREA=munge
. "$(dirname "$0")/../../tools/harness.sh"
libdir=$(dirname "$OURS")
MPIRUN=(env -u LD_PRELOAD -u LD_LIBRARY_PATH mpirun --allow-run-as-root --oversubscribe)
RANK_ENV=(env LD_LIBRARY_PATH="$libdir" V41CLIENT_LIB="$(readlink -f "$OURS")")
PR=("$PMIXRUN" --timeout 40)
MD=$(mktemp -d "${TMPDIR:-/tmp}/munge-check.XXXXXX")
chmod 0755 "$MD" # the "another uid" case runs munge as nobody
mount --bind "$MD" /run/munge || { echo "SKIP munge-check: cannot bind /run/munge"; exit 0; }
MUNGED_PID=""
stop_munged() {
    [ -z "$MUNGED_PID" ] || kill "$MUNGED_PID" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$MUNGED_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$MUNGED_PID" 2>/dev/null
    umount /run/munge 2>/dev/null
    rm -rf "$MD"
}
trap stop_munged EXIT

# --- no munged: a server offering only munge is refused clearly, at once ---
check "munge-only server, no munged: our client's PMIx_Init fails" 0 \
    'PMIx_Init: got -47 want -47' 30 -- \
    "${MPIRUN[@]}" -np 1 "${RANK_ENV[@]}" V41CLIENT_REFUSE=1 PMIX_SECURITY_MODE=munge \
    PMIX_DEBUG=warn "$CLIENT"
check "no munged: pmixrun offers OpenPMIx children native only" 0 '^mode=native$' 30 -- \
    "${PR[@]}" -n 1 sh -c 'echo "mode=$PMIX_SECURITY_MODE"'

# --- start the test's munged ---
mungekey --create --keyfile="$MD/munge.key" >/dev/null 2>&1 ||
    { echo "SKIP munge-check: mungekey failed"; exit 0; }
munged --force --socket=/run/munge/munge.socket.2 --key-file="$MD/munge.key" \
    --pid-file="$MD/munged.pid" --log-file="$MD/munged.log" --seed-file="$MD/munged.seed" \
    >"$MD/munged.out" 2>&1 || { echo "SKIP munge-check: munged did not start"; cat "$MD/munged.out"; exit 0; }
for _ in $(seq 50); do [ -s "$MD/munged.pid" ] && break; sleep 0.1; done
MUNGED_PID=$(cat "$MD/munged.pid" 2>/dev/null)
munge -n >/dev/null 2>&1 || { echo "SKIP munge-check: munged does not answer"; exit 0; }

# --- our server: what it offers, OpenPMIx clients that use munge ---
check "pmixrun offers native,munge while munged runs" 0 '^mode=native,munge$' 30 -- \
    "${PR[@]}" -n 1 sh -c 'echo "mode=$PMIX_SECURITY_MODE"'
# Each accepted connect message is logged with its psec module (PMIX_DEBUG=debug);
# mixed.c prints PASS or FAIL lines (FAIL fails the case).
check "OpenPMIx clients with PMIX_MCA_psec=munge under pmixrun (4 ranks)" 0 \
    'client .*psec munge\)' 60 4 -- \
    env PMIX_MCA_psec=munge PMIX_DEBUG=debug "${PR[@]}" -n 4 "$OPX"
check "an OpenPMIx client offered native,munge picks munge (as under its own server)" 0 \
    'client .*psec munge\)' 60 -- env PMIX_DEBUG=debug "${PR[@]}" -n 1 "$OPX"
check "the server refuses replayed, forged, expired and foreign credentials" 0 \
    'test munge_credentials_are_checked_by_munged \.\.\. ok' 40 -- \
    env PMIX_TEST_MUNGED=1 "$V41TEST" munge_credentials_are --nocapture --test-threads 1
check "a stopped munged fails that one connect (PMIX_ERR_TIMEOUT), others are served" 0 \
    'test munge_credentials_a_hung_munged_fails_one_connect_only \.\.\. ok' 40 -- \
    env PMIX_TEST_MUNGED_PID="$MUNGED_PID" PMIX_RS_MUNGE_TIMEOUT=2 \
    "$V41TEST" munge_credentials_a_hung --nocapture --test-threads 1

# --- our client under Debian's mpirun serving munge only ---
check "our client under mpirun with PMIX_MCA_psec=munge (2 ranks)" 0 \
    'client.c: [0-9]+ checks, 0 failed' 60 2 -- \
    env PMIX_MCA_psec=munge "${MPIRUN[@]}" -np 2 "${RANK_ENV[@]}" \
    sh -c '[ "$PMIX_SECURITY_MODE" = munge ] || { echo "FAIL mode $PMIX_SECURITY_MODE"; exit 7; }
           exec "$0" "$@"' "$CLIENT"
harness_end
