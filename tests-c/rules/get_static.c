/* get_static: PMIX_GET_STATIC_VALUES as a program written for OpenPMIx master uses it.
 *   rule "the caller passes `pmix_value_t *vp = &storage;` and `PMIx_Get(..., &vp)`: the
 *        value is copied into *vp and vp keeps pointing at the caller's storage";
 *   rule "a string lands in a buffer of its own that the storage owns: it outlives the
 *        library's copy and is released with PMIX_VALUE_DESTRUCT";
 *   rule "a NULL *val is PMIX_ERR_BAD_PARAM" (and so is a NULL val);
 *   rule "on failure *val is NULL" (master: `*val = NULL` on every failed get);
 *   rule "PMIx_Get_nb has no storage to fill: PMIX_GET_STATIC_VALUES is BAD_PARAM".
 * Run: pmixrun -n 2 get_static */
#include "rules.h"

static void nb_done(pmix_status_t st, pmix_value_t *v, void *cbdata)
{
    (void)st;
    (void)v;
    *(int *)cbdata += 1;
}

int main(void)
{
    RULES_INIT();
    pmix_proc_t peer;
    proc_of(&peer, (me.rank + 1) % nprocs);
    pmix_info_t st;
    bool yes = true;
    PMIX_INFO_CONSTRUCT(&st);
    PMIX_INFO_LOAD(&st, PMIX_GET_STATIC_VALUES, &yes, PMIX_BOOL);

    char mystr[64];
    snprintf(mystr, sizeof(mystr), "static string of rank %u", me.rank);
    pmix_value_t sv;
    PMIX_VALUE_LOAD(&sv, mystr, PMIX_STRING);
    CHECK_RC(PMIx_Put(PMIX_GLOBAL, "st.str", &sv), PMIX_SUCCESS, "Put st.str");
    PMIX_VALUE_DESTRUCT(&sv);
    CHECK_RC(put_int(PMIX_GLOBAL, "st.int", 40 + (int)me.rank), PMIX_SUCCESS, "Put st.int");
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit");
    collect("collecting Fence");

    /* A string of the peer, into storage on the stack. */
    char want[64];
    snprintf(want, sizeof(want), "static string of rank %u", peer.rank);
    pmix_value_t storage;
    PMIX_VALUE_CONSTRUCT(&storage);
    pmix_value_t *vp = &storage;
    CHECK_RC(PMIx_Get(&peer, "st.str", &st, 1, &vp), PMIX_SUCCESS, "STATIC Get of a string");
    CHECK(vp == &storage, "vp still points at the caller's storage");
    CHECK(storage.type == PMIX_STRING && storage.data.string &&
              0 == strcmp(storage.data.string, want),
          "the string is in the storage (%s)",
          storage.type == PMIX_STRING && storage.data.string ? storage.data.string : "?");
    /* The string is the storage's own: a second Get into other storage gives another
     * buffer, and the first survives the second's release. */
    pmix_value_t other;
    PMIX_VALUE_CONSTRUCT(&other);
    pmix_value_t *op = &other;
    CHECK_RC(PMIx_Get(&peer, "st.str", &st, 1, &op), PMIX_SUCCESS, "second STATIC Get");
    CHECK(other.type == PMIX_STRING && other.data.string &&
              other.data.string != storage.data.string,
          "each storage owns its own copy of the string");
    PMIX_VALUE_DESTRUCT(&other);
    CHECK(0 == strcmp(storage.data.string, want), "the first copy outlives the second's release");
    PMIX_VALUE_DESTRUCT(&storage);

    /* A number, into heap storage. */
    pmix_value_t *heap = NULL;
    PMIX_VALUE_CREATE(heap, 1);
    vp = heap;
    CHECK_RC(PMIx_Get(&peer, "st.int", &st, 1, &vp), PMIX_SUCCESS, "STATIC Get of an int");
    CHECK(vp == heap && heap->type == PMIX_INT && heap->data.integer == 40 + (int)peer.rank,
          "the int is in the heap storage");
    /* Own data and job data take the same way. */
    CHECK_RC(PMIx_Get(&me, "st.int", &st, 1, &vp), PMIX_SUCCESS, "STATIC Get of own key");
    CHECK(vp == heap && heap->type == PMIX_INT && heap->data.integer == 40 + (int)me.rank,
          "own int in the storage");
    CHECK_RC(PMIx_Get(&job, PMIX_JOB_SIZE, &st, 1, &vp), PMIX_SUCCESS, "STATIC Get of job size");
    CHECK(vp == heap && heap->type == PMIX_UINT32 && heap->data.uint32 == nprocs,
          "job size in the storage");
    PMIX_VALUE_RELEASE(heap);

    /* No storage. */
    vp = NULL;
    CHECK_RC(PMIx_Get(&peer, "st.int", &st, 1, &vp), PMIX_ERR_BAD_PARAM,
             "STATIC_VALUES with a NULL *val");
    CHECK(NULL == vp, "... *val stays NULL");
    CHECK_RC(PMIx_Get(&peer, "st.int", &st, 1, NULL), PMIX_ERR_BAD_PARAM,
             "STATIC_VALUES with a NULL val");

    /* A failed Get: NOT_FOUND, and *val NULL as in master. */
    pmix_info_t two[2];
    PMIX_INFO_CONSTRUCT(&two[0]);
    PMIX_INFO_LOAD(&two[0], PMIX_GET_STATIC_VALUES, &yes, PMIX_BOOL);
    PMIX_INFO_CONSTRUCT(&two[1]);
    PMIX_INFO_LOAD(&two[1], PMIX_OPTIONAL, &yes, PMIX_BOOL);
    PMIX_VALUE_CONSTRUCT(&storage);
    vp = &storage;
    CHECK_RC(PMIx_Get(&me, "st.none", two, 2, &vp), PMIX_ERR_NOT_FOUND,
             "STATIC Get of a missing key");
    CHECK(NULL == vp, "... sets *val to NULL");
    PMIX_INFO_DESTRUCT(&two[0]);
    PMIX_INFO_DESTRUCT(&two[1]);

    /* The non-blocking form has nowhere to put it. */
    int calls = 0;
    CHECK_RC(PMIx_Get_nb(&peer, "st.int", &st, 1, nb_done, &calls), PMIX_ERR_BAD_PARAM,
             "Get_nb with STATIC_VALUES");
    sleep_ms(100);
    CHECK(0 == calls, "... and no callback (%d)", calls);

    PMIX_INFO_DESTRUCT(&st);
    barrier("final Fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
