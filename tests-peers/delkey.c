/* delkey: PMIX_DEL_GLOBAL reaches the peers that had read the key (what OpenPMIx master's
 * examples/delete_key.c checks, without its race; see docs/STATUS.md).
 * Run: pmixrun -n 3 delkey
 * Every rank puts "victim" and "keeper", commits, and a collecting fence circulates
 * them; every rank reads both keys of every rank (so they are cached) and a plain fence
 * says everybody has. Rank 0 deletes "victim" (PMIX_DEL_GLOBAL), commits, and a second
 * collecting fence follows: then no rank reads rank 0's "victim" any more (a Get with a
 * 1 s PMIX_TIMEOUT waits for it as for a key never put: PMIX_ERR_TIMEOUT; the owner gets
 * NOT_FOUND), everything else is still readable. After a plain fence rank 0 puts
 * "victim" again with a new value, and after a third collecting fence everybody reads
 * the new value. */
#include <pmix.h>
#include <string.h>
#include "../tests-c/check.h"

static pmix_proc_t me;

static pmix_status_t read_u32(pmix_rank_t r, const char *key, uint32_t *out)
{
    pmix_proc_t p;
    pmix_info_t tmo;
    pmix_value_t *val = NULL;
    int secs = 1;
    PMIX_PROC_LOAD(&p, me.nspace, r);
    PMIX_INFO_LOAD(&tmo, PMIX_TIMEOUT, &secs, PMIX_INT);
    pmix_status_t rc = PMIx_Get(&p, key, &tmo, 1, &val);
    PMIX_INFO_DESTRUCT(&tmo);
    if (rc == PMIX_SUCCESS) {
        *out = (val != NULL && val->type == PMIX_UINT32) ? val->data.uint32 : 0xdead;
    }
    if (val != NULL) {
        PMIX_VALUE_RELEASE(val);
    }
    return rc;
}

static void put_u32(pmix_scope_t scope, const char *key, uint32_t v)
{
    pmix_value_t value;
    PMIX_VALUE_LOAD(&value, &v, PMIX_UINT32);
    CHECK_RC(PMIx_Put(scope, key, scope >= PMIX_DEL_LOCAL ? NULL : &value), PMIX_SUCCESS, key);
    PMIX_VALUE_DESTRUCT(&value);
}

static void fence(const char *what)
{
    pmix_proc_t all;
    pmix_info_t info;
    bool flag = true;
    PMIX_PROC_LOAD(&all, me.nspace, PMIX_RANK_WILDCARD);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &flag, PMIX_BOOL);
    CHECK_RC(PMIx_Fence(&all, 1, &info, 1), PMIX_SUCCESS, what);
    PMIX_INFO_DESTRUCT(&info);
}

int main(void)
{
    uint32_t v = 0, n = 3;
    CHECK_RC(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS, "init");
    put_u32(PMIX_GLOBAL, "victim", me.rank + 10);
    put_u32(PMIX_GLOBAL, "keeper", me.rank + 20);
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "commit");
    fence("first collecting fence");
    for (pmix_rank_t r = 0; r < n; r++) {
        CHECK(read_u32(r, "victim", &v) == PMIX_SUCCESS && v == r + 10, "rank %u's victim", r);
        CHECK(read_u32(r, "keeper", &v) == PMIX_SUCCESS && v == r + 20, "rank %u's keeper", r);
    }
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "everybody has read");
    if (me.rank == 0) {
        put_u32(PMIX_DEL_GLOBAL, "victim", 0);
        CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "commit of the deletion");
        CHECK(read_u32(0, "victim", &v) != PMIX_SUCCESS, "the owner no longer reads it");
    }
    fence("second collecting fence");
    pmix_status_t rc = read_u32(0, "victim", &v);
    CHECK(rc == PMIX_ERR_NOT_FOUND || rc == PMIX_ERR_TIMEOUT,
          "rank 0's deleted victim is gone (%d, %u)", rc, v);
    for (pmix_rank_t r = 0; r < n; r++) {
        CHECK(read_u32(r, "keeper", &v) == PMIX_SUCCESS && v == r + 20,
              "rank %u's keeper is still there", r);
        if (r != 0) {
            CHECK(read_u32(r, "victim", &v) == PMIX_SUCCESS && v == r + 10,
                  "rank %u's victim is still there", r);
        }
    }
    /* everybody has looked before the key comes back */
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "everybody has looked");
    if (me.rank == 0) {
        put_u32(PMIX_GLOBAL, "victim", 4242);
        CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "commit of the new value");
    }
    fence("third collecting fence");
    CHECK(read_u32(0, "victim", &v) == PMIX_SUCCESS && v == 4242,
          "the re-published victim reads the new value (%u)", v);
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "finalize");
    CHECK_DONE();
}
