/* tool_attach: a PMIx tool that attaches to a running pmixrun job (started by
 * tool_job, which passes what it needs on the command line).
 *
 *   tool_attach pid PID NSPACE FD  find the server by PMIX_SERVER_PIDINFO = PID
 *   tool_attach uri URI NSPACE FD  connect to PMIX_SERVER_URI = URI
 *   tool_attach vanish PID NSPACE FD  attach, then exit without finalizing
 *   tool_attach refused URI NSPACE PID  the server (pmixrun PID) has tool support off:
 *                                    PMIX_ERR_NOT_SUPPORTED (URI), PMIX_ERR_UNREACH
 *                                    (PMIX_SERVER_PIDINFO: no rendezvous file)
 *
 * In the pid/uri modes the tool: gets an identity from pmixrun (<NSPACE>-tool<n>);
 * is connected to exactly one server, which set_server accepts (another is UNREACH);
 * finds NSPACE among the namespaces (PMIx_Query_info) and its job size 2 (PMIx_Get);
 * logs a line to pmixrun's stderr (PMIx_Log) and spawns /bin/true (PMIx_Spawn);
 * registers an event handler that sees its own local event; pulls the stdout of every
 * rank of NSPACE, then writes 'R' to FD and waits for the markers both ranks print
 * after that; disconnects (not connected, get_servers UNREACH), attaches again (same
 * identity and server) and reads the job size again; finalizes (a second finalize is
 * PMIX_ERR_INIT). Its own ok/FAIL lines go to stdout and the exit status is the verdict. */
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_tool.h>

#include "check.h"

#define WAIT_S 40

static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cnd = PTHREAD_COND_INITIALIZER;
static char got[1 << 16];
static size_t got_len;
static int events_seen;
static char job[PMIX_MAX_NSLEN + 1];

static void on_output(size_t id, pmix_iof_channel_t channel, pmix_proc_t *source,
                      pmix_byte_object_t *payload, pmix_info_t info[], size_t ninfo)
{
    (void)id; (void)info; (void)ninfo;
    pthread_mutex_lock(&mtx);
    if (channel == PMIX_FWD_STDOUT_CHANNEL && 0 == strncmp(source->nspace, job, PMIX_MAX_NSLEN) &&
        got_len + payload->size < sizeof got - 1) {
        memcpy(got + got_len, payload->bytes, payload->size);
        got_len += payload->size;
        got[got_len] = '\0';
    }
    pthread_cond_broadcast(&cnd);
    pthread_mutex_unlock(&mtx);
}

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *source,
                     pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id; (void)source; (void)info; (void)ninfo; (void)results; (void)nresults;
    pthread_mutex_lock(&mtx);
    if (status == PMIX_EXTERNAL_ERR_BASE - 17) events_seen++;
    pthread_cond_broadcast(&cnd);
    pthread_mutex_unlock(&mtx);
    if (cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

/* Wait until cond() holds or WAIT_S passes; true if it holds. */
static bool wait_for(bool (*cond)(void))
{
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += WAIT_S;
    pthread_mutex_lock(&mtx);
    while (!cond()) {
        if (pthread_cond_timedwait(&cnd, &mtx, &dl) != 0 && !cond()) break;
    }
    bool ok = cond();
    pthread_mutex_unlock(&mtx);
    return ok;
}
static bool markers(void) { return strstr(got, "tool-marker-0") && strstr(got, "tool-marker-1"); }
static bool event_in(void) { return events_seen > 0; }

static pmix_status_t job_size(uint32_t *size)
{
    pmix_proc_t wild;
    pmix_value_t *v = NULL;
    PMIX_LOAD_PROCID(&wild, job, PMIX_RANK_WILDCARD);
    pmix_status_t rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v);
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_Value_get_number(v, size, PMIX_UINT32);
        PMIX_VALUE_RELEASE(v);
    }
    return rc;
}

static void set_target(pmix_info_t *i, const char *mode, const char *arg)
{
    if (0 == strcmp(mode, "uri") || 0 == strcmp(mode, "refused")) {
        PMIX_INFO_LOAD(i, PMIX_SERVER_URI, arg, PMIX_STRING);
    } else {
        pid_t pid = (pid_t)atoi(arg);
        PMIX_INFO_LOAD(i, PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
    }
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: tool_attach pid|uri|vanish|refused TARGET NSPACE FD\n");
        return 2;
    }
    const char *mode = argv[1];
    snprintf(job, sizeof job, "%s", argv[3]);
    int fd = atoi(argv[4]);
    pmix_proc_t me;
    pmix_info_t target;
    set_target(&target, mode, argv[2]);

    if (0 == strcmp(mode, "refused")) {
        CHECK_RC(PMIx_tool_init(&me, &target, 1), PMIX_ERR_NOT_SUPPORTED,
                 "a server without tool support refuses the tool");
        pmix_info_t bypid;
        pid_t pid = (pid_t)atoi(argv[4]);
        PMIX_INFO_LOAD(&bypid, PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
        CHECK_RC(PMIx_tool_init(&me, &bypid, 1), PMIX_ERR_UNREACH,
                 "no rendezvous file without tool support");
        CHECK(!PMIx_tool_is_connected(), "not connected");
        PMIX_INFO_DESTRUCT(&bypid);
        PMIX_INFO_DESTRUCT(&target);
        CHECK_DONE();
    }

    CHECK_RC(PMIx_tool_init(&me, &target, 1), PMIX_SUCCESS, "PMIx_tool_init");
    if (check_failures) CHECK_DONE();
    char prefix[PMIX_MAX_NSLEN + 8];
    snprintf(prefix, sizeof prefix, "%s-tool", job);
    CHECK(0 == strncmp(me.nspace, prefix, strlen(prefix)) && me.rank == 0,
          "pmixrun assigned the identity %s.%u", me.nspace, me.rank);
    CHECK(PMIx_tool_is_connected(), "connected");
    if (0 == strcmp(mode, "vanish")) {
        fflush(stdout);
        _exit(check_failures ? 1 : 0); /* leave without finalizing */
    }

    pmix_proc_t *servers = NULL;
    size_t nservers = 0;
    CHECK_RC(PMIx_tool_get_servers(&servers, &nservers), PMIX_SUCCESS, "get_servers");
    CHECK(nservers == 1 && servers != NULL, "one server (%zu)", nservers);
    pmix_proc_t server;
    PMIX_LOAD_PROCID(&server, "none", 0);
    if (nservers == 1) {
        server = servers[0];
        PMIX_PROC_FREE(servers, nservers);
    }
    CHECK_RC(PMIx_tool_set_server(&server, NULL, 0), PMIX_SUCCESS, "set_server(our server)");
    pmix_proc_t other;
    PMIX_LOAD_PROCID(&other, "no-such-server", 0);
    CHECK_RC(PMIx_tool_set_server(&other, NULL, 0), PMIX_ERR_UNREACH, "set_server(another)");
    CHECK_RC(PMIx_tool_set_server(NULL, NULL, 0), PMIX_ERR_BAD_PARAM, "set_server(NULL)");

    /* Queries and job data. */
    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    PMIx_Argv_append_nosize(&q.keys, PMIX_QUERY_NAMESPACES);
    pmix_info_t *res = NULL;
    size_t nres = 0;
    CHECK_RC(PMIx_Query_info(&q, 1, &res, &nres), PMIX_SUCCESS, "query namespaces");
    bool found = false;
    for (size_t i = 0; i < nres; i++) {
        if (PMIX_CHECK_KEY(&res[i], PMIX_QUERY_RESULTS) && res[i].value.type == PMIX_DATA_ARRAY) {
            pmix_info_t *it = res[i].value.data.darray->array;
            for (size_t j = 0; j < res[i].value.data.darray->size; j++)
                if (PMIX_CHECK_KEY(&it[j], PMIX_QUERY_NAMESPACES) && it[j].value.type == PMIX_STRING &&
                    strstr(it[j].value.data.string, job))
                    found = true;
        }
    }
    CHECK(found, "the job's namespace %s is among the namespaces", job);
    if (res) PMIX_INFO_FREE(res, nres);
    PMIX_QUERY_DESTRUCT(&q);
    uint32_t size = 0;
    CHECK_RC(job_size(&size), PMIX_SUCCESS, "PMIx_Get(job, PMIX_JOB_SIZE)");
    CHECK(size == 2, "job size %u", size);

    /* Log through the server to pmixrun's stderr. */
    pmix_info_t lg;
    PMIX_INFO_LOAD(&lg, PMIX_LOG_STDERR, "tool log line", PMIX_STRING);
    CHECK_RC(PMIx_Log(&lg, 1, NULL, 0), PMIX_SUCCESS, "PMIx_Log to stderr");
    PMIX_INFO_DESTRUCT(&lg);

    /* Spawn a job of one from the tool; it ends by itself. */
    pmix_app_t app;
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup("/bin/true");
    PMIx_Argv_append_nosize(&app.argv, "true");
    app.maxprocs = 1;
    pmix_nspace_t child;
    CHECK_RC(PMIx_Spawn(NULL, 0, &app, 1, child), PMIX_SUCCESS, "PMIx_Spawn from the tool");
    PMIX_APP_DESTRUCT(&app);

    /* Events: our own process-local event reaches our handler. */
    pmix_status_t code = PMIX_EXTERNAL_ERR_BASE - 17;
    int hid = PMIx_Register_event_handler(&code, 1, NULL, 0, on_event, NULL, NULL);
    CHECK(hid >= 0, "register event handler (%d)", hid);
    pmix_info_t range;
    pmix_data_range_t r = PMIX_RANGE_PROC_LOCAL;
    PMIX_INFO_LOAD(&range, PMIX_RANGE, &r, PMIX_DATA_RANGE);
    pmix_status_t rc = PMIx_Notify_event(code, &me, PMIX_RANGE_PROC_LOCAL, &range, 1, NULL, NULL);
    CHECK(rc == PMIX_SUCCESS || rc == PMIX_OPERATION_SUCCEEDED, "notify (%d)", rc);
    CHECK(wait_for(event_in), "the handler saw the event");
    PMIX_INFO_DESTRUCT(&range);

    /* Output of every rank. */
    pmix_proc_t all;
    PMIX_LOAD_PROCID(&all, job, PMIX_RANK_WILDCARD);
    rc = PMIx_IOF_pull(&all, 1, NULL, 0, PMIX_FWD_STDOUT_CHANNEL, on_output, NULL, NULL);
    CHECK(rc == PMIX_SUCCESS || rc == PMIX_OPERATION_SUCCEEDED, "PMIx_IOF_pull (%d)", rc);
    CHECK(write(fd, "R", 1) == 1, "told the rank we are ready");
    close(fd);
    CHECK(wait_for(markers), "both ranks' markers arrived through the pull");

    /* Disconnect, then attach again. */
    CHECK_RC(PMIx_tool_disconnect(&other), PMIX_ERR_NOT_FOUND, "disconnect(another server)");
    CHECK_RC(PMIx_tool_disconnect(&server), PMIX_SUCCESS, "disconnect");
    CHECK(!PMIx_tool_is_connected(), "not connected after disconnect");
    CHECK_RC(PMIx_tool_get_servers(&servers, &nservers), PMIX_ERR_UNREACH,
             "get_servers when not connected");
    CHECK(nservers == 0, "no servers");
    CHECK_RC(PMIx_tool_attach_to_server(NULL, NULL, NULL, 0), PMIX_ERR_BAD_PARAM,
             "attach without directives");
    pmix_proc_t me2, srv2;
    CHECK_RC(PMIx_tool_attach_to_server(&me2, &srv2, &target, 1), PMIX_SUCCESS, "attach again");
    CHECK(PMIX_CHECK_PROCID(&me2, &me), "same identity %s.%u", me2.nspace, me2.rank);
    CHECK(PMIX_CHECK_PROCID(&srv2, &server), "same server %s.%u", srv2.nspace, srv2.rank);
    CHECK(PMIx_tool_is_connected(), "connected again");
    size = 0;
    CHECK_RC(job_size(&size), PMIX_SUCCESS, "PMIx_Get after re-attaching");
    CHECK(size == 2, "job size %u", size);
    CHECK_RC(PMIx_tool_attach_to_server(NULL, &srv2, &target, 1), PMIX_SUCCESS,
             "attaching to the server we are connected to");

    CHECK_RC(PMIx_tool_finalize(), PMIX_SUCCESS, "PMIx_tool_finalize");
    CHECK_RC(PMIx_tool_finalize(), PMIX_ERR_INIT, "a second finalize");
    CHECK(!PMIx_tool_is_connected(), "not connected after finalize");
    PMIX_INFO_DESTRUCT(&target);
    CHECK_DONE();
}
