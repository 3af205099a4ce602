/* monitor: PMIx_Process_monitor of ranks on other nodes (node servers sample their own
 * ranks; the front end carries the request there and the updates back).
 * Rank 0 (node 0) monitors rank 1 (its node) and the last rank (node 1) every second:
 * the first sample and the updates name both; PMIX_MONITOR_CANCEL of its id stops
 * every update, a cancel of an unknown id fails. Rank 2 (node 1) monitors rank 0 and
 * finalizes without cancelling: after it initializes again, no update arrives (its
 * finalize ended the monitor on node 0).
 * Run: pmixrun --nodes 2 -n 4 monitor */
#include <unistd.h>

#include "mn.h"

static volatile int nupdates = 0;
static volatile unsigned seen = 0; /* bit r: an update sampled rank r */

/* Bit r for every PMIX_PROC_RESOURCE_USAGE entry of rank r in info. */
static unsigned ranks_in(const pmix_info_t *info, size_t ninfo)
{
    unsigned mask = 0;
    for (size_t i = 0; i < ninfo; i++) {
        if (!PMIX_CHECK_KEY(&info[i], PMIX_PROC_RESOURCE_USAGE)
            || PMIX_DATA_ARRAY != info[i].value.type || NULL == info[i].value.data.darray
            || PMIX_INFO != info[i].value.data.darray->type) {
            continue;
        }
        const pmix_info_t *e = (const pmix_info_t *)info[i].value.data.darray->array;
        for (size_t j = 0; j < info[i].value.data.darray->size; j++) {
            if (PMIX_CHECK_KEY(&e[j], PMIX_PROCID) && PMIX_PROC == e[j].value.type
                && e[j].value.data.proc->rank < 32) {
                mask |= 1u << e[j].value.data.proc->rank;
            }
        }
    }
    return mask;
}

static void update(size_t id, pmix_status_t status, const pmix_proc_t *source,
                   pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                   pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id, (void)status, (void)source, (void)results, (void)nresults;
    seen |= ranks_in(info, ninfo);
    nupdates++;
    if (cbfunc) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

static void on_update(void)
{
    pmix_status_t code = PMIX_MONITOR_RESUSAGE_UPDATE;
    int ref = PMIx_Register_event_handler(&code, 1, NULL, 0, update, NULL, NULL);
    CHECK(ref >= 0, "PMIx_Register_event_handler: %d", ref);
}

/* Start a monitor of `targets` every second under `id`: the ranks of its first sample. */
static unsigned start(const char *ns, const pmix_rank_t *targets, size_t nt, const char *id)
{
    pmix_info_t monitor, dir[3], *results = NULL;
    size_t nresults = 0;
    pmix_data_array_t none = {.type = PMIX_STRING, .size = 0, .array = NULL};
    PMIX_INFO_LOAD(&monitor, PMIX_MONITOR_PROC_RESOURCE_USAGE, &none, PMIX_DATA_ARRAY);
    PMIX_INFO_LOAD(&dir[0], PMIX_MONITOR_ID, id, PMIX_STRING);
    uint32_t rate = 1;
    PMIX_INFO_LOAD(&dir[1], PMIX_MONITOR_RESOURCE_RATE, &rate, PMIX_UINT32);
    pmix_data_array_t arr;
    PMIX_DATA_ARRAY_CONSTRUCT(&arr, nt, PMIX_PROC);
    for (size_t i = 0; i < nt; i++) {
        PMIX_LOAD_PROCID(&((pmix_proc_t *)arr.array)[i], ns, targets[i]);
    }
    PMIX_INFO_LOAD(&dir[2], PMIX_MONITOR_TARGET_PROCS, &arr, PMIX_DATA_ARRAY);
    PMIX_DATA_ARRAY_DESTRUCT(&arr);
    pmix_status_t rc = PMIx_Process_monitor(&monitor, PMIX_MONITOR_RESUSAGE_UPDATE, dir, 3,
                                            &results, &nresults);
    CHECK(PMIX_SUCCESS == rc, "PMIx_Process_monitor %s: %s", id, PMIx_Error_string(rc));
    unsigned mask = ranks_in(results, nresults);
    if (results) {
        PMIX_INFO_FREE(results, nresults);
    }
    return mask;
}

static pmix_status_t cancel(const char *id)
{
    pmix_info_t monitor, *results = NULL;
    size_t nresults = 0;
    PMIX_INFO_LOAD(&monitor, PMIX_MONITOR_CANCEL, id, PMIX_STRING);
    pmix_status_t rc = PMIx_Process_monitor(&monitor, PMIX_MONITOR_RESUSAGE_UPDATE, NULL, 0,
                                            &results, &nresults);
    if (results) {
        PMIX_INFO_FREE(results, nresults);
    }
    return rc;
}

/* Wait up to 6 s until updates sampled every rank of `want`. */
static void wait_for(unsigned want)
{
    for (int i = 0; i < 600 && (seen & want) != want; i++) {
        usleep(10000);
    }
}

/* No update for 2.3 s (more than two periods), after letting one in flight land. */
static int quiet(void)
{
    usleep(300000);
    nupdates = 0;
    usleep(2300000);
    return nupdates;
}

int main(void)
{
    pmix_proc_t me;
    uint32_t n = mn_init(&me);
    if (n != 4) {
        CHECK(n == 4, "run with --nodes 2 -n 4 (got %u ranks)", n);
        CHECK_DONE();
    }
    on_update();
    CHECK_RC(mn_fence(false), PMIX_SUCCESS, "Fence (every handler installed)");
    if (me.rank == 0) {
        pmix_rank_t t[2] = {1, n - 1};
        unsigned want = (1u << 1) | (1u << (n - 1));
        unsigned first = start(me.nspace, t, 2, "mn");
        CHECK(first == want, "first sample names ranks 1 and %u (mask %#x)", n - 1, first);
        wait_for(want);
        CHECK((seen & want) == want, "updates sampled ranks 1 and %u (mask %#x)", n - 1, seen);
        CHECK_RC(cancel("mn"), PMIX_SUCCESS, "PMIX_MONITOR_CANCEL mn");
        int late = quiet();
        CHECK(late == 0, "no update after the cancel (%d)", late);
        CHECK(cancel("nosuch") != PMIX_SUCCESS, "a cancel of an unknown id fails");
    } else if (me.rank == 2) {
        pmix_rank_t t[1] = {0};
        unsigned first = start(me.nspace, t, 1, "rq");
        CHECK(first == 1u, "first sample names rank 0 (mask %#x)", first);
        wait_for(1u);
        CHECK(seen & 1u, "updates sampled rank 0 on the other node");
        CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize with a monitor running");
        CHECK_RC(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS, "PMIx_Init again");
        on_update();
        int late = quiet();
        CHECK(late == 0, "the finalize ended the monitor on node 0 (%d updates)", late);
    }
    CHECK_RC(mn_fence(false), PMIX_SUCCESS, "final Fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
