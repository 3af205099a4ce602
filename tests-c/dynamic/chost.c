/* chost: the dynamic operations through a C host's module (the adapter Open MPI's mpirun
 * goes through), without pmixrun. The host forks 2 clients of itself.
 *
 *   chost null   every dynamic slot is NULL: Spawn, Publish, Lookup, Unpublish, Log,
 *                Job_control, a query the server cannot answer, and a connect or group
 *                that reaches beyond this server all give PMIX_ERR_NOT_SUPPORTED; what the
 *                server does itself (all-local connect, namespaces query) still works
 *   chost host   the slots are implemented here (answering from inside the upcall):
 *                the clients' calls reach them with their arguments and get the host's
 *                answers back (spawned namespace, looked-up data, query results, job
 *                control results); a connect naming a namespace of another server makes
 *                one connect upcall with both processes */
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "check.h"
#include "host.h"

#define NSPACE "chost-job"
#define OTHER "chost-elsewhere"


static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static int n_publish, n_lookup, n_unpublish, n_spawn, n_connect, n_disconnect, n_query, n_log,
    n_jctrl, n_notify, connect_nprocs;

#define COUNT(x)                                                                           \
    do {                                                                                   \
        pthread_mutex_lock(&mtx);                                                          \
        x++;                                                                               \
        pthread_mutex_unlock(&mtx);                                                        \
    } while (0)

static pmix_status_t h_finalized(const pmix_proc_t *p, void *obj, pmix_op_cbfunc_t cb, void *cbd)
{
    (void)p;
    (void)obj;
    if (cb) {
        cb(PMIX_SUCCESS, cbd);
    }
    return PMIX_SUCCESS;
}

static pmix_status_t h_publish(const pmix_proc_t *p, const pmix_info_t info[], size_t ninfo,
                               pmix_op_cbfunc_t cb, void *cbd)
{
    (void)p;
    bool has_uid = false;
    for (size_t i = 0; i < ninfo; i++) {
        has_uid |= PMIX_CHECK_KEY(&info[i], PMIX_USERID);
    }
    COUNT(n_publish);
    cb(has_uid ? PMIX_SUCCESS : PMIX_ERR_BAD_PARAM, cbd);
    return PMIX_SUCCESS;
}

static pmix_status_t h_lookup(const pmix_proc_t *p, char **keys, const pmix_info_t info[],
                              size_t ninfo, pmix_lookup_cbfunc_t cb, void *cbd)
{
    (void)info;
    (void)ninfo;
    COUNT(n_lookup);
    if (!keys || !keys[0] || strcmp(keys[0], "chost.key")) {
        cb(PMIX_ERR_NOT_FOUND, NULL, 0, cbd);
        return PMIX_SUCCESS;
    }
    pmix_pdata_t d;
    PMIX_PDATA_CONSTRUCT(&d);
    PMIX_LOAD_PROCID(&d.proc, p->nspace, 0);
    PMIX_LOAD_KEY(d.key, "chost.key");
    int v = 77;
    PMIx_Value_load(&d.value, &v, PMIX_INT);
    cb(PMIX_SUCCESS, &d, 1, cbd);
    PMIX_PDATA_DESTRUCT(&d);
    return PMIX_SUCCESS;
}

static pmix_status_t h_unpublish(const pmix_proc_t *p, char **keys, const pmix_info_t info[],
                                 size_t ninfo, pmix_op_cbfunc_t cb, void *cbd)
{
    (void)p;
    (void)keys;
    (void)info;
    (void)ninfo;
    COUNT(n_unpublish);
    /* Done at once: no callback. */
    (void)cb;
    (void)cbd;
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t h_spawn(const pmix_proc_t *p, const pmix_info_t job_info[], size_t ninfo,
                             const pmix_app_t apps[], size_t napps, pmix_spawn_cbfunc_t cb,
                             void *cbd)
{
    (void)p;
    (void)job_info;
    (void)ninfo;
    COUNT(n_spawn);
    bool ok = 1 == napps && apps[0].cmd && 0 == strcmp(apps[0].cmd, "chost-child") &&
              3 == apps[0].maxprocs;
    cb(ok ? PMIX_SUCCESS : PMIX_ERR_BAD_PARAM, ok ? "chost-spawned" : NULL, cbd);
    return PMIX_SUCCESS;
}

static pmix_status_t h_connect(const pmix_proc_t procs[], size_t nprocs,
                               const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cb,
                               void *cbd)
{
    (void)procs;
    (void)info;
    (void)ninfo;
    pthread_mutex_lock(&mtx);
    n_connect++;
    connect_nprocs = (int)nprocs;
    pthread_mutex_unlock(&mtx);
    cb(PMIX_SUCCESS, cbd);
    return PMIX_SUCCESS;
}

static pmix_status_t h_disconnect(const pmix_proc_t procs[], size_t nprocs,
                                  const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cb,
                                  void *cbd)
{
    (void)procs;
    (void)nprocs;
    (void)info;
    (void)ninfo;
    COUNT(n_disconnect);
    cb(PMIX_SUCCESS, cbd);
    return PMIX_SUCCESS;
}

static pmix_status_t h_query(pmix_proc_t *p, pmix_query_t *queries, size_t nqueries,
                             pmix_info_cbfunc_t cb, void *cbd)
{
    (void)p;
    COUNT(n_query);
    if (1 != nqueries || !queries[0].keys || strcmp(queries[0].keys[0], "chost.query")) {
        cb(PMIX_ERR_NOT_FOUND, NULL, 0, cbd, NULL, NULL);
        return PMIX_SUCCESS;
    }
    pmix_info_t res;
    int v = 5;
    PMIX_INFO_LOAD(&res, "chost.query", &v, PMIX_INT);
    cb(PMIX_SUCCESS, &res, 1, cbd, NULL, NULL);
    PMIX_INFO_DESTRUCT(&res);
    return PMIX_SUCCESS;
}

static void h_log(const pmix_proc_t *p, const pmix_info_t data[], size_t ndata,
                  const pmix_info_t dirs[], size_t ndirs, pmix_op_cbfunc_t cb, void *cbd)
{
    (void)p;
    (void)dirs;
    (void)ndirs;
    COUNT(n_log);
    cb(1 == ndata && PMIX_CHECK_KEY(&data[0], PMIX_LOG_STDERR) ? PMIX_SUCCESS : PMIX_ERROR, cbd);
}

static pmix_status_t h_jctrl(const pmix_proc_t *p, const pmix_proc_t targets[], size_t ntargets,
                             const pmix_info_t dirs[], size_t ndirs, pmix_info_cbfunc_t cb,
                             void *cbd)
{
    (void)p;
    (void)targets;
    (void)dirs;
    (void)ndirs;
    COUNT(n_jctrl);
    pmix_info_t res;
    uint32_t n = (uint32_t)ntargets;
    PMIX_INFO_LOAD(&res, "chost.killed", &n, PMIX_UINT32);
    cb(PMIX_SUCCESS, &res, 1, cbd, NULL, NULL);
    PMIX_INFO_DESTRUCT(&res);
    return PMIX_SUCCESS;
}

static pmix_status_t h_notify(pmix_status_t code, const pmix_proc_t *source,
                              pmix_data_range_t range, pmix_info_t info[], size_t ninfo,
                              pmix_op_cbfunc_t cb, void *cbd)
{
    (void)code;
    (void)source;
    (void)range;
    (void)info;
    (void)ninfo;
    COUNT(n_notify);
    if (cb) {
        cb(PMIX_SUCCESS, cbd);
    }
    return PMIX_SUCCESS;
}

/* ------------------------------------------------------------------ client mode */

static int client(bool null)
{
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    CHECK_RC(rc, PMIX_SUCCESS, "client PMIx_Init");
    if (rc != PMIX_SUCCESS) {
        CHECK_DONE();
    }
    pmix_status_t want = null ? PMIX_ERR_NOT_SUPPORTED : PMIX_SUCCESS;
    pmix_info_t i1;
    int v = 1;
    PMIX_INFO_LOAD(&i1, "chost.key", &v, PMIX_INT);
    CHECK_RC(PMIx_Publish(&i1, 1), want, "Publish");
    PMIX_INFO_DESTRUCT(&i1);

    pmix_pdata_t d;
    PMIX_PDATA_CONSTRUCT(&d);
    PMIX_LOAD_KEY(d.key, "chost.key");
    CHECK_RC(PMIx_Lookup(&d, 1, NULL, 0), want, "Lookup");
    if (!null) {
        CHECK(PMIX_INT == d.value.type && 77 == d.value.data.integer, "the host's value");
    }
    PMIX_PDATA_DESTRUCT(&d);
    char *keys[] = {"chost.key", NULL};
    CHECK_RC(PMIx_Unpublish(keys, NULL, 0), want, "Unpublish");

    pmix_app_t app;
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup("chost-child");
    app.maxprocs = 3;
    char ns[PMIX_MAX_NSLEN + 1] = "";
    CHECK_RC(PMIx_Spawn(NULL, 0, &app, 1, ns), want, "Spawn");
    if (!null) {
        CHECK(0 == strcmp(ns, "chost-spawned"), "spawned namespace %s", ns);
    }
    PMIX_APP_DESTRUCT(&app);

    /* A connect reaching a namespace this server does not know goes to the host. */
    pmix_proc_t two[2];
    PMIX_LOAD_PROCID(&two[0], me.nspace, me.rank);
    PMIX_LOAD_PROCID(&two[1], OTHER, PMIX_RANK_WILDCARD);
    CHECK_RC(PMIx_Connect(two, 2, NULL, 0), want, "Connect beyond this server");
    if (!null) {
        CHECK_RC(PMIx_Disconnect(two, 2, NULL, 0), PMIX_SUCCESS, "Disconnect");
    }
    /* All local: the server completes it, whatever the host. */
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    CHECK_RC(PMIx_Connect(&wild, 1, NULL, 0), PMIX_SUCCESS, "all-local Connect");

    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    PMIx_Argv_append_nosize(&q.keys, "chost.query");
    pmix_info_t *res = NULL;
    size_t nres = 0;
    CHECK_RC(PMIx_Query_info(&q, 1, &res, &nres), null ? PMIX_ERR_NOT_FOUND : PMIX_SUCCESS,
             "Query of a host key");
    PMIX_INFO_FREE(res, nres);
    PMIX_QUERY_DESTRUCT(&q);
    PMIX_QUERY_CONSTRUCT(&q);
    PMIx_Argv_append_nosize(&q.keys, PMIX_QUERY_NAMESPACES);
    CHECK_RC(PMIx_Query_info(&q, 1, &res, &nres), PMIX_SUCCESS, "Query the server answers");
    PMIX_INFO_FREE(res, nres);
    PMIX_QUERY_DESTRUCT(&q);

    PMIX_INFO_LOAD(&i1, PMIX_LOG_STDERR, "chost log line", PMIX_STRING);
    CHECK_RC(PMIx_Log(&i1, 1, NULL, 0), want, "Log");
    PMIX_INFO_DESTRUCT(&i1);
    bool t = true;
    PMIX_INFO_LOAD(&i1, PMIX_JOB_CTRL_KILL, &t, PMIX_BOOL);
    CHECK_RC(PMIx_Job_control(two, 2, &i1, 1, &res, &nres), want, "Job_control");
    if (!null) {
        CHECK(1 == nres && PMIX_CHECK_KEY(&res[0], "chost.killed") && 2 == res[0].value.data.uint32,
              "the host's job control results");
        PMIX_INFO_FREE(res, nres);
    }
    PMIX_INFO_DESTRUCT(&i1);
    CHECK_RC(PMIx_Group_construct("chost-grp", two, 2, NULL, 0, &res, &nres),
             PMIX_ERR_NOT_SUPPORTED, "a group beyond this server (no group slot)");
    CHECK_RC(PMIx_Notify_event(-7777, NULL, PMIX_RANGE_SESSION, NULL, 0, NULL, NULL),
             PMIX_SUCCESS, "Notify_event beyond the node");

    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "Fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "Finalize");
    CHECK_DONE();
}

/* ------------------------------------------------------------------ host mode */

int main(int argc, char **argv)
{
    const char *scenario = argc > 1 ? argv[1] : "host";
    bool null = 0 == strcmp(scenario, "null");
    if (argc > 2 && 0 == strcmp(argv[2], "client")) {
        return client(null);
    }
    pmix_server_module_t module;
    memset(&module, 0, sizeof module);
    module.client_finalized = h_finalized;
    if (!null) {
        module.publish = h_publish;
        module.lookup = h_lookup;
        module.unpublish = h_unpublish;
        module.spawn = h_spawn;
        module.connect = h_connect;
        module.disconnect = h_disconnect;
        module.query = h_query;
        module.log = h_log;
        module.job_control = h_jctrl;
        module.notify_event = h_notify;
    }
    pmix_status_t rc = PMIx_server_init(&module, NULL, 0);
    CHECK_RC(rc, PMIX_SUCCESS, "PMIx_server_init");

    const int n = 2;
    host_register_nspace(NSPACE, n);
    pid_t pids[2];
    for (int i = 0; i < n; i++) {
        char *args[] = {argv[0], (char *)scenario, "client", NULL};
        pids[i] = host_start_client(NSPACE, (pmix_rank_t)i, args);
    }
    int failed = host_wait_clients(pids, n);
    CHECK(0 == failed, "every client passed (%d failed)", failed);
    if (!null) {
        pthread_mutex_lock(&mtx);
        CHECK(2 == n_publish && 2 == n_lookup && 2 == n_unpublish && 2 == n_spawn,
              "publish/lookup/unpublish/spawn upcalls (%d %d %d %d)", n_publish, n_lookup,
              n_unpublish, n_spawn);
        CHECK(2 == n_connect && 2 == connect_nprocs && 2 == n_disconnect,
              "one connect upcall per client's spanning connect, with both processes (%d, %d)",
              n_connect, connect_nprocs);
        CHECK(2 == n_query && 2 == n_log && 2 == n_jctrl && n_notify >= 2,
              "query/log/job control/notify upcalls (%d %d %d %d)", n_query, n_log, n_jctrl,
              n_notify);
        pthread_mutex_unlock(&mtx);
    }
    rc = PMIx_server_finalize();
    CHECK_RC(rc, PMIX_SUCCESS, "PMIx_server_finalize");
    CHECK_DONE();
}
