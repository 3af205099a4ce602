/* bootstrap: PMIx_Group_construct with PMIX_GROUP_BOOTSTRAP whose leaders and added
 * members live on different nodes (each node's server sends its arrivals to the front
 * end in parts; the front end completes the group once both leaders came and every
 * added member arrived).
 * Leaders: rank 0 (node 0) and L, the first rank of the last node; both say
 * PMIX_GROUP_BOOTSTRAP = 2 and ask for a context id. Rank 0 adds rank N-1 (and, with 3
 * or more nodes, the first rank of node 1, a node with no leader); L adds rank 1. The
 * added members call PMIx_Group_construct with no processes and no directives. Every
 * member gets the whole membership and the same context id (checked through a
 * collecting fence), then the members destruct the group.
 * With "lost", rank N-1 leaves without PMIx_Finalize instead of joining and the leaders
 * say PMIX_GROUP_OPTIONAL: the group forms without it, the same on every node (no
 * context-id exchange then: a fence over the job fails without rank N-1).
 * Run: pmixrun --nodes K -n N bootstrap K [lost]     (N >= 2K, K >= 2; lost: with
 * --enable-recovery) */
#include "mn.h"

int main(int argc, char **argv)
{
    pmix_proc_t me;
    uint32_t n = mn_init(&me);
    uint32_t k = argc > 1 ? (uint32_t)atoi(argv[1]) : 2;
    int lost = argc > 2 && strcmp(argv[2], "lost") == 0;
    if (k < 2 || n < 2 * k) {
        CHECK(k >= 2 && n >= 2 * k, "at least 2 nodes and 2 ranks per node");
        CHECK_DONE();
    }
    pmix_rank_t lead2 = mn_first(n, k, k - 1), mid = mn_first(n, k, 1);
    bool member[256] = {false};
    member[0] = member[1] = member[lead2] = member[n - 1] = true;
    if (k >= 3) {
        member[mid] = true;
    }
    if (lost) {
        member[n - 1] = false;
    }
    size_t nmembers = 0;
    for (uint32_t r = 0; r < n && r < 256; r++) {
        nmembers += member[r];
    }
    CHECK_RC(mn_fence(false), PMIX_SUCCESS, "Fence before the construct");
    if (lost && me.rank == n - 1) {
        _exit(0);
    }

    pmix_info_t *results = NULL;
    size_t nresults = 0;
    pmix_status_t rc = PMIX_SUCCESS;
    if (me.rank == 0 || me.rank == lead2) {
        pmix_proc_t add[2];
        size_t nadd = 1;
        PMIX_LOAD_PROCID(&add[0], me.nspace, me.rank == 0 ? n - 1 : 1);
        if (me.rank == 0 && k >= 3) {
            PMIX_LOAD_PROCID(&add[1], me.nspace, mid);
            nadd = 2;
        }
        pmix_data_array_t darray = {.type = PMIX_PROC, .size = nadd, .array = add};
        pmix_info_t info[4];
        bool yes = true;
        size_t two = 2;
        PMIX_INFO_LOAD(&info[0], PMIX_GROUP_ASSIGN_CONTEXT_ID, &yes, PMIX_BOOL);
        PMIX_INFO_LOAD(&info[1], PMIX_GROUP_BOOTSTRAP, &two, PMIX_SIZE);
        PMIX_INFO_LOAD(&info[2], PMIX_GROUP_ADD_MEMBERS, &darray, PMIX_DATA_ARRAY);
        PMIX_INFO_LOAD(&info[3], PMIX_GROUP_OPTIONAL, &yes, PMIX_BOOL);
        rc = PMIx_Group_construct("mn-boot", &me, 1, info, lost ? 4 : 3, &results, &nresults);
        PMIX_INFO_DESTRUCT(&info[0]);
        PMIX_INFO_DESTRUCT(&info[1]);
        PMIX_INFO_DESTRUCT(&info[3]);
        CHECK_RC(rc, PMIX_SUCCESS, "a leader's bootstrap construct");
    } else if (member[me.rank]) {
        rc = PMIx_Group_construct("mn-boot", NULL, 0, NULL, 0, &results, &nresults);
        CHECK_RC(rc, PMIX_SUCCESS, "an added member's construct");
    }
    size_t cid = 0, got = 0;
    for (size_t i = 0; i < nresults; i++) {
        if (PMIX_CHECK_KEY(&results[i], PMIX_GROUP_CONTEXT_ID)) {
            PMIx_Value_get_number(&results[i].value, &cid, PMIX_SIZE);
        } else if (PMIX_CHECK_KEY(&results[i], PMIX_GROUP_MEMBERSHIP) &&
                   results[i].value.type == PMIX_DATA_ARRAY && results[i].value.data.darray) {
            got = results[i].value.data.darray->size;
        }
    }
    if (results) {
        PMIX_INFO_FREE(results, nresults);
    }
    if (lost) {
        if (member[me.rank]) {
            CHECK(got == nmembers, "rank %u: %zu members, want %zu", me.rank, got, nmembers);
            CHECK(cid != 0, "rank %u has a context id", me.rank);
            CHECK_RC(PMIx_Group_destruct("mn-boot", NULL, 0), PMIX_SUCCESS, "destruct mn-boot");
        }
        CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
        CHECK_DONE();
    }
    if (member[me.rank]) {
        CHECK(got == nmembers, "rank %u: %zu members, want %zu", me.rank, got, nmembers);
        CHECK(cid != 0, "rank %u has a context id", me.rank);
        pmix_value_t val;
        PMIX_VALUE_CONSTRUCT(&val);
        val.type = PMIX_SIZE;
        val.data.size = cid;
        CHECK_RC(PMIx_Put(PMIX_GLOBAL, "mn-boot-cid", &val), PMIX_SUCCESS, "PMIx_Put");
        CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "PMIx_Commit");
    }
    CHECK_RC(mn_fence(true), PMIX_SUCCESS, "collecting Fence");
    if (member[me.rank]) {
        for (uint32_t r = 0; r < n; r++) {
            if (!member[r]) {
                continue;
            }
            pmix_value_t *v = NULL;
            rc = mn_get(me.nspace, r, "mn-boot-cid", NULL, NULL, 0, &v);
            CHECK(rc == PMIX_SUCCESS && v && v->type == PMIX_SIZE && v->data.size == cid,
                  "rank %u has context id %zu too", r, cid);
            if (v) {
                PMIX_VALUE_RELEASE(v);
            }
        }
        CHECK_RC(PMIx_Group_destruct("mn-boot", NULL, 0), PMIX_SUCCESS, "destruct mn-boot");
    }
    CHECK_RC(mn_fence(false), PMIX_SUCCESS, "final Fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
