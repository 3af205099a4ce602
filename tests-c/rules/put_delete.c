/* put_delete: the deletion scopes of PMIx_Put.
 *   rule "PMIX_DEL_* accept a NULL value, and deleting an absent key is not an error";
 *   rule "PMIX_DEL_INTERNAL is complete on return" (and every deletion applies to the
 *        caller's own view at once, before any commit);
 *   rule "a deleted key later behaves exactly like one never published": a peer that
 *        never read it gets NOT_FOUND with IMMEDIATE and waits (until PMIX_TIMEOUT)
 *        without; a Get waiting for it completes when it is published again;
 *   rule "local clients that cached it drop it when the deletion is committed" (after the
 *        next barrier, an OPTIONAL Get no longer finds the cached copy);
 *   rule "within one commit interval a key deleted then put is present, put then deleted
 *        is absent".
 * Run: pmixrun -n 2 put_delete */
#include "rules.h"

int main(void)
{
    RULES_INIT();
    pmix_proc_t peer;
    proc_of(&peer, (me.rank + 1) % nprocs);
    pmix_info_t opt, imm, to;
    flag_info(&opt, PMIX_OPTIONAL);
    flag_info(&imm, PMIX_IMMEDIATE);
    timeout_info(&to, 1);
    int v = -1;

    /* NULL values and absent keys. */
    const pmix_scope_t dels[] = {PMIX_DEL_LOCAL, PMIX_DEL_REMOTE, PMIX_DEL_GLOBAL,
                                 PMIX_DEL_INTERNAL};
    for (size_t i = 0; i < 4; i++) {
        char what[96];
        snprintf(what, sizeof what, "%s of an absent key with a NULL value",
                 PMIx_Scope_string(dels[i]));
        CHECK_RC(PMIx_Put(dels[i], "pd.absent", NULL), PMIX_SUCCESS, what);
    }
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit of deletions of absent keys");

    /* DEL_INTERNAL complete on return; own view updated at once for every scope. */
    CHECK_RC(put_int(PMIX_INTERNAL, "pd.int", 1), PMIX_SUCCESS, "Put INTERNAL");
    CHECK_RC(PMIx_Put(PMIX_DEL_INTERNAL, "pd.int", NULL), PMIX_SUCCESS, "DEL_INTERNAL");
    CHECK_RC(get_int(&me, "pd.int", &opt, 1, &v), PMIX_ERR_NOT_FOUND,
             "DEL_INTERNAL is complete on return");
    CHECK_RC(put_int(PMIX_GLOBAL, "pd.own", 1), PMIX_SUCCESS, "Put GLOBAL pd.own");
    CHECK_RC(PMIx_Put(PMIX_DEL_GLOBAL, "pd.own", NULL), PMIX_SUCCESS, "DEL_GLOBAL pd.own");
    CHECK_RC(get_int(&me, "pd.own", &opt, 1, &v), PMIX_ERR_NOT_FOUND,
             "a deletion applies to the caller at once");

    /* Publish three keys; the peer reads (caches) one of them. */
    CHECK_RC(put_int(PMIX_GLOBAL, "pd.cached", 10), PMIX_SUCCESS, "Put pd.cached");
    CHECK_RC(put_int(PMIX_GLOBAL, "pd.unread", 20), PMIX_SUCCESS, "Put pd.unread");
    CHECK_RC(put_int(PMIX_LOCAL, "pd.local", 30), PMIX_SUCCESS, "Put LOCAL pd.local");
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit");
    collect("collecting Fence 1");
    CHECK_RC(get_int(&peer, "pd.cached", NULL, 0, &v), PMIX_SUCCESS, "peer reads pd.cached");
    CHECK_RC(get_int(&peer, "pd.cached", &opt, 1, &v), PMIX_SUCCESS, "... and now holds it");
    barrier("Fence: everyone has read");

    /* Delete them; within one interval: deleted-then-put present, put-then-deleted absent. */
    CHECK_RC(PMIx_Put(PMIX_DEL_GLOBAL, "pd.cached", NULL), PMIX_SUCCESS, "DEL_GLOBAL pd.cached");
    CHECK_RC(PMIx_Put(PMIX_DEL_GLOBAL, "pd.unread", NULL), PMIX_SUCCESS, "DEL_GLOBAL pd.unread");
    CHECK_RC(PMIx_Put(PMIX_DEL_LOCAL, "pd.local", NULL), PMIX_SUCCESS, "DEL_LOCAL pd.local");
    CHECK_RC(PMIx_Put(PMIX_DEL_GLOBAL, "pd.back", NULL), PMIX_SUCCESS, "DEL_GLOBAL pd.back");
    CHECK_RC(put_int(PMIX_GLOBAL, "pd.back", 40), PMIX_SUCCESS, "... then Put pd.back");
    CHECK_RC(put_int(PMIX_GLOBAL, "pd.gone", 50), PMIX_SUCCESS, "Put pd.gone");
    CHECK_RC(PMIx_Put(PMIX_DEL_GLOBAL, "pd.gone", NULL), PMIX_SUCCESS, "... then DEL pd.gone");
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit of the deletions");
    barrier("Fence: deletions committed");

    CHECK_RC(get_int(&peer, "pd.cached", &opt, 1, &v), PMIX_ERR_NOT_FOUND,
             "the peer's cached copy was dropped when the deletion was committed");
    CHECK_RC(get_int(&peer, "pd.cached", &imm, 1, &v), PMIX_ERR_NOT_FOUND,
             "deleted key: IMMEDIATE says NOT_FOUND");
    CHECK_RC(get_int(&peer, "pd.unread", &imm, 1, &v), PMIX_ERR_NOT_FOUND,
             "deleted, never read key: IMMEDIATE says NOT_FOUND");
    CHECK_RC(get_int(&peer, "pd.local", &imm, 1, &v), PMIX_ERR_NOT_FOUND,
             "DEL_LOCAL removed the LOCAL key for local peers");
    double t0 = now();
    CHECK_RC(get_int(&peer, "pd.unread", &to, 1, &v), PMIX_ERR_TIMEOUT,
             "deleted key behaves as never published: a plain Get waits (until PMIX_TIMEOUT)");
    CHECK(now() - t0 >= 0.8, "... it did wait (%.2f s)", now() - t0);
    v = -1;
    CHECK_RC(get_int(&peer, "pd.back", NULL, 0, &v), PMIX_SUCCESS, "deleted then put: present");
    CHECK(40 == v, "pd.back = %d", v);
    CHECK_RC(get_int(&peer, "pd.gone", &imm, 1, &v), PMIX_ERR_NOT_FOUND, "put then deleted: absent");
    barrier("Fence: everyone has looked");

    /* A Get waiting for a deleted key completes when it is published again. */
    if (0 == me.rank) {
        sleep_ms(500);
        CHECK_RC(put_int(PMIX_GLOBAL, "pd.unread", 21), PMIX_SUCCESS, "re-Put pd.unread");
        CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit");
    } else if (1 == me.rank) {
        pmix_proc_t zero;
        proc_of(&zero, 0);
        v = -1;
        CHECK_RC(get_int(&zero, "pd.unread", NULL, 0, &v), PMIX_SUCCESS,
                 "a Get for the deleted key waits for it to be published again");
        CHECK(21 == v, "... and returns the new value (%d)", v);
    }

    PMIX_INFO_DESTRUCT(&opt);
    PMIX_INFO_DESTRUCT(&imm);
    PMIX_INFO_DESTRUCT(&to);
    barrier("final Fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
