/* group_info: PMIX_GROUP_INFO given at construct is group-qualified data.
 * Run: pmixrun -n 4 group_info   (also with --nodes 2)
 * Every rank constructs "gi" over the whole job with PMIX_GROUP_ASSIGN_CONTEXT_ID and
 * PMIX_GROUP_INFO = { PMIX_GROUP_LOCAL_CID = 500 + rank }. Afterwards, and still after
 * the group is destructed, PMIx_Get(rank r, PMIX_GROUP_LOCAL_CID) qualified by
 * PMIX_GROUP_CONTEXT_ID = the assigned id returns 500 + r as a PMIX_SIZE, for ourselves
 * and for every peer, within PMIX_TIMEOUT; with another context id it is NOT_FOUND. */
#include "../tests-c/dynamic/dyn.h"

static pmix_proc_t me;

static pmix_status_t get_lcid(uint32_t rank, size_t cid, size_t *out)
{
    pmix_info_t q[2];
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    uint32_t tmo = 10;
    PMIX_INFO_LOAD(&q[0], PMIX_GROUP_CONTEXT_ID, &cid, PMIX_SIZE);
    PMIX_INFO_SET_QUALIFIER(&q[0]);
    PMIX_INFO_LOAD(&q[1], PMIX_TIMEOUT, &tmo, PMIX_UINT32);
    PMIX_LOAD_PROCID(&p, me.nspace, rank);
    pmix_status_t rc = PMIx_Get(&p, PMIX_GROUP_LOCAL_CID, q, 2, &v);
    if (PMIX_SUCCESS == rc) {
        *out = PMIX_SIZE == v->type ? v->data.size : SIZE_MAX;
        PMIX_VALUE_RELEASE(v);
    }
    PMIX_INFO_DESTRUCT(&q[0]);
    PMIX_INFO_DESTRUCT(&q[1]);
    return rc;
}

static void read_all(uint32_t nprocs, size_t cid, const char *when)
{
    for (uint32_t r = 0; r < nprocs; r++) {
        size_t got = 0;
        pmix_status_t rc = get_lcid(r, cid, &got);
        CHECK(PMIX_SUCCESS == rc && got == 500 + r,
              "%s: rank %u reads rank %u's PMIX_GROUP_LOCAL_CID %zu (%s)", when, me.rank, r,
              got, PMIx_Error_string(rc));
    }
}

int main(void)
{
    pmix_value_t *val = NULL;
    pmix_proc_t wild;
    CHECK_RC(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS, "init");
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    CHECK_RC(PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &val), PMIX_SUCCESS, "job size");
    uint32_t nprocs = NULL != val ? val->data.uint32 : 0;
    if (NULL != val) {
        PMIX_VALUE_RELEASE(val);
    }

    size_t lcid = 500 + me.rank;
    void *inner = PMIx_Info_list_start();
    PMIx_Info_list_add(inner, PMIX_GROUP_LOCAL_CID, &lcid, PMIX_SIZE);
    pmix_data_array_t da;
    CHECK_RC(PMIx_Info_list_convert(inner, &da), PMIX_SUCCESS, "convert the group info");
    PMIx_Info_list_release(inner);
    pmix_info_t info[2];
    PMIX_INFO_LOAD(&info[0], PMIX_GROUP_ASSIGN_CONTEXT_ID, NULL, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[1], PMIX_GROUP_INFO, &da, PMIX_DATA_ARRAY);
    PMIX_DATA_ARRAY_DESTRUCT(&da);

    pmix_proc_t *procs;
    PMIX_PROC_CREATE(procs, nprocs);
    for (uint32_t r = 0; r < nprocs; r++) {
        PMIX_LOAD_PROCID(&procs[r], me.nspace, r);
    }
    pmix_info_t *res = NULL;
    size_t nres = 0, cid = SIZE_MAX;
    CHECK_RC(PMIx_Group_construct("gi", procs, nprocs, info, 2, &res, &nres), PMIX_SUCCESS,
             "construct with PMIX_GROUP_INFO");
    for (size_t i = 0; i < nres; i++) {
        if (PMIX_CHECK_KEY(&res[i], PMIX_GROUP_CONTEXT_ID)) {
            PMIx_Value_get_number(&res[i].value, &cid, PMIX_SIZE);
        }
    }
    CHECK(SIZE_MAX != cid, "a context id was assigned (%zu)", cid);
    if (NULL != res) {
        PMIX_INFO_FREE(res, nres);
    }
    PMIX_PROC_FREE(procs, nprocs);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);

    read_all(nprocs, cid, "in the group");
    size_t got = 0;
    CHECK_RC(get_lcid((me.rank + 1) % nprocs, cid + 1000, &got), PMIX_ERR_NOT_FOUND,
             "another context id selects nothing");
    CHECK_RC(PMIx_Group_destruct("gi", NULL, 0), PMIX_SUCCESS, "destruct");
    CHECK_RC(PMIx_Fence(&wild, 1, NULL, 0), PMIX_SUCCESS, "job fence");
    read_all(nprocs, cid, "after destruct");
    CHECK_RC(PMIx_Fence(&wild, 1, NULL, 0), PMIX_SUCCESS, "job fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "finalize");
    CHECK_DONE();
}
