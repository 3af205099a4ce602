/* get_timeout: rule "PMIX_TIMEOUT (seconds) bounds a Get; then PMIX_ERR_TIMEOUT", for a
 * key the peer never posts (blocking and non-blocking), and rule "a Get for a namespace
 * the server does not know yet waits for its registration", bounded the same way; with
 * PMIX_IMMEDIATE or PMIX_OPTIONAL such a Get is NOT_FOUND at once.
 * Run: pmixrun -n 2 get_timeout */
#include "rules.h"

static void timed(const pmix_proc_t *p, const char *key, pmix_info_t *info, size_t n,
                  pmix_status_t want, double lo, double hi, const char *what)
{
    pmix_value_t *v = NULL;
    double t0 = now();
    pmix_status_t rc = PMIx_Get(p, key, info, n, &v);
    double dt = now() - t0;
    CHECK(rc == want && dt >= lo && dt <= hi, "%s: %s after %.2f s (want %s in [%.1f, %.1f])",
          what, PMIx_Error_string(rc), dt, PMIx_Error_string(want), lo, hi);
    if (v) {
        PMIX_VALUE_RELEASE(v);
    }
}

int main(void)
{
    RULES_INIT();
    pmix_proc_t peer, stranger, strangejob;
    proc_of(&peer, (me.rank + 1) % nprocs);
    PMIX_LOAD_PROCID(&stranger, "rules.never.registered", 0);
    PMIX_LOAD_PROCID(&strangejob, "rules.never.registered", PMIX_RANK_WILDCARD);
    pmix_info_t to, imm, opt;
    timeout_info(&to, 1);
    flag_info(&imm, PMIX_IMMEDIATE);
    flag_info(&opt, PMIX_OPTIONAL);

    timed(&peer, "gt.never", &to, 1, PMIX_ERR_TIMEOUT, 0.8, 3.0,
          "PMIX_TIMEOUT=1 on a key the peer never posts");
    struct waiter w;
    waiter_init(&w);
    double t0 = now();
    CHECK_RC(PMIx_Get_nb(&peer, "gt.never", &to, 1, value_done, &w), PMIX_SUCCESS,
             "Get_nb with PMIX_TIMEOUT accepted");
    CHECK(waiter_wait(&w, 10), "Get_nb callback ran");
    double dt = now() - t0;
    CHECK(PMIX_ERR_TIMEOUT == w.status && dt >= 0.8 && dt <= 3.0,
          "Get_nb: PMIX_ERR_TIMEOUT through the callback after %.2f s (%s)", dt,
          PMIx_Error_string(w.status));
    sleep_ms(200);
    CHECK(1 == waiter_calls(&w), "Get_nb callback ran exactly once (%d)", waiter_calls(&w));
    waiter_release(&w);

    timed(&stranger, "gt.key", &to, 1, PMIX_ERR_TIMEOUT, 0.8, 3.0,
          "unknown namespace, a rank's key: waits for the registration until PMIX_TIMEOUT");
    timed(&strangejob, PMIX_JOB_SIZE, &to, 1, PMIX_ERR_TIMEOUT, 0.8, 3.0,
          "unknown namespace, job data: waits for the registration until PMIX_TIMEOUT");
    timed(&stranger, "gt.key", &imm, 1, PMIX_ERR_NOT_FOUND, 0.0, 0.5,
          "unknown namespace with IMMEDIATE: NOT_FOUND at once");
    timed(&strangejob, PMIX_JOB_SIZE, &imm, 1, PMIX_ERR_NOT_FOUND, 0.0, 0.5,
          "unknown namespace job data with IMMEDIATE: NOT_FOUND at once");
    timed(&stranger, "gt.key", &opt, 1, PMIX_ERR_NOT_FOUND, 0.0, 0.5,
          "unknown namespace with OPTIONAL: NOT_FOUND at once");

    PMIX_INFO_DESTRUCT(&to);
    PMIX_INFO_DESTRUCT(&imm);
    PMIX_INFO_DESTRUCT(&opt);
    barrier("final Fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
