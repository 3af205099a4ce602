/* progress_thread: rule "a blocking call made on the progress thread -- inside a Get_nb
 * callback, an event handler or a Fence_nb callback -- returns PMIX_ERR_WOULD_BLOCK at
 * once with a diagnostic naming the call, and does nothing". The calls: PMIx_Get,
 * PMIx_Fence, PMIx_Fence_nb with a NULL cbfunc (its blocking form), PMIx_Put and
 * PMIx_Commit. The self-referential Gets (PMIX_PROCID, PMIX_VERSION_NUMERIC) touch
 * nothing that waits and stay usable there. The diagnostic goes to stderr without any
 * PMIX_DEBUG setting, once per call name in the process (as OpenPMIx's help messages
 * do): each call is refused in three contexts, and named once. "Nothing done": the Put
 * made there left no value, and later fences still pair up.
 * Run: pmixrun -n 2 progress_thread */
#include "rules.h"

#define NCTX 3
static const char *ctx_name[NCTX] = {"Get_nb callback", "event handler", "Fence_nb callback"};

struct result {
    pmix_status_t get, procid, version, fence, fence_nb, put, commit;
    double secs;
    int ran;
};
static struct result res[NCTX];
static pmix_proc_t peer;
static struct waiter done[NCTX];

/* The blocking calls, made from whatever thread runs this. */
static void battery(int i)
{
    struct result *r = &res[i];
    double t0 = now();
    pmix_value_t *v = NULL;
    r->get = PMIx_Get(&peer, "pt.key", NULL, 0, &v);
    if (v) {
        PMIX_VALUE_RELEASE(v);
        v = NULL;
    }
    r->procid = PMIx_Get(NULL, PMIX_PROCID, NULL, 0, &v);
    if (v) {
        PMIX_VALUE_RELEASE(v);
        v = NULL;
    }
    r->version = PMIx_Get(&peer, PMIX_VERSION_NUMERIC, NULL, 0, &v);
    if (v) {
        PMIX_VALUE_RELEASE(v);
        v = NULL;
    }
    r->fence = PMIx_Fence(NULL, 0, NULL, 0);
    r->fence_nb = PMIx_Fence_nb(NULL, 0, NULL, 0, NULL, NULL);
    r->put = put_int(PMIX_GLOBAL, "pt.inner", 1);
    r->commit = PMIx_Commit();
    r->secs = now() - t0;
    r->ran++;
}

static void in_get_cb(pmix_status_t st, pmix_value_t *v, void *cbdata)
{
    (void)st;
    (void)v;
    (void)cbdata;
    battery(0);
    op_done(PMIX_SUCCESS, &done[0]);
}

static void in_handler(size_t id, pmix_status_t status, const pmix_proc_t *source,
                       pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                       pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)status;
    (void)source;
    (void)info;
    (void)ninfo;
    (void)results;
    (void)nresults;
    battery(1);
    if (cbfunc) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
    op_done(PMIX_SUCCESS, &done[1]);
}

static void in_fence_cb(pmix_status_t st, void *cbdata)
{
    (void)st;
    (void)cbdata;
    battery(2);
    op_done(PMIX_SUCCESS, &done[2]);
}

int main(void)
{
    unsetenv("PMIX_DEBUG");
    int fd = capture_stderr();
    RULES_INIT();
    CHECK(fd >= 0, "stderr captured");
    proc_of(&peer, (me.rank + 1) % nprocs);
    for (int i = 0; i < NCTX; i++) {
        waiter_init(&done[i]);
    }
    CHECK_RC(put_int(PMIX_GLOBAL, "pt.key", 1), PMIX_SUCCESS, "Put");
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit");
    barrier("Fence");

    /* 1. inside a Get_nb callback */
    CHECK_RC(PMIx_Get_nb(&peer, "pt.key", NULL, 0, in_get_cb, NULL), PMIX_SUCCESS, "Get_nb");
    CHECK(waiter_wait(&done[0], 20), "Get_nb callback ran");
    /* 2. inside an event handler */
    pmix_status_t code = PMIX_EXTERNAL_ERR_BASE - 17;
    pmix_status_t id = PMIx_Register_event_handler(&code, 1, NULL, 0, in_handler, NULL, NULL);
    CHECK(id >= 0, "event handler registered (%d)", id);
    CHECK_RC(PMIx_Notify_event(code, &me, PMIX_RANGE_PROC_LOCAL, NULL, 0, NULL, NULL),
             PMIX_SUCCESS, "Notify_event to ourselves");
    CHECK(waiter_wait(&done[1], 20), "event handler ran");
    /* 3. inside a Fence_nb callback */
    pmix_status_t rc = PMIx_Fence_nb(NULL, 0, NULL, 0, in_fence_cb, NULL);
    CHECK(PMIX_SUCCESS == rc, "Fence_nb accepted (%s)", PMIx_Error_string(rc));
    CHECK(waiter_wait(&done[2], 20), "Fence_nb callback ran");

    for (int i = 0; i < NCTX; i++) {
        struct result *r = &res[i];
        const char *c = ctx_name[i];
        CHECK(1 == r->ran, "%s: ran once", c);
        CHECK(PMIX_ERR_WOULD_BLOCK == r->get, "%s: PMIx_Get -> %s", c, PMIx_Error_string(r->get));
        CHECK(PMIX_ERR_WOULD_BLOCK == r->fence, "%s: PMIx_Fence -> %s", c,
              PMIx_Error_string(r->fence));
        CHECK(PMIX_ERR_WOULD_BLOCK == r->fence_nb, "%s: PMIx_Fence_nb(NULL cbfunc) -> %s", c,
              PMIx_Error_string(r->fence_nb));
        CHECK(PMIX_ERR_WOULD_BLOCK == r->put, "%s: PMIx_Put -> %s", c, PMIx_Error_string(r->put));
        CHECK(PMIX_ERR_WOULD_BLOCK == r->commit, "%s: PMIx_Commit -> %s", c,
              PMIx_Error_string(r->commit));
        CHECK(PMIX_SUCCESS == r->procid && PMIX_SUCCESS == r->version,
              "%s: self-referential Gets still answer (%s, %s)", c, PMIx_Error_string(r->procid),
              PMIx_Error_string(r->version));
        CHECK(r->secs < 0.5, "%s: at once (%.3f s)", c, r->secs);
    }

    char *text = captured(fd);
    const char *calls[] = {"PMIx_Get:", "PMIx_Fence:", "PMIx_Fence_nb:", "PMIx_Put:",
                           "PMIx_Commit:"};
    for (size_t i = 0; i < 5; i++) {
        int n = count_lines(text, calls[i], "WOULD_BLOCK");
        CHECK(1 == n, "one diagnostic naming %s for its %d refusals (%d)", calls[i], NCTX, n);
    }
    free(text);

    int v = -1;
    pmix_info_t opt;
    flag_info(&opt, PMIX_OPTIONAL);
    CHECK_RC(get_int(&me, "pt.inner", &opt, 1, &v), PMIX_ERR_NOT_FOUND,
             "nothing done: the refused Put stored nothing");
    PMIX_INFO_DESTRUCT(&opt);
    barrier("later fences still pair up (1)");
    barrier("later fences still pair up (2)");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
