/* get_target: who a Get is about.
 *   rule "proc NULL means the caller": a NULL proc reads the caller's own posted and
 *        reserved data, exactly as naming itself does;
 *   rule "rank WILDCARD means job-level data": job keys answer for {nspace, WILDCARD};
 *   rule "key NULL returns all data of the process as a data array of infos": for the
 *        caller, for a peer and for the job.
 * Run: pmixrun -n 2 get_target */
#include "rules.h"

/* True if `v` is a PMIX_DATA_ARRAY of PMIX_INFO holding `key`; *n gets the size. */
static bool array_has(const pmix_value_t *v, const char *key, size_t *n)
{
    *n = 0;
    if (NULL == v || v->type != PMIX_DATA_ARRAY || NULL == v->data.darray ||
        v->data.darray->type != PMIX_INFO) {
        return false;
    }
    *n = v->data.darray->size;
    const pmix_info_t *infos = v->data.darray->array;
    for (size_t i = 0; i < v->data.darray->size; i++) {
        if (PMIX_CHECK_KEY(&infos[i], key)) {
            return true;
        }
    }
    return false;
}

static void all_of(const pmix_proc_t *p, const char *what, const char *want1, const char *want2)
{
    pmix_value_t *v = NULL;
    size_t n = 0;
    pmix_status_t rc = PMIx_Get(p, NULL, NULL, 0, &v);
    CHECK_RC(rc, PMIX_SUCCESS, what);
    CHECK(v && v->type == PMIX_DATA_ARRAY && v->data.darray && v->data.darray->type == PMIX_INFO,
          "key NULL returns all data of %s as a data array of infos", what);
    CHECK(array_has(v, want1, &n), "%s: the array (%zu infos) holds %s", what, n, want1);
    if (want2) {
        CHECK(array_has(v, want2, &n), "%s: the array (%zu infos) holds %s", what, n, want2);
    }
    if (v) {
        PMIX_VALUE_RELEASE(v);
    }
}

int main(void)
{
    RULES_INIT();
    CHECK(nprocs >= 2, "needs 2 ranks (have %u)", nprocs);
    if (nprocs < 2) {
        CHECK_DONE();
    }
    pmix_proc_t peer;
    proc_of(&peer, (me.rank + 1) % nprocs);

    CHECK_RC(put_int(PMIX_GLOBAL, "tg.mine", 100 + (int)me.rank), PMIX_SUCCESS, "Put tg.mine");
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit");
    collect("collecting Fence");

    /* proc NULL = self. */
    int a = -1, b = -2;
    CHECK_RC(get_int(NULL, "tg.mine", NULL, 0, &a), PMIX_SUCCESS, "proc NULL: own posted key");
    CHECK_RC(get_int(&me, "tg.mine", NULL, 0, &b), PMIX_SUCCESS, "own proc: own posted key");
    CHECK(a == 100 + (int)me.rank && a == b, "proc NULL means the caller: %d == %d", a, b);
    pmix_value_t *v1 = NULL, *v2 = NULL;
    CHECK_RC(PMIx_Get(NULL, PMIX_LOCAL_RANK, NULL, 0, &v1), PMIX_SUCCESS, "proc NULL: LOCAL_RANK");
    CHECK_RC(PMIx_Get(&me, PMIX_LOCAL_RANK, NULL, 0, &v2), PMIX_SUCCESS, "own proc: LOCAL_RANK");
    CHECK(v1 && v2 && v1->type == PMIX_UINT16 && v2->type == PMIX_UINT16 &&
              v1->data.uint16 == v2->data.uint16 && v1->data.uint16 == me.rank,
          "proc NULL means the caller for reserved keys too (LOCAL_RANK %u)",
          v1 ? v1->data.uint16 : 9999);
    if (v1) {
        PMIX_VALUE_RELEASE(v1);
    }
    if (v2) {
        PMIX_VALUE_RELEASE(v2);
    }
    CHECK_RC(get_int(&peer, "tg.mine", NULL, 0, &a), PMIX_SUCCESS, "peer's key");
    CHECK(a == 100 + (int)peer.rank, "a peer's key is the peer's (%d)", a);

    /* WILDCARD = job data. */
    pmix_value_t *v = NULL;
    CHECK_RC(PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &v), PMIX_SUCCESS, "WILDCARD JOB_SIZE");
    CHECK(v && v->type == PMIX_UINT32 && v->data.uint32 == nprocs,
          "rank WILDCARD retrieves job-level data (JOB_SIZE %u)", v ? v->data.uint32 : 0);
    if (v) {
        PMIX_VALUE_RELEASE(v);
    }
    v = NULL;
    CHECK_RC(PMIx_Get(&job, PMIX_NSPACE, NULL, 0, &v), PMIX_SUCCESS, "WILDCARD NSPACE");
    CHECK(v && v->type == PMIX_STRING && v->data.string && 0 == strcmp(v->data.string, me.nspace),
          "rank WILDCARD: PMIX_NSPACE is the job's namespace");
    if (v) {
        PMIX_VALUE_RELEASE(v);
    }

    /* key NULL = everything. */
    all_of(NULL, "self (proc NULL)", "tg.mine", PMIX_LOCAL_RANK);
    all_of(&me, "self", "tg.mine", PMIX_LOCAL_RANK);
    all_of(&peer, "a peer", "tg.mine", NULL);
    all_of(&job, "the job (WILDCARD)", PMIX_JOB_SIZE, PMIX_NSPACE);

    barrier("final Fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
