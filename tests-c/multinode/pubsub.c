/* pubsub: PMIx_Publish / PMIx_Lookup / PMIx_Unpublish between processes on different
 * nodes (pmixrun's front end keeps the one store every node's server forwards to).
 * Rank r publishes "mn-pub-<r>" = r * 7; every rank looks up the key of a rank on another
 * node, a missing key, and (PMIX_WAIT) a key the last rank publishes only after the first
 * lookups. Then each unpublishes its key, which is gone for everyone after a fence.
 * Run: pmixrun --nodes K -n N pubsub K */
#include <unistd.h>

#include "mn.h"

static pmix_status_t publish_u32(const char *key, uint32_t v)
{
    pmix_info_t info;
    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, key, &v, PMIX_UINT32);
    pmix_status_t rc = PMIx_Publish(&info, 1);
    PMIX_INFO_DESTRUCT(&info);
    return rc;
}

/* Look up `key` (with PMIX_WAIT and a 10 s PMIX_TIMEOUT when `wait`); its status, the
 * value in *v and the publisher's rank in *from. */
static pmix_status_t lookup_u32(const char *key, bool wait, uint32_t *v, pmix_rank_t *from)
{
    pmix_pdata_t pd;
    PMIX_PDATA_CONSTRUCT(&pd);
    PMIX_LOAD_KEY(pd.key, key);
    pmix_info_t info[2];
    size_t ninfo = 0;
    if (wait) {
        bool yes = true;
        int secs = 10;
        PMIX_INFO_LOAD(&info[0], PMIX_WAIT, &yes, PMIX_BOOL);
        PMIX_INFO_LOAD(&info[1], PMIX_TIMEOUT, &secs, PMIX_INT);
        ninfo = 2;
    }
    pmix_status_t rc = PMIx_Lookup(&pd, 1, ninfo ? info : NULL, ninfo);
    if (PMIX_SUCCESS == rc) {
        if (pd.value.type == PMIX_UINT32) {
            *v = pd.value.data.uint32;
            *from = pd.proc.rank;
        } else {
            rc = PMIX_ERR_TYPE_MISMATCH;
        }
    }
    for (size_t i = 0; i < ninfo; i++) {
        PMIX_INFO_DESTRUCT(&info[i]);
    }
    PMIX_PDATA_DESTRUCT(&pd);
    return rc;
}

int main(int argc, char **argv)
{
    pmix_proc_t me;
    uint32_t n = mn_init(&me);
    uint32_t k = argc > 1 ? (uint32_t)atoi(argv[1]) : 2;
    if (n < 2 || k < 2) {
        CHECK(n >= 2 && k >= 2, "at least 2 ranks on 2 nodes");
        CHECK_DONE();
    }
    char key[64];
    snprintf(key, sizeof key, "mn-pub-%u", me.rank);
    CHECK_RC(publish_u32(key, me.rank * 7), PMIX_SUCCESS, "PMIx_Publish");
    CHECK_RC(publish_u32(key, 1), PMIX_ERR_DUPLICATE_KEY, "PMIx_Publish of the same key again");
    CHECK_RC(mn_fence(false), PMIX_SUCCESS, "Fence (everything published)");

    /* A rank on another node: the first rank of the next node. */
    uint32_t node = mn_node_of(n, k, me.rank);
    pmix_rank_t peer = mn_first(n, k, (node + 1) % k);
    snprintf(key, sizeof key, "mn-pub-%u", peer);
    uint32_t v = 0;
    pmix_rank_t from = PMIX_RANK_INVALID;
    CHECK_RC(lookup_u32(key, false, &v, &from), PMIX_SUCCESS, "PMIx_Lookup of another node's key");
    CHECK(v == peer * 7 && from == peer, "rank %u (node %u) reads %s = %u from rank %u, want %u from %u",
          me.rank, node, key, v, from, peer * 7, peer);
    CHECK_RC(lookup_u32("mn-pub-none", false, &v, &from), PMIX_ERR_NOT_FOUND,
             "PMIx_Lookup of a key nobody published");

    /* A waiting lookup, satisfied by a publish from the last rank's node. */
    if (me.rank == n - 1) {
        usleep(300 * 1000);
        CHECK_RC(publish_u32("mn-pub-late", 4242), PMIX_SUCCESS, "PMIx_Publish (late)");
    }
    CHECK_RC(lookup_u32("mn-pub-late", true, &v, &from), PMIX_SUCCESS, "PMIx_Lookup with PMIX_WAIT");
    CHECK(v == 4242 && from == n - 1, "the late key is 4242 from rank %u (got %u from %u)", n - 1, v,
          from);
    CHECK_RC(mn_fence(false), PMIX_SUCCESS, "Fence (every lookup done)");

    char mine[64];
    snprintf(mine, sizeof mine, "mn-pub-%u", me.rank);
    char *keys[] = {mine, NULL};
    CHECK_RC(PMIx_Unpublish(keys, NULL, 0), PMIX_SUCCESS, "PMIx_Unpublish");
    CHECK_RC(mn_fence(false), PMIX_SUCCESS, "Fence (everything unpublished)");
    CHECK_RC(lookup_u32(key, false, &v, &from), PMIX_ERR_NOT_FOUND,
             "PMIx_Lookup of another node's unpublished key");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
