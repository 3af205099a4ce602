/* get_pointer_static: how the value is handed back.
 *   rule "PMIX_GET_POINTER_VALUES returns a pointer into the library's store, valid until
 *        the key's value changes or finalize": the same pointer comes back while the value
 *        is unchanged and still reads correctly after other Gets; a changed value comes
 *        back in a new place with the new value;
 *   rule "PMIX_GET_STATIC_VALUES fills the caller storage *val points to; a NULL val is
 *        BAD_PARAM" (more in get_static.c);
 *   rule "without directives the value is a fresh copy the caller releases".
 * Run: pmixrun -n 2 get_pointer_static */
#include "rules.h"

int main(void)
{
    RULES_INIT();
    pmix_proc_t peer;
    proc_of(&peer, (me.rank + 1) % nprocs);
    pmix_info_t ptr, st;
    flag_info(&ptr, PMIX_GET_POINTER_VALUES);
    flag_info(&st, PMIX_GET_STATIC_VALUES);

    pmix_value_t sv;
    PMIX_VALUE_CONSTRUCT(&sv);
    sv.type = PMIX_STRING;
    sv.data.string = "pointer test string";
    CHECK_RC(PMIx_Put(PMIX_GLOBAL, "ps.str", &sv), PMIX_SUCCESS, "Put ps.str");
    CHECK_RC(put_int(PMIX_GLOBAL, "ps.own", 5), PMIX_SUCCESS, "Put ps.own=5");
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit");
    collect("collecting Fence");

    /* Fresh copies: two Gets give two distinct values. */
    pmix_value_t *c1 = NULL, *c2 = NULL;
    CHECK_RC(PMIx_Get(&peer, "ps.str", NULL, 0, &c1), PMIX_SUCCESS, "plain Get 1");
    CHECK_RC(PMIx_Get(&peer, "ps.str", NULL, 0, &c2), PMIX_SUCCESS, "plain Get 2");
    CHECK(c1 && c2 && c1 != c2 && c1->data.string != c2->data.string,
          "without directives each Get returns a fresh copy");
    if (c1) {
        PMIX_VALUE_RELEASE(c1);
    }
    if (c2) {
        PMIX_VALUE_RELEASE(c2);
    }

    /* Pointer values of a peer's key. */
    pmix_value_t *p1 = NULL, *p2 = NULL, *p3 = NULL, *junk = NULL;
    CHECK_RC(PMIx_Get(&peer, "ps.str", &ptr, 1, &p1), PMIX_SUCCESS, "POINTER Get 1");
    CHECK_RC(PMIx_Get(&peer, "ps.str", &ptr, 1, &p2), PMIX_SUCCESS, "POINTER Get 2");
    CHECK(p1 && p1 == p2, "POINTER_VALUES: the same pointer while the value is unchanged");
    for (int i = 0; i < 20; i++) {
        if (PMIX_SUCCESS == PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &junk) && junk) {
            PMIX_VALUE_RELEASE(junk);
        }
    }
    CHECK(p1 && p1->type == PMIX_STRING && p1->data.string &&
              0 == strcmp(p1->data.string, "pointer test string"),
          "POINTER_VALUES: the pointed-to value stays valid across other Gets");

    /* Own key: a change of value gives a new place. */
    CHECK_RC(PMIx_Get(&me, "ps.own", &ptr, 1, &p3), PMIX_SUCCESS, "POINTER Get of own key");
    CHECK(p3 && p3->type == PMIX_INT && 5 == p3->data.integer, "own pointer value 5");
    pmix_value_t *p4 = NULL;
    CHECK_RC(PMIx_Get(&me, "ps.own", &ptr, 1, &p4), PMIX_SUCCESS, "POINTER Get again");
    CHECK(p3 == p4, "same pointer for the unchanged own value");
    CHECK_RC(put_int(PMIX_GLOBAL, "ps.own", 6), PMIX_SUCCESS, "Put ps.own=6");
    pmix_value_t *p5 = NULL;
    CHECK_RC(PMIx_Get(&me, "ps.own", &ptr, 1, &p5), PMIX_SUCCESS, "POINTER Get after the change");
    CHECK(p5 && p5->type == PMIX_INT && 6 == p5->data.integer,
          "POINTER_VALUES after the key changed: the new value (%d)", p5 ? p5->data.integer : -1);
    /* Job data by pointer too. */
    pmix_value_t *pj = NULL;
    CHECK_RC(PMIx_Get(&job, PMIX_JOB_SIZE, &ptr, 1, &pj), PMIX_SUCCESS, "POINTER Get of job data");
    CHECK(pj && pj->type == PMIX_UINT32 && pj->data.uint32 == nprocs, "POINTER job size");

    /* Static values: caller storage, reached through the pointer passed by address
     * (OpenPMIx master: `pmix_value_t *vp = &storage; PMIx_Get(..., &vp)`). */
    pmix_value_t mine;
    PMIX_VALUE_CONSTRUCT(&mine);
    pmix_value_t *slot = &mine;
    CHECK_RC(PMIx_Get(&peer, "ps.str", &st, 1, &slot), PMIX_SUCCESS,
             "STATIC Get into caller storage");
    CHECK(slot == &mine && mine.type == PMIX_STRING && mine.data.string &&
              0 == strcmp(mine.data.string, "pointer test string"),
          "STATIC_VALUES: the value is in the caller's pmix_value_t");
    PMIX_VALUE_DESTRUCT(&mine);
    PMIX_VALUE_CONSTRUCT(&mine);
    CHECK_RC(PMIx_Get(&job, PMIX_JOB_SIZE, &st, 1, &slot), PMIX_SUCCESS,
             "STATIC Get of job data");
    CHECK(slot == &mine && mine.type == PMIX_UINT32 && mine.data.uint32 == nprocs,
          "STATIC job size");
    PMIX_VALUE_DESTRUCT(&mine);
    CHECK_RC(PMIx_Get(&peer, "ps.str", &st, 1, NULL), PMIX_ERR_BAD_PARAM,
             "STATIC_VALUES with a NULL val is BAD_PARAM");

    PMIX_INFO_DESTRUCT(&ptr);
    PMIX_INFO_DESTRUCT(&st);
    barrier("final Fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
