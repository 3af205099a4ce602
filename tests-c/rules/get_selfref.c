/* get_selfref: the self-referential keys.
 *   rule "PMIX_RANK with {own nspace, RANK_INVALID} returns the caller's rank as a
 *        PMIX_PROC_RANK; with a fully specified proc it is NOT_FOUND";
 *   rule "PMIX_PROCID with a NULL proc returns the caller's id; otherwise NOT_FOUND";
 *   rule "PMIX_VERSION_NUMERIC ignores proc".
 * Run: pmixrun -n 2 get_selfref */
#include "rules.h"

static void want_not_found(const pmix_proc_t *p, const char *key, const char *what)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(p, key, NULL, 0, &v);
    CHECK_RC(rc, PMIX_ERR_NOT_FOUND, what);
    CHECK(NULL == v, "%s: no value handed out", what);
    if (v) {
        PMIX_VALUE_RELEASE(v);
    }
}

static void want_version(const pmix_proc_t *p, const char *what)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(p, PMIX_VERSION_NUMERIC, NULL, 0, &v);
    CHECK(PMIX_SUCCESS == rc && v && v->type == PMIX_UINT32 &&
              v->data.uint32 == (uint32_t)PMIX_NUMERIC_VERSION,
          "PMIX_VERSION_NUMERIC ignores proc (%s): %s, 0x%08x", what, PMIx_Error_string(rc),
          v ? v->data.uint32 : 0);
    if (v) {
        PMIX_VALUE_RELEASE(v);
    }
}

int main(void)
{
    RULES_INIT();
    pmix_proc_t p, peer;
    proc_of(&peer, (me.rank + 1) % nprocs);

    /* PMIX_RANK */
    PMIX_LOAD_PROCID(&p, me.nspace, PMIX_RANK_INVALID);
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(&p, PMIX_RANK, NULL, 0, &v);
    CHECK(PMIX_SUCCESS == rc && v && v->type == PMIX_PROC_RANK && v->data.rank == me.rank,
          "PMIX_RANK with {own nspace, RANK_INVALID} is the caller's rank as PMIX_PROC_RANK (%s)",
          PMIx_Error_string(rc));
    if (v) {
        PMIX_VALUE_RELEASE(v);
    }
    want_not_found(&me, PMIX_RANK, "PMIX_RANK for the fully specified caller");
    want_not_found(&peer, PMIX_RANK, "PMIX_RANK for a peer");
    want_not_found(NULL, PMIX_RANK, "PMIX_RANK for a NULL proc (the caller, fully specified)");
    PMIX_LOAD_PROCID(&p, "no.such.nspace", PMIX_RANK_INVALID);
    want_not_found(&p, PMIX_RANK, "PMIX_RANK with another nspace and RANK_INVALID");

    /* PMIX_PROCID */
    v = NULL;
    rc = PMIx_Get(NULL, PMIX_PROCID, NULL, 0, &v);
    CHECK(PMIX_SUCCESS == rc && v && v->type == PMIX_PROC && v->data.proc &&
              PMIX_CHECK_PROCID(v->data.proc, &me),
          "PMIX_PROCID with a NULL proc is the caller's id (%s)", PMIx_Error_string(rc));
    if (v) {
        PMIX_VALUE_RELEASE(v);
    }
    want_not_found(&me, PMIX_PROCID, "PMIX_PROCID for the fully specified caller");
    want_not_found(&peer, PMIX_PROCID, "PMIX_PROCID for a peer");
    want_not_found(&job, PMIX_PROCID, "PMIX_PROCID for the job (WILDCARD)");

    /* PMIX_VERSION_NUMERIC */
    want_version(NULL, "NULL");
    want_version(&me, "self");
    want_version(&peer, "peer");
    want_version(&job, "WILDCARD");
    PMIX_LOAD_PROCID(&p, "no.such.nspace", 3);
    want_version(&p, "an unknown nspace");

    barrier("final Fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
