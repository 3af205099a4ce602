/* get_scope: PMIx_Put's scopes as the readers see them, and PMIX_DATA_SCOPE.
 *   rule "Put scopes": LOCAL, REMOTE, GLOBAL and INTERNAL values are all visible to the
 *        process that put them; a peer on the same node sees LOCAL and GLOBAL values;
 *        an INTERNAL value never leaves the process (IMMEDIATE: NOT_FOUND);
 *   rule "PMIX_ERR_EXISTS_OUTSIDE_SCOPE": a REMOTE value read by a peer on the same node;
 *   rule "PMIX_DATA_SCOPE restricts the search": a scope searches the values posted in it
 *        (a GLOBAL value is in the LOCAL and the REMOTE scope too); a value posted in
 *        another scope is NOT_FOUND.
 * Run: pmixrun -n 2 get_scope   (every rank on one node) */
#include "rules.h"

static void scope_info(pmix_info_t *i, pmix_scope_t s)
{
    PMIX_INFO_CONSTRUCT(i);
    PMIX_INFO_LOAD(i, PMIX_DATA_SCOPE, &s, PMIX_SCOPE);
}

static void want(const pmix_proc_t *p, const char *key, pmix_scope_t *scope, pmix_status_t rc_want,
                 int v_want, const char *what)
{
    pmix_info_t si;
    int v = -1;
    pmix_status_t rc;
    if (scope) {
        scope_info(&si, *scope);
        rc = get_int(p, key, &si, 1, &v);
        PMIX_INFO_DESTRUCT(&si);
    } else {
        rc = get_int(p, key, NULL, 0, &v);
    }
    if (PMIX_SUCCESS == rc_want) {
        CHECK(PMIX_SUCCESS == rc && v == v_want, "%s: %s, %d (want %d)", what,
              PMIx_Error_string(rc), v, v_want);
    } else {
        CHECK_RC(rc, rc_want, what);
    }
}

int main(void)
{
    RULES_INIT();
    pmix_proc_t peer;
    proc_of(&peer, (me.rank + 1) % nprocs);
    int base = 10 * (int)me.rank, pb = 10 * (int)peer.rank;
    CHECK_RC(put_int(PMIX_LOCAL, "sc.local", base + 1), PMIX_SUCCESS, "Put LOCAL");
    CHECK_RC(put_int(PMIX_REMOTE, "sc.remote", base + 2), PMIX_SUCCESS, "Put REMOTE");
    CHECK_RC(put_int(PMIX_GLOBAL, "sc.global", base + 3), PMIX_SUCCESS, "Put GLOBAL");
    CHECK_RC(put_int(PMIX_INTERNAL, "sc.internal", base + 4), PMIX_SUCCESS, "Put INTERNAL");
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit");
    collect("collecting Fence");

    /* The poster sees all four. */
    want(&me, "sc.local", NULL, PMIX_SUCCESS, base + 1, "own LOCAL value");
    want(&me, "sc.remote", NULL, PMIX_SUCCESS, base + 2, "own REMOTE value");
    want(&me, "sc.global", NULL, PMIX_SUCCESS, base + 3, "own GLOBAL value");
    want(&me, "sc.internal", NULL, PMIX_SUCCESS, base + 4, "own INTERNAL value");
    /* A peer on the same node. */
    want(&peer, "sc.local", NULL, PMIX_SUCCESS, pb + 1, "peer's LOCAL value, same node");
    want(&peer, "sc.global", NULL, PMIX_SUCCESS, pb + 3, "peer's GLOBAL value");
    want(&peer, "sc.remote", NULL, PMIX_ERR_EXISTS_OUTSIDE_SCOPE, 0,
         "peer's REMOTE value from the same node: EXISTS_OUTSIDE_SCOPE");
    pmix_info_t imm;
    flag_info(&imm, PMIX_IMMEDIATE);
    int v;
    CHECK_RC(get_int(&peer, "sc.internal", &imm, 1, &v), PMIX_ERR_NOT_FOUND,
             "peer's INTERNAL value never left the peer");
    PMIX_INFO_DESTRUCT(&imm);

    /* PMIX_DATA_SCOPE */
    pmix_scope_t L = PMIX_LOCAL, R = PMIX_REMOTE, G = PMIX_GLOBAL, I = PMIX_INTERNAL;
    want(&peer, "sc.local", &L, PMIX_SUCCESS, pb + 1, "DATA_SCOPE LOCAL finds a LOCAL value");
    want(&peer, "sc.global", &L, PMIX_SUCCESS, pb + 3, "DATA_SCOPE LOCAL finds a GLOBAL value");
    want(&peer, "sc.local", &R, PMIX_ERR_NOT_FOUND, 0, "DATA_SCOPE REMOTE skips a LOCAL value");
    want(&peer, "sc.local", &G, PMIX_SUCCESS, pb + 1, "DATA_SCOPE GLOBAL searches everything");
    want(&me, "sc.local", &R, PMIX_ERR_NOT_FOUND, 0, "own data: DATA_SCOPE REMOTE skips LOCAL");
    want(&me, "sc.remote", &L, PMIX_ERR_NOT_FOUND, 0, "own data: DATA_SCOPE LOCAL skips REMOTE");
    want(&me, "sc.global", &R, PMIX_SUCCESS, base + 3, "own data: DATA_SCOPE REMOTE finds GLOBAL");
    want(&me, "sc.internal", &I, PMIX_SUCCESS, base + 4, "own data: DATA_SCOPE INTERNAL");
    want(&me, "sc.internal", &L, PMIX_ERR_NOT_FOUND, 0, "own data: DATA_SCOPE LOCAL skips INTERNAL");

    barrier("final Fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
