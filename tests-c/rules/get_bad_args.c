/* get_bad_args: argument and state errors of PMIx_Get/Get_nb/Put/Commit/Fence/Fence_nb.
 *   rule "before init: PMIX_ERR_INIT" (and again after the last Finalize);
 *   rule "over-length key: BAD_PARAM" (Get, Get_nb, Put); a key of exactly
 *        PMIX_MAX_KEYLEN characters works;
 *   rule "Get with a NULL val, or GET_STATIC_VALUES with NULL storage: BAD_PARAM";
 *   rule "Get_nb with a NULL cbfunc: BAD_PARAM";
 *   rule "Put of a NULL value outside the PMIX_DEL_* scopes, or with an unknown scope:
 *        BAD_PARAM";
 *   rule "Fence/Fence_nb with NULL procs and nprocs > 0: BAD_PARAM" (no callback).
 * Run: pmixrun -n 1 get_bad_args */
#include "rules.h"

static void state_errors(pmix_status_t want, const char *when)
{
    pmix_value_t *v = NULL;
    pmix_value_t val;
    char what[128];
    struct waiter w;
    waiter_init(&w);
    PMIX_VALUE_CONSTRUCT(&val);
    val.type = PMIX_INT;
    val.data.integer = 1;
#define ST(call, name)                                                                     \
    do {                                                                                   \
        snprintf(what, sizeof what, "%s %s", name, when);                                  \
        CHECK_RC(call, want, what);                                                        \
    } while (0)
    ST(PMIx_Get(NULL, "ba.k", NULL, 0, &v), "PMIx_Get");
    ST(PMIx_Get_nb(NULL, "ba.k", NULL, 0, value_done, &w), "PMIx_Get_nb");
    ST(PMIx_Put(PMIX_GLOBAL, "ba.k", &val), "PMIx_Put");
    ST(PMIx_Commit(), "PMIx_Commit");
    ST(PMIx_Fence(NULL, 0, NULL, 0), "PMIx_Fence");
    ST(PMIx_Fence_nb(NULL, 0, NULL, 0, op_done, &w), "PMIx_Fence_nb");
#undef ST
    sleep_ms(100);
    CHECK(0 == waiter_calls(&w), "no callback %s", when);
}

int main(void)
{
    state_errors(PMIX_ERR_INIT, "before PMIx_Init");
    RULES_INIT();

    char longkey[PMIX_MAX_KEYLEN + 2], maxkey[PMIX_MAX_KEYLEN + 1];
    memset(longkey, 'k', sizeof longkey - 1);
    longkey[sizeof longkey - 1] = '\0';
    memset(maxkey, 'm', sizeof maxkey - 1);
    maxkey[sizeof maxkey - 1] = '\0';
    pmix_value_t *v = NULL;
    struct waiter w;
    waiter_init(&w);
    CHECK_RC(PMIx_Get(&me, longkey, NULL, 0, &v), PMIX_ERR_BAD_PARAM, "Get of an over-length key");
    CHECK_RC(PMIx_Get_nb(&me, longkey, NULL, 0, value_done, &w), PMIX_ERR_BAD_PARAM,
             "Get_nb of an over-length key");
    CHECK_RC(put_int(PMIX_GLOBAL, longkey, 1), PMIX_ERR_BAD_PARAM, "Put of an over-length key");
    CHECK_RC(put_int(PMIX_GLOBAL, maxkey, 77), PMIX_SUCCESS, "Put of a PMIX_MAX_KEYLEN key");
    int got = -1;
    CHECK_RC(get_int(&me, maxkey, NULL, 0, &got), PMIX_SUCCESS, "Get of a PMIX_MAX_KEYLEN key");
    CHECK(77 == got, "... reads it back (%d)", got);

    CHECK_RC(PMIx_Get(&me, maxkey, NULL, 0, NULL), PMIX_ERR_BAD_PARAM, "Get with a NULL val");
    pmix_info_t st;
    flag_info(&st, PMIX_GET_STATIC_VALUES);
    CHECK_RC(PMIx_Get(&me, maxkey, &st, 1, NULL), PMIX_ERR_BAD_PARAM,
             "GET_STATIC_VALUES with NULL storage");
    PMIX_INFO_DESTRUCT(&st);
    CHECK_RC(PMIx_Get_nb(&me, maxkey, NULL, 0, NULL, NULL), PMIX_ERR_BAD_PARAM,
             "Get_nb with a NULL cbfunc");

    CHECK_RC(PMIx_Put(PMIX_GLOBAL, "ba.null", NULL), PMIX_ERR_BAD_PARAM,
             "Put of a NULL value in scope GLOBAL");
    pmix_value_t val;
    PMIX_VALUE_CONSTRUCT(&val);
    val.type = PMIX_INT;
    val.data.integer = 1;
    CHECK_RC(PMIx_Put((pmix_scope_t)99, "ba.scope", &val), PMIX_ERR_BAD_PARAM,
             "Put with an unknown scope");
    CHECK_RC(PMIx_Put(PMIX_GLOBAL, NULL, &val), PMIX_ERR_BAD_PARAM, "Put with a NULL key");

    CHECK_RC(PMIx_Fence(NULL, 2, NULL, 0), PMIX_ERR_BAD_PARAM, "Fence: NULL procs, nprocs 2");
    CHECK_RC(PMIx_Fence_nb(NULL, 1, NULL, 0, op_done, &w), PMIX_ERR_BAD_PARAM,
             "Fence_nb: NULL procs, nprocs 1");
    CHECK_RC(PMIx_Fence_nb(NULL, 1, NULL, 0, NULL, NULL), PMIX_ERR_BAD_PARAM,
             "Fence_nb (blocking form): NULL procs, nprocs 1");
    sleep_ms(100);
    CHECK(0 == waiter_calls(&w), "no callback for a rejected call");

    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    state_errors(PMIX_ERR_INIT, "after the last PMIx_Finalize");
    CHECK_DONE();
}
