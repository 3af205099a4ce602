/* get_levels: rule "PMIX_SESSION_INFO / JOB_INFO / APP_INFO / NODE_INFO direct that the key
 * be retrieved from the session-, job-, application- or node-level information". Each
 * directive finds a key registered at its level and does not find a key registered only
 * at another level. pmixrun registers JOB_SIZE at job level, APP_SIZE/APPLDR only per
 * application, NODE_SIZE per node (and at job level), SESSION_ID and UNIV_SIZE at job
 * (= session) level.
 * Run: pmixrun -n 2 get_levels : -n 1 get_levels   (two applications) */
#include "rules.h"

static void lv(const pmix_proc_t *p, const char *key, const char *dir, pmix_info_t *extra,
               pmix_status_t want, uint32_t want_u32, pmix_data_type_t type)
{
    pmix_info_t info[2];
    size_t n = 1;
    flag_info(&info[0], dir);
    if (extra) {
        info[1] = *extra;
        n = 2;
    }
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(p, key, info, n, &v);
    if (PMIX_SUCCESS == want) {
        uint32_t got = 0;
        if (v && v->type == PMIX_UINT32) {
            got = v->data.uint32;
        } else if (v && v->type == PMIX_PROC_RANK) {
            got = v->data.rank;
        }
        CHECK(PMIX_SUCCESS == rc && v && v->type == type && got == want_u32,
              "%s %s with %s%s: %s, %u (want %u)", p->rank == PMIX_RANK_WILDCARD ? "job" : "self",
              key, dir, extra ? " + qualifier" : "", PMIx_Error_string(rc), got, want_u32);
    } else {
        CHECK(rc == want, "%s %s with %s: %s (want %s)",
              p->rank == PMIX_RANK_WILDCARD ? "job" : "self", key, dir, PMIx_Error_string(rc),
              PMIx_Error_string(want));
    }
    if (v) {
        PMIX_VALUE_RELEASE(v);
    }
    PMIX_INFO_DESTRUCT(&info[0]);
}

int main(void)
{
    RULES_INIT();
    CHECK(3 == nprocs, "two apps of 2 + 1 ranks (job size %u)", nprocs);
    uint32_t myapp = me.rank < 2 ? 0 : 1, appsize = me.rank < 2 ? 2 : 1,
             appldr = me.rank < 2 ? 0 : 2;

    /* JOB_INFO */
    lv(&job, PMIX_JOB_SIZE, PMIX_JOB_INFO, NULL, PMIX_SUCCESS, 3, PMIX_UINT32);
    lv(&job, PMIX_APP_SIZE, PMIX_JOB_INFO, NULL, PMIX_ERR_NOT_FOUND, 0, 0);
    lv(&job, PMIX_APPLDR, PMIX_JOB_INFO, NULL, PMIX_ERR_NOT_FOUND, 0, 0);
    /* SESSION_INFO */
    pmix_value_t *sid = NULL;
    uint32_t session = 0;
    if (PMIX_SUCCESS == PMIx_Get(&job, PMIX_SESSION_ID, NULL, 0, &sid) && sid) {
        session = sid->data.uint32;
        PMIX_VALUE_RELEASE(sid);
    }
    lv(&job, PMIX_SESSION_ID, PMIX_SESSION_INFO, NULL, PMIX_SUCCESS, session, PMIX_UINT32);
    lv(&job, PMIX_APP_SIZE, PMIX_SESSION_INFO, NULL, PMIX_ERR_NOT_FOUND, 0, 0);
    /* APP_INFO: the caller's application by default, another one by PMIX_APPNUM. */
    lv(&job, PMIX_APP_SIZE, PMIX_APP_INFO, NULL, PMIX_SUCCESS, appsize, PMIX_UINT32);
    lv(&me, PMIX_APP_SIZE, PMIX_APP_INFO, NULL, PMIX_SUCCESS, appsize, PMIX_UINT32);
    lv(&job, PMIX_APPLDR, PMIX_APP_INFO, NULL, PMIX_SUCCESS, appldr, PMIX_PROC_RANK);
    lv(&job, PMIX_JOB_SIZE, PMIX_APP_INFO, NULL, PMIX_ERR_NOT_FOUND, 0, 0);
    pmix_info_t q;
    uint32_t other = 1 - myapp;
    PMIX_INFO_CONSTRUCT(&q);
    PMIX_INFO_LOAD(&q, PMIX_APPNUM, &other, PMIX_UINT32);
    lv(&job, PMIX_APP_SIZE, PMIX_APP_INFO, &q, PMIX_SUCCESS, 0 == other ? 2 : 1, PMIX_UINT32);
    lv(&job, PMIX_APPLDR, PMIX_APP_INFO, &q, PMIX_SUCCESS, 0 == other ? 0 : 2, PMIX_PROC_RANK);
    PMIX_INFO_DESTRUCT(&q);
    /* NODE_INFO */
    lv(&job, PMIX_NODE_SIZE, PMIX_NODE_INFO, NULL, PMIX_SUCCESS, 3, PMIX_UINT32);
    lv(&job, PMIX_LOCAL_SIZE, PMIX_NODE_INFO, NULL, PMIX_SUCCESS, 3, PMIX_UINT32);
    lv(&job, PMIX_JOB_SIZE, PMIX_NODE_INFO, NULL, PMIX_ERR_NOT_FOUND, 0, 0);
    lv(&job, PMIX_APP_SIZE, PMIX_NODE_INFO, NULL, PMIX_ERR_NOT_FOUND, 0, 0);
    uint32_t nid = 0;
    PMIX_INFO_CONSTRUCT(&q);
    PMIX_INFO_LOAD(&q, PMIX_NODEID, &nid, PMIX_UINT32);
    lv(&job, PMIX_NODE_SIZE, PMIX_NODE_INFO, &q, PMIX_SUCCESS, 3, PMIX_UINT32);
    PMIX_INFO_DESTRUCT(&q);
    nid = 7;
    PMIX_INFO_CONSTRUCT(&q);
    PMIX_INFO_LOAD(&q, PMIX_NODEID, &nid, PMIX_UINT32);
    lv(&job, PMIX_NODE_SIZE, PMIX_NODE_INFO, &q, PMIX_ERR_NOT_FOUND, 0, 0);
    PMIX_INFO_DESTRUCT(&q);

    barrier("final Fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
