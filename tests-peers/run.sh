#!/usr/bin/env bash
# run.sh: the peers cases (see mk/peers.mk): programs written the way OpenPMIx master's
# own examples use the API, each run under pmixrun through tools/harness.sh.
#
# Environment (set by mk/peers.mk): PMIXRUN, PEERS (directory of the built programs).
set -u
: "${PMIXRUN:?}" "${PEERS:?}"
AREA=peers
. "$(dirname "$0")/../tools/harness.sh"
PR=("$PMIXRUN" --timeout 50)
OK=' 0 failed'

check "invite: a leader outside the group; context id in the completion; abort for all (4 ranks)" \
    0 "$OK" 60 4 -- "${PR[@]}" -n 4 "$PEERS/invite"
check "invite with 3 ranks" 0 "$OK" 60 3 -- "${PR[@]}" -n 3 "$PEERS/invite"
check "PMIX_GROUP_INFO is group-qualified data: PMIX_GROUP_LOCAL_CID for self and peers" \
    0 "$OK" 60 4 -- "${PR[@]}" -n 4 "$PEERS/group_info"
check "handlers AFTER the first / BEFORE the last overall" 0 "$OK" 30 -- \
    "${PR[@]}" -n 1 "$PEERS/evorder"
check "a mistyped PMIX_PARENT_ID is BAD_PARAM" 0 "$OK" 30 -- \
    "${PR[@]}" -n 1 "$PEERS/spawn_parent"
check "a Get with PMIX_TIMEOUT waits for a peer that has not connected yet" 0 "$OK" 30 2 -- \
    "${PR[@]}" -n 2 "$PEERS/dmodex_late"
check "PMIX_DEL_GLOBAL + commit + collecting fence: the peers no longer read the key" \
    0 "$OK" 30 3 -- "${PR[@]}" -n 3 "$PEERS/delkey"
check "the ABI levels are answered before PMIx_Init" 0 "$OK" 30 -- \
    "${PR[@]}" -n 1 "$PEERS/abi_noinit"
check "a rank's exit that ends the job is told to the others (PMIX_ERR_PROC_ABORTED)" \
    3 "$OK" 30 2 -- "${PR[@]}" -n 3 "$PEERS/fault_notice"
check "a --pset set reaches a PMIX_PROCESS_SET_DEFINE handler registered later" \
    0 "$OK" 30 2 -- "${PR[@]}" -n 2 --pset late.set "$PEERS/pset_late"
harness_end
