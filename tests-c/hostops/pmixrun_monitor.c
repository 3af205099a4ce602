/* pmixrun_monitor: PMIx_Process_monitor served by our server library under pmixrun,
 * run under `pmixrun -n 2`, as OpenPMIx's examples monitor*.c and jctrl.c use it.
 *
 * Rank 0 samples the resource usage of every rank, of rank 1 only, of one field, of
 * the node, its disks and network interfaces; runs a periodic sample (two updates as
 * events carrying the monitor's id, none after the cancel); a malformed rate is refused.
 * Both ranks ask pmixrun's server to watch their heartbeats (1 s, one drop): rank 0
 * beats, rank 1 stays silent; the alert names rank 1 and reaches rank 0 only (OpenPMIx
 * raises it to the namespace, never to the silent source). Job-control properties
 * (preemptible, checkpoint method) are accepted. */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

#include "check.h"

static pmix_proc_t me;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int n_updates, n_alerts, n_update_with_id;
static bool alert_names_rank1;

static const pmix_info_t *find(const pmix_info_t *v, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++) {
        if (PMIX_CHECK_KEY(&v[i], key)) {
            return &v[i];
        }
    }
    return NULL;
}

/* The infos of a PMIX_DATA_ARRAY of PMIX_INFO. */
static const pmix_info_t *inner(const pmix_info_t *i, size_t *n)
{
    *n = 0;
    if (NULL == i || PMIX_DATA_ARRAY != i->value.type || NULL == i->value.data.darray ||
        PMIX_INFO != i->value.data.darray->type) {
        return NULL;
    }
    *n = i->value.data.darray->size;
    return (const pmix_info_t *)i->value.data.darray->array;
}

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *source,
                     pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)source;
    (void)results;
    (void)nresults;
    pthread_mutex_lock(&mu);
    if (PMIX_MONITOR_RESUSAGE_UPDATE == status) {
        n_updates++;
        const pmix_info_t *mid = find(info, ninfo, PMIX_MONITOR_ID);
        if (mid && PMIX_STRING == mid->value.type && 0 == strcmp(mid->value.data.string, "m1") &&
            find(info, ninfo, PMIX_PROC_RESOURCE_USAGE)) {
            n_update_with_id++;
        }
    } else if (PMIX_MONITOR_HEARTBEAT_ALERT == status) {
        n_alerts++;
        const pmix_info_t *a = find(info, ninfo, PMIX_EVENT_AFFECTED_PROC);
        alert_names_rank1 = a && PMIX_PROC == a->value.type &&
                            PMIX_CHECK_NSPACE(a->value.data.proc->nspace, me.nspace) &&
                            1 == a->value.data.proc->rank && source && 1 == source->rank;
    }
    pthread_mutex_unlock(&mu);
    if (cbfunc) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

static int counter(int *c)
{
    pthread_mutex_lock(&mu);
    int v = *c;
    pthread_mutex_unlock(&mu);
    return v;
}

static void nap(double s)
{
    struct timespec t = {(time_t)s, (long)((s - (time_t)s) * 1e9)};
    nanosleep(&t, NULL);
}

/* A usage request with an (optionally field-naming) monitor value. */
static pmix_status_t usage(const char *what, const char *field, pmix_info_t *dirs, size_t nd,
                           pmix_info_t **res, size_t *nres)
{
    pmix_info_t mon;
    pmix_data_array_t da;
    pmix_info_t f;
    if (field) {
        PMIX_INFO_LOAD(&f, field, NULL, PMIX_UNDEF);
        da.type = PMIX_INFO;
        da.size = 1;
        da.array = &f;
    } else {
        da.type = PMIX_PROC;
        da.size = 0;
        da.array = NULL;
    }
    PMIX_INFO_LOAD(&mon, what, &da, PMIX_DATA_ARRAY);
    pmix_status_t rc = PMIx_Process_monitor(&mon, PMIX_MONITOR_RESUSAGE_UPDATE, dirs, nd, res, nres);
    PMIX_INFO_DESTRUCT(&mon);
    return rc;
}

static void one_shot_samples(void)
{
    pmix_info_t *res = NULL;
    size_t nres = 0, n;
    CHECK_RC(usage(PMIX_MONITOR_PROC_RESOURCE_USAGE, NULL, NULL, 0, &res, &nres), PMIX_SUCCESS,
             "proc usage of every rank");
    CHECK(2 == nres, "one entry per rank: %zu", nres);
    bool mine = false;
    for (size_t i = 0; i < nres; i++) {
        const pmix_info_t *e = inner(&res[i], &n);
        const pmix_info_t *pid = find(e, n, PMIX_PROC_PID);
        const pmix_info_t *id = find(e, n, PMIX_PROCID);
        const pmix_info_t *rss = find(e, n, PMIX_PROC_RSS);
        CHECK(PMIX_CHECK_KEY(&res[i], PMIX_PROC_RESOURCE_USAGE) && id && pid && rss &&
                  PMIX_FLOAT == rss->value.type && rss->value.data.fval > 0.0 &&
                  find(e, n, PMIX_PROC_TIME) && find(e, n, PMIX_PROC_SAMPLE_TIME),
              "entry %zu: procid, pid, rss, time", i);
        if (id && pid && id->value.data.proc->rank == me.rank) {
            mine = pid->value.data.pid == getpid();
        }
    }
    CHECK(mine, "my entry has my pid");
    PMIX_INFO_FREE(res, nres);

    pmix_info_t dir;
    pmix_data_array_t da;
    pmix_proc_t one;
    PMIX_LOAD_PROCID(&one, me.nspace, 1);
    da.type = PMIX_PROC;
    da.size = 1;
    da.array = &one;
    PMIX_INFO_LOAD(&dir, PMIX_MONITOR_TARGET_PROCS, &da, PMIX_DATA_ARRAY);
    CHECK_RC(usage(PMIX_MONITOR_PROC_RESOURCE_USAGE, PMIX_PROC_VSIZE, &dir, 1, &res, &nres),
             PMIX_SUCCESS, "vsize of rank 1");
    const pmix_info_t *e = 1 == nres ? inner(&res[0], &n) : NULL;
    const pmix_info_t *id = e ? find(e, n, PMIX_PROCID) : NULL;
    CHECK(id && 1 == id->value.data.proc->rank && find(e, n, PMIX_PROC_VSIZE) &&
              !find(e, n, PMIX_PROC_RSS),
          "only rank 1, only the named field (%zu entries)", nres);
    PMIX_INFO_FREE(res, nres);
    PMIX_INFO_DESTRUCT(&dir);

    CHECK_RC(usage(PMIX_MONITOR_NODE_RESOURCE_USAGE, NULL, NULL, 0, &res, &nres), PMIX_SUCCESS,
             "node usage");
    e = 1 == nres ? inner(&res[0], &n) : NULL;
    const pmix_info_t *mt = e ? find(e, n, PMIX_NODE_MEM_TOTAL) : NULL;
    CHECK(mt && mt->value.data.fval > 0.0 && find(e, n, PMIX_NODE_LOAD_AVG) &&
              find(e, n, PMIX_HOSTNAME),
          "node: memory total, load average, host name");
    PMIX_INFO_FREE(res, nres);

    CHECK_RC(usage(PMIX_MONITOR_NET_RESOURCE_USAGE, NULL, NULL, 0, &res, &nres), PMIX_SUCCESS,
             "network usage");
    bool lo = false;
    for (size_t i = 0; i < nres; i++) {
        const pmix_info_t *x = inner(&res[i], &n);
        const pmix_info_t *nid = find(x, n, PMIX_NETWORK_ID);
        lo = lo || (nid && 0 == strcmp(nid->value.data.string, "lo") &&
                    find(x, n, PMIX_NET_RECVD_BYTES));
    }
    CHECK(lo, "the loopback interface is reported (%zu interfaces)", nres);
    PMIX_INFO_FREE(res, nres);
    CHECK_RC(usage(PMIX_MONITOR_DISK_RESOURCE_USAGE, NULL, NULL, 0, &res, &nres), PMIX_SUCCESS,
             "disk usage");
    PMIX_INFO_FREE(res, nres);

    PMIX_INFO_LOAD(&dir, PMIX_MONITOR_RESOURCE_RATE, "often", PMIX_STRING);
    CHECK_RC(usage(PMIX_MONITOR_PROC_RESOURCE_USAGE, NULL, &dir, 1, &res, &nres),
             PMIX_ERR_BAD_PARAM, "a rate that is not a number");
    PMIX_INFO_DESTRUCT(&dir);
}

static void periodic(void)
{
    pmix_info_t dirs[2], *res = NULL;
    size_t nres = 0;
    uint32_t rate = 1;
    PMIX_INFO_LOAD(&dirs[0], PMIX_MONITOR_ID, "m1", PMIX_STRING);
    PMIX_INFO_LOAD(&dirs[1], PMIX_MONITOR_RESOURCE_RATE, &rate, PMIX_UINT32);
    CHECK_RC(usage(PMIX_MONITOR_PROC_RESOURCE_USAGE, NULL, dirs, 2, &res, &nres), PMIX_SUCCESS,
             "periodic proc usage");
    CHECK(2 == nres, "the first sample comes with the reply");
    PMIX_INFO_FREE(res, nres);
    for (int i = 0; i < 50 && counter(&n_updates) < 2; i++) {
        nap(0.1);
    }
    CHECK(counter(&n_update_with_id) >= 2, "two updates with the monitor's id: %d",
          counter(&n_update_with_id));
    pmix_info_t cancel;
    PMIX_INFO_LOAD(&cancel, PMIX_MONITOR_CANCEL, "m1", PMIX_STRING);
    CHECK_RC(PMIx_Process_monitor(&cancel, PMIX_MONITOR_RESUSAGE_UPDATE, NULL, 0, &res, &nres),
             PMIX_SUCCESS, "cancel");
    int after = counter(&n_updates);
    nap(1.6);
    CHECK(counter(&n_updates) == after, "no update after the cancel");
    PMIX_INFO_DESTRUCT(&cancel);
    PMIX_INFO_DESTRUCT(&dirs[0]);
    PMIX_INFO_DESTRUCT(&dirs[1]);
}

static void heartbeats(void)
{
    pmix_info_t mon, dirs[3], *res = NULL;
    size_t nres = 0;
    uint32_t secs = 1, drops = 1;
    PMIX_INFO_LOAD(&mon, PMIX_MONITOR_HEARTBEAT, NULL, PMIX_POINTER);
    PMIX_INFO_LOAD(&dirs[0], PMIX_MONITOR_ID, "hb", PMIX_STRING);
    PMIX_INFO_LOAD(&dirs[1], PMIX_MONITOR_HEARTBEAT_TIME, &secs, PMIX_UINT32);
    PMIX_INFO_LOAD(&dirs[2], PMIX_MONITOR_HEARTBEAT_DROPS, &drops, PMIX_UINT32);
    CHECK_RC(PMIx_Process_monitor(&mon, PMIX_MONITOR_HEARTBEAT_ALERT, dirs, 3, &res, &nres),
             PMIX_SUCCESS, "heartbeat watch");
    for (int i = 0; i < 30; i++) {
        if (0 == me.rank) {
            PMIx_Heartbeat();
        }
        nap(0.1);
    }
    if (0 == me.rank) {
        CHECK(1 == counter(&n_alerts) && alert_names_rank1,
              "the beating rank hears of the silent one, once (%d)", counter(&n_alerts));
    } else {
        CHECK(0 == counter(&n_alerts), "the silent rank hears no alert about itself (%d)",
              counter(&n_alerts));
    }
    pmix_info_t cancel;
    PMIX_INFO_LOAD(&cancel, PMIX_MONITOR_CANCEL, "hb", PMIX_STRING);
    CHECK_RC(PMIx_Process_monitor(&cancel, PMIX_MONITOR_HEARTBEAT_ALERT, NULL, 0, &res, &nres),
             PMIX_SUCCESS, "cancel the heartbeat watch");
    PMIX_INFO_DESTRUCT(&cancel);
    for (int i = 0; i < 3; i++) {
        PMIX_INFO_DESTRUCT(&dirs[i]);
    }
}

static void job_properties(void)
{
    pmix_info_t info[2], sig;
    bool yes = true;
    int s = SIGUSR2;
    PMIX_INFO_LOAD(&info[0], PMIX_JOB_CTRL_PREEMPTIBLE, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&sig, PMIX_JOB_CTRL_CHECKPOINT_SIGNAL, &s, PMIX_INT);
    pmix_data_array_t da = {.type = PMIX_INFO, .size = 1, .array = &sig};
    PMIX_INFO_LOAD(&info[1], PMIX_JOB_CTRL_CHECKPOINT_METHOD, &da, PMIX_DATA_ARRAY);
    pmix_info_t *res = NULL;
    size_t nres = 0;
    CHECK_RC(PMIx_Job_control(NULL, 0, info, 2, &res, &nres), PMIX_SUCCESS,
             "job control: preemptible, checkpoint method");
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
}

int main(void)
{
    CHECK_RC(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS, "init");
    pmix_status_t codes[2] = {PMIX_MONITOR_RESUSAGE_UPDATE, PMIX_MONITOR_HEARTBEAT_ALERT};
    CHECK(PMIx_Register_event_handler(codes, 2, NULL, 0, on_event, NULL, NULL) >= 0,
          "register the monitor handler");
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "fence: both ranks connected");
    if (0 == me.rank) {
        one_shot_samples();
        periodic();
    }
    heartbeats();
    job_properties();
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "finalize");
    CHECK_DONE();
}
