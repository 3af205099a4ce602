/* get_nb_once: rule "PMIx_Get_nb with a NULL cbfunc is BAD_PARAM; otherwise the callback
 * runs exactly once" -- and only when the call returned PMIX_SUCCESS: for an answer held
 * locally (own key, job data), one from the server (a peer's key), a not-found (OPTIONAL)
 * and a rejected call (over-length key: no callback at all).
 * Run: pmixrun -n 2 get_nb_once */
#include "rules.h"

static void once(const pmix_proc_t *p, const char *key, pmix_info_t *info, size_t n,
                 pmix_status_t want, const char *what)
{
    struct waiter w;
    waiter_init(&w);
    pmix_status_t rc = PMIx_Get_nb(p, key, info, n, value_done, &w);
    CHECK_RC(rc, PMIX_SUCCESS, what);
    CHECK(waiter_wait(&w, 20), "%s: callback ran", what);
    sleep_ms(150);
    CHECK(1 == waiter_calls(&w), "%s: callback ran exactly once (%d)", what, waiter_calls(&w));
    CHECK(w.status == want, "%s: callback status %s (want %s)", what, PMIx_Error_string(w.status),
          PMIx_Error_string(want));
    CHECK((PMIX_SUCCESS == want) == (NULL != w.value), "%s: value %s", what,
          w.value ? "delivered" : "absent");
    waiter_release(&w);
}

int main(void)
{
    RULES_INIT();
    pmix_proc_t peer;
    proc_of(&peer, (me.rank + 1) % nprocs);
    CHECK_RC(put_int(PMIX_GLOBAL, "nb.k", 3), PMIX_SUCCESS, "Put");
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit");
    barrier("Fence");

    pmix_info_t opt;
    flag_info(&opt, PMIX_OPTIONAL);
    once(&me, "nb.k", NULL, 0, PMIX_SUCCESS, "own key");
    once(NULL, PMIX_PROCID, NULL, 0, PMIX_SUCCESS, "self-referential key");
    once(&job, PMIX_JOB_SIZE, NULL, 0, PMIX_SUCCESS, "job data");
    once(&peer, "nb.never", &opt, 1, PMIX_ERR_NOT_FOUND, "OPTIONAL miss");
    once(&peer, "nb.k", NULL, 0, PMIX_SUCCESS, "peer key from the server");
    once(&peer, "nb.k", NULL, 0, PMIX_SUCCESS, "peer key from the cache");
    PMIX_INFO_DESTRUCT(&opt);

    CHECK_RC(PMIx_Get_nb(&peer, "nb.k", NULL, 0, NULL, NULL), PMIX_ERR_BAD_PARAM,
             "Get_nb with a NULL cbfunc is BAD_PARAM");
    char longkey[PMIX_MAX_KEYLEN + 8];
    memset(longkey, 'x', sizeof longkey - 1);
    longkey[sizeof longkey - 1] = '\0';
    struct waiter w;
    waiter_init(&w);
    CHECK_RC(PMIx_Get_nb(&peer, longkey, NULL, 0, value_done, &w), PMIX_ERR_BAD_PARAM,
             "Get_nb of an over-length key");
    sleep_ms(200);
    CHECK(0 == waiter_calls(&w), "a call that did not return SUCCESS runs no callback");

    barrier("final Fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
