/* get_cache: caching of other processes' values.
 *   rule "a value read from another process is cached and a later fence does not
 *        refresh it": the peer re-posts, commits and a collecting fence circulates the
 *        new value, yet the Get keeps returning the first one;
 *        (a key the peer added, never read before, arrives with that fence's collected
 *        data and is found with PMIX_OPTIONAL: only values already read stay as read);
 *   rule "PMIX_GET_REFRESH_CACHE refreshes": with it the Get returns the new value, and
 *        the refresh brings across everything the peer published (a key the peer added
 *        before a fence that collected nothing is then found with PMIX_OPTIONAL); a NULL
 *        key refreshes all of it.
 * Run: pmixrun -n 3 get_cache */
#include "rules.h"

int main(void)
{
    RULES_INIT();
    pmix_proc_t peer;
    proc_of(&peer, (me.rank + 1) % nprocs);
    pmix_info_t opt, refresh;
    flag_info(&opt, PMIX_OPTIONAL);
    flag_info(&refresh, PMIX_GET_REFRESH_CACHE);
    int v = -1;

    CHECK_RC(put_int(PMIX_GLOBAL, "gc.k", 1), PMIX_SUCCESS, "Put gc.k=1");
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit");
    collect("collecting Fence 1");
    CHECK_RC(get_int(&peer, "gc.k", NULL, 0, &v), PMIX_SUCCESS, "first Get of the peer's key");
    CHECK(1 == v, "first value 1 (got %d)", v);
    barrier("Fence: everyone has read");

    CHECK_RC(put_int(PMIX_GLOBAL, "gc.k", 2), PMIX_SUCCESS, "Put gc.k=2");
    CHECK_RC(put_int(PMIX_GLOBAL, "gc.extra", 7), PMIX_SUCCESS, "Put gc.extra=7");
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit");
    collect("collecting Fence 2");
    v = -1;
    CHECK_RC(get_int(&peer, "gc.k", NULL, 0, &v), PMIX_SUCCESS, "Get after the second fence");
    CHECK(1 == v, "a later fence does not refresh the cached value (got %d, want 1)", v);
    v = -1;
    CHECK_RC(get_int(&peer, "gc.extra", &opt, 1, &v), PMIX_SUCCESS,
             "a key never read before came with the collecting fence (OPTIONAL finds it)");
    CHECK(7 == v, "gc.extra = %d", v);
    barrier("Fence: everyone has read gc.extra");

    /* A key added before a fence that collects nothing is not here without a refresh. */
    CHECK_RC(put_int(PMIX_GLOBAL, "gc.later", 8), PMIX_SUCCESS, "Put gc.later=8");
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit");
    barrier("non-collecting Fence");
    CHECK_RC(get_int(&peer, "gc.later", &opt, 1, &v), PMIX_ERR_NOT_FOUND,
             "the peer's key committed before a non-collecting fence is not in the cache yet");
    v = -1;
    CHECK_RC(get_int(&peer, "gc.k", &refresh, 1, &v), PMIX_SUCCESS, "Get with REFRESH_CACHE");
    CHECK(2 == v, "PMIX_GET_REFRESH_CACHE returns the new value (got %d)", v);
    v = -1;
    CHECK_RC(get_int(&peer, "gc.later", &opt, 1, &v), PMIX_SUCCESS,
             "the refresh brought everything the peer published (OPTIONAL finds gc.later)");
    CHECK(8 == v, "gc.later = %d", v);
    v = -1;
    CHECK_RC(get_int(&peer, "gc.k", NULL, 0, &v), PMIX_SUCCESS, "plain Get after the refresh");
    CHECK(2 == v, "the cache now holds the new value (got %d)", v);
    barrier("Fence: everyone has refreshed");

    /* A NULL key refreshes everything too. */
    CHECK_RC(put_int(PMIX_GLOBAL, "gc.k", 3), PMIX_SUCCESS, "Put gc.k=3");
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit");
    collect("collecting Fence 3");
    v = -1;
    CHECK_RC(get_int(&peer, "gc.k", NULL, 0, &v), PMIX_SUCCESS, "Get after the third fence");
    CHECK(2 == v, "still the cached value (got %d)", v);
    pmix_value_t *all = NULL;
    CHECK_RC(PMIx_Get(&peer, NULL, &refresh, 1, &all), PMIX_SUCCESS,
             "Get with a NULL key and REFRESH_CACHE");
    int seen = -1;
    if (all && all->type == PMIX_DATA_ARRAY && all->data.darray &&
        all->data.darray->type == PMIX_INFO) {
        pmix_info_t *in = all->data.darray->array;
        for (size_t i = 0; i < all->data.darray->size; i++) {
            if (PMIX_CHECK_KEY(&in[i], "gc.k") && in[i].value.type == PMIX_INT) {
                seen = in[i].value.data.integer;
            }
        }
    }
    CHECK(3 == seen, "the NULL-key refresh returns the new value (%d)", seen);
    if (all) {
        PMIX_VALUE_RELEASE(all);
    }
    v = -1;
    CHECK_RC(get_int(&peer, "gc.k", &opt, 1, &v), PMIX_SUCCESS, "OPTIONAL after it");
    CHECK(3 == v, "a NULL key refreshes all values of the process (got %d)", v);

    PMIX_INFO_DESTRUCT(&opt);
    PMIX_INFO_DESTRUCT(&refresh);
    barrier("final Fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
