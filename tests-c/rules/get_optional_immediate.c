/* get_optional_immediate: the two directives that bound where a Get looks.
 *   rule "PMIX_OPTIONAL looks only in the client's local data": a peer's committed key
 *        that this process has not read yet is NOT_FOUND at once with OPTIONAL, found
 *        with OPTIONAL once a plain Get has brought it into the local cache;
 *   rule "PMIX_IMMEDIATE answers from the server's store only, without waiting": a key
 *        nobody has committed is NOT_FOUND at once; a committed one is found (it is in the
 *        local server's store after the commit, no fence or host needed).
 * Run: pmixrun -n 3 get_optional_immediate */
#include "rules.h"

int main(void)
{
    RULES_INIT();
    pmix_proc_t peer;
    proc_of(&peer, (me.rank + 1) % nprocs);
    pmix_info_t opt, imm;
    flag_info(&opt, PMIX_OPTIONAL);
    flag_info(&imm, PMIX_IMMEDIATE);
    int v = -1;
    double t0;

    /* Nothing posted yet. */
    t0 = now();
    CHECK_RC(get_int(&peer, "oi.key", &imm, 1, &v), PMIX_ERR_NOT_FOUND,
             "IMMEDIATE: a key nobody committed is NOT_FOUND");
    CHECK(now() - t0 < 1.0, "IMMEDIATE does not wait (%.2f s)", now() - t0);
    t0 = now();
    CHECK_RC(get_int(&peer, "oi.key", &opt, 1, &v), PMIX_ERR_NOT_FOUND,
             "OPTIONAL: a key not held locally is NOT_FOUND");
    CHECK(now() - t0 < 1.0, "OPTIONAL does not wait (%.2f s)", now() - t0);
    barrier("Fence: everyone has asked");

    CHECK_RC(put_int(PMIX_GLOBAL, "oi.key", 500 + (int)me.rank), PMIX_SUCCESS, "Put");
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit");
    barrier("non-collecting Fence: everyone has committed");

    CHECK_RC(get_int(&peer, "oi.key", &opt, 1, &v), PMIX_ERR_NOT_FOUND,
             "OPTIONAL: a committed peer key not yet read is still NOT_FOUND (local data only)");
    v = -1;
    CHECK_RC(get_int(&peer, "oi.key", &imm, 1, &v), PMIX_SUCCESS,
             "IMMEDIATE: a committed peer key is in the server's store");
    CHECK(v == 500 + (int)peer.rank, "IMMEDIATE value %d", v);
    v = -1;
    CHECK_RC(get_int(&peer, "oi.key", &opt, 1, &v), PMIX_SUCCESS,
             "OPTIONAL: found once a Get has cached it");
    CHECK(v == 500 + (int)peer.rank, "OPTIONAL value %d", v);
    /* The caller's own data and the job's are local. */
    v = -1;
    CHECK_RC(get_int(&me, "oi.key", &opt, 1, &v), PMIX_SUCCESS, "OPTIONAL: own key is local");
    pmix_value_t *jv = NULL;
    CHECK_RC(PMIx_Get(&job, PMIX_JOB_SIZE, &opt, 1, &jv), PMIX_SUCCESS,
             "OPTIONAL: job data is local");
    if (jv) {
        PMIX_VALUE_RELEASE(jv);
    }
    jv = NULL;
    CHECK_RC(PMIx_Get(&job, PMIX_JOB_SIZE, &imm, 1, &jv), PMIX_SUCCESS,
             "IMMEDIATE: job data is in the store");
    if (jv) {
        PMIX_VALUE_RELEASE(jv);
    }
    t0 = now();
    CHECK_RC(get_int(&peer, "oi.never", &imm, 1, &v), PMIX_ERR_NOT_FOUND,
             "IMMEDIATE: a key the peer never posts is NOT_FOUND at once");
    CHECK(now() - t0 < 1.0, "(%.2f s)", now() - t0);

    PMIX_INFO_DESTRUCT(&opt);
    PMIX_INFO_DESTRUCT(&imm);
    barrier("final Fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
