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
harness_end
