/* spawn: PMIx_Spawn under pmixrun, used the way MPI_Comm_spawn uses it.
 * Run: pmixrun -n P spawn MODE [NCHILD]
 *
 * MODE ok: rank 0 spawns NCHILD copies of this program (argv "child"), with
 *   PMIX_NOTIFY_COMPLETION; it tells the other parents the new namespace through
 *   Put/Fence/Get. Children check PMIX_SPAWNED, PMIX_PARENT_ID, their own job size and
 *   an environment variable the app set. Then parents and children all PMIx_Connect
 *   over {parent:*, child:*}: afterwards each side reads the other job's size with
 *   PMIX_OPTIONAL and every other process's endpoint data with PMIX_IMMEDIATE; they
 *   fence across both namespaces, disconnect, and finalize. Rank 0 waits for the
 *   PMIX_EVENT_JOB_END of the children. Also: Spawn of a missing program fails with
 *   PMIX_ERR_JOB_FAILED_TO_LAUNCH and the job carries on; Spawn_nb calls back once;
 *   Spawn with no apps is BAD_PARAM.
 * MODE fail: the children exit with status 3 right after PMIx_Init/Finalize; pmixrun
 *   reports the spawned job's failure and exits 3.
 * MODE crash (1 parent): the children connect to the parent, then exit without
 *   PMIx_Finalize; the parent (ignoring the SIGTERM that ends the jobs) hears
 *   PMIX_ERR_PROC_TERM_WO_SYNC and PMIX_ERR_JOB_TERM_WO_SYNC; pmixrun exits 1. */
#include "dyn.h"

#include <signal.h>
#include <unistd.h>

static struct waiter proc_term, job_term, proc_ended;
static pmix_proc_t ended_proc;
static int ended_code = -1;

static void ended_handler(size_t id, pmix_status_t status, const pmix_proc_t *source,
                          pmix_info_t info[], size_t ninfo, pmix_info_t results[],
                          size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc,
                          void *cbdata)
{
    (void)id;
    (void)results;
    (void)nresults;
    if (source) {
        ended_proc = *source;
    }
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_EXIT_CODE)) {
            ended_code = info[i].value.data.integer;
        }
    }
    waiter_done(&proc_ended, status);
    if (cbfunc) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

static void term_handler(size_t id, pmix_status_t status, const pmix_proc_t *source,
                         pmix_info_t info[], size_t ninfo, pmix_info_t results[],
                         size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc,
                         void *cbdata)
{
    (void)id;
    (void)source;
    (void)info;
    (void)ninfo;
    (void)results;
    (void)nresults;
    waiter_done(PMIX_ERR_PROC_TERM_WO_SYNC == status ? &proc_term : &job_term, status);
    if (cbfunc) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

static pmix_proc_t me;
static struct waiter job_end;
static char ended_ns[PMIX_MAX_NSLEN + 1];

static uint32_t job_size(const char *nspace, bool optional)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    pmix_info_t info;
    bool t = true;
    load_proc(&p, nspace, PMIX_RANK_WILDCARD);
    PMIX_INFO_LOAD(&info, PMIX_OPTIONAL, &t, PMIX_BOOL);
    uint32_t n = 0;
    if (PMIX_SUCCESS == PMIx_Get(&p, PMIX_JOB_SIZE, optional ? &info : NULL, optional ? 1 : 0,
                                 &v) &&
        v && PMIX_UINT32 == v->type) {
        n = v->data.uint32;
    }
    if (v) {
        PMIX_VALUE_RELEASE(v);
    }
    PMIX_INFO_DESTRUCT(&info);
    return n;
}

static void end_handler(size_t id, pmix_status_t status, const pmix_proc_t *source,
                        pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                        pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)info;
    (void)ninfo;
    (void)results;
    (void)nresults;
    if (source) {
        PMIX_LOAD_NSPACE(ended_ns, source->nspace);
    }
    waiter_done(&job_end, status);
    if (cbfunc) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

static void spawn_cb(pmix_status_t status, pmix_nspace_t nspace, void *cbdata)
{
    struct waiter *w = cbdata;
    if (PMIX_SUCCESS == status) {
        printf("spawn_nb gave namespace %s\n", nspace);
    }
    waiter_done(w, status);
}

/* Connect {parent:*, child:*}, check what the connect delivered, fence, disconnect. */
static void together(const char *parent_ns, const char *child_ns, uint32_t nparents,
                     uint32_t nchildren)
{
    pmix_proc_t set[2];
    bool child = PMIX_CHECK_NSPACE(me.nspace, child_ns);
    /* Each side lists the two namespaces in its own order. */
    load_proc(&set[child ? 0 : 1], parent_ns, PMIX_RANK_WILDCARD);
    load_proc(&set[child ? 1 : 0], child_ns, PMIX_RANK_WILDCARD);
    int ep = (child ? 1000 : 0) + (int)me.rank;
    pmix_value_t val;
    PMIX_VALUE_LOAD(&val, &ep, PMIX_INT);
    CHECK_RC(PMIx_Put(PMIX_GLOBAL, "spawn.ep", &val), PMIX_SUCCESS, "put endpoint");
    CHECK_RC(PMIx_Connect(set, 2, NULL, 0), PMIX_SUCCESS, "connect parents and children");
    const char *other = child ? parent_ns : child_ns;
    uint32_t want = child ? nparents : nchildren;
    CHECK(job_size(other, true) == want, "the other job's size with PMIX_OPTIONAL (%u)", want);
    pmix_info_t imm;
    bool t = true;
    PMIX_INFO_LOAD(&imm, PMIX_IMMEDIATE, &t, PMIX_BOOL);
    for (int side = 0; side < 2; side++) {
        const char *ns = side ? child_ns : parent_ns;
        uint32_t n = side ? nchildren : nparents;
        for (uint32_t r = 0; r < n; r++) {
            if (PMIX_CHECK_NSPACE(ns, me.nspace) && r == me.rank) {
                continue;
            }
            pmix_proc_t p;
            pmix_value_t *v = NULL;
            load_proc(&p, ns, r);
            pmix_status_t rc = PMIx_Get(&p, "spawn.ep", &imm, 1, &v);
            CHECK(PMIX_SUCCESS == rc && v && v->data.integer == side * 1000 + (int)r,
                  "IMMEDIATE endpoint of %s:%u (rc %d)", ns, r, rc);
            if (v) {
                PMIX_VALUE_RELEASE(v);
            }
        }
    }
    CHECK_RC(PMIx_Fence(set, 2, NULL, 0), PMIX_SUCCESS, "fence across both namespaces");
    CHECK_RC(PMIx_Disconnect(set, 2, NULL, 0), PMIX_SUCCESS, "disconnect");
}

static int as_child(const pmix_proc_t *parent, bool fail, bool crash)
{
    if (crash) {
        pmix_proc_t set[2];
        load_proc(&set[0], me.nspace, PMIX_RANK_WILDCARD);
        load_proc(&set[1], parent->nspace, PMIX_RANK_WILDCARD);
        CHECK_RC(PMIx_Connect(set, 2, NULL, 0), PMIX_SUCCESS, "child: connect");
        printf("child %u exits without disconnecting or finalizing\n", me.rank);
        fflush(stdout);
        _exit(0);
    }
    if (fail) {
        PMIx_Finalize(NULL, 0);
        printf("child %u exits with 3\n", me.rank);
        return 3;
    }
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    load_proc(&p, me.nspace, PMIX_RANK_WILDCARD);
    CHECK_RC(PMIx_Get(&p, PMIX_SPAWNED, NULL, 0, &v), PMIX_SUCCESS, "child: PMIX_SPAWNED");
    CHECK(v && PMIX_BOOL == v->type && v->data.flag, "child: PMIX_SPAWNED is true");
    if (v) {
        PMIX_VALUE_RELEASE(v);
    }
    /* MPI_Comm_spawn-style rendezvous: wait for the parent's published "port". */
    pmix_pdata_t d;
    PMIX_PDATA_CONSTRUCT(&d);
    PMIX_LOAD_KEY(d.key, "spawn.port");
    pmix_info_t wt[2];
    int all = 0, secs = 20;
    PMIX_INFO_LOAD(&wt[0], PMIX_WAIT, &all, PMIX_INT);
    PMIX_INFO_LOAD(&wt[1], PMIX_TIMEOUT, &secs, PMIX_INT);
    CHECK_RC(PMIx_Lookup(&d, 1, wt, 2), PMIX_SUCCESS, "child: lookup of the parent's port");
    CHECK(PMIX_STRING == d.value.type && 0 == strcmp(d.value.data.string, "port-of-parent") &&
              PMIX_CHECK_PROCID(&d.proc, parent),
          "child: the port, published by the parent");
    PMIX_PDATA_DESTRUCT(&d);
    PMIX_PDATA_CONSTRUCT(&d);
    PMIX_LOAD_KEY(d.key, "spawn.nsonly");
    CHECK_RC(PMIx_Lookup(&d, 1, NULL, 0), PMIX_ERR_NOT_FOUND,
             "child: the parent's namespace-range datum is not visible");
    PMIX_PDATA_DESTRUCT(&d);
    const char *var = getenv("SPAWN_TEST_VAR");
    CHECK(var && 0 == strcmp(var, "from-app"), "child: the app's env reached it");
    uint32_t nchildren = job_size(me.nspace, false);
    uint32_t nparents = job_size(parent->nspace, false);
    CHECK(nparents > 0, "child: the parent job's size (%u)", nparents);
    together(parent->nspace, me.nspace, nparents, nchildren);
    printf("child %u of %u done (parent %s:%u)\n", me.rank, nchildren, parent->nspace,
           parent->rank);
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "child: finalize");
    CHECK_DONE();
}

int main(int argc, char **argv)
{
    waiter_init(&job_end);
    CHECK_RC(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS, "PMIx_Init");
    if (check_failures) {
        CHECK_DONE();
    }
    const char *mode = argc > 1 ? argv[1] : "ok";
    int nchild = argc > 2 ? atoi(argv[2]) : 2;
    pmix_value_t *v = NULL;
    pmix_proc_t wild;
    load_proc(&wild, me.nspace, PMIX_RANK_WILDCARD);
    if (0 == strncmp(mode, "child", 5)) {
        CHECK_RC(PMIx_Get(&me, PMIX_PARENT_ID, NULL, 0, &v), PMIX_SUCCESS,
                 "child: PMIX_PARENT_ID");
        pmix_proc_t parent;
        PMIX_PROC_CONSTRUCT(&parent);
        if (v && PMIX_PROC == v->type) {
            parent = *v->data.proc;
        }
        CHECK(0 == parent.rank && !PMIX_CHECK_NSPACE(parent.nspace, me.nspace),
              "child: the parent is rank 0 of another namespace (%s:%u)", parent.nspace,
              parent.rank);
        if (v) {
            PMIX_VALUE_RELEASE(v);
        }
        return as_child(&parent, 0 == strcmp(mode, "child-fail"),
                        0 == strcmp(mode, "child-crash"));
    }

    /* A parent. */
    CHECK_RC(PMIx_Get(&wild, PMIX_SPAWNED, NULL, 0, &v), PMIX_SUCCESS, "parent: PMIX_SPAWNED");
    CHECK(v && !v->data.flag, "parent: PMIX_SPAWNED is false");
    if (v) {
        PMIX_VALUE_RELEASE(v);
    }
    uint32_t nparents = job_size(me.nspace, false);
    bool fail = 0 == strcmp(mode, "fail");
    char child_ns[PMIX_MAX_NSLEN + 1] = "";
    if (0 == strcmp(mode, "crash")) {
        waiter_init(&proc_term);
        waiter_init(&job_term);
        pmix_status_t codes[2] = {PMIX_ERR_PROC_TERM_WO_SYNC, PMIX_ERR_JOB_TERM_WO_SYNC};
        CHECK(PMIx_Register_event_handler(codes, 2, NULL, 0, term_handler, NULL, NULL) >= 0,
              "handler for the WO_SYNC events");
        signal(SIGTERM, SIG_IGN);
        pmix_app_t app;
        PMIX_APP_CONSTRUCT(&app);
        app.cmd = strdup(argv[0]);
        PMIx_Argv_append_nosize(&app.argv, argv[0]);
        PMIx_Argv_append_nosize(&app.argv, "child-crash");
        PMIx_Argv_append_nosize(&app.env, "SPAWN_TEST_VAR=from-app");
        app.maxprocs = nchild;
        CHECK_RC(PMIx_Spawn(NULL, 0, &app, 1, child_ns), PMIX_SUCCESS, "PMIx_Spawn");
        PMIX_APP_DESTRUCT(&app);
        pmix_proc_t set[2];
        load_proc(&set[0], me.nspace, PMIX_RANK_WILDCARD);
        load_proc(&set[1], child_ns, PMIX_RANK_WILDCARD);
        CHECK_RC(PMIx_Connect(set, 2, NULL, 0), PMIX_SUCCESS, "parent: connect");
        CHECK(waiter_wait_n(&proc_term, 1, 20), "PMIX_ERR_PROC_TERM_WO_SYNC arrived");
        CHECK(waiter_wait_n(&job_term, 1, 20), "PMIX_ERR_JOB_TERM_WO_SYNC arrived");
        if (0 == check_failures) {
            printf("parent heard PROC_TERM_WO_SYNC and JOB_TERM_WO_SYNC\n");
        }
        PMIx_Finalize(NULL, 0);
        CHECK_DONE();
    }
    if (0 == me.rank) {
        pmix_status_t code = PMIX_EVENT_JOB_END;
        PMIx_Register_event_handler(&code, 1, NULL, 0, end_handler, NULL, NULL);
        pmix_app_t bad;
        PMIX_APP_CONSTRUCT(&bad);
        bad.cmd = strdup("/nonexistent/program");
        bad.maxprocs = 1;
        CHECK_RC(PMIx_Spawn(NULL, 0, &bad, 1, child_ns), PMIX_ERR_JOB_FAILED_TO_LAUNCH,
                 "spawning a missing program fails");
        CHECK_RC(PMIx_Spawn(NULL, 0, NULL, 0, child_ns), PMIX_ERR_BAD_PARAM, "no apps");
        PMIX_APP_DESTRUCT(&bad);

        pmix_app_t app;
        PMIX_APP_CONSTRUCT(&app);
        app.cmd = strdup(argv[0]);
        PMIx_Argv_append_nosize(&app.argv, argv[0]);
        PMIx_Argv_append_nosize(&app.argv, fail ? "child-fail" : "child");
        PMIx_Argv_append_nosize(&app.env, "SPAWN_TEST_VAR=from-app");
        app.maxprocs = nchild;
        pmix_info_t jinfo;
        bool t = true;
        PMIX_INFO_LOAD(&jinfo, PMIX_NOTIFY_COMPLETION, &t, PMIX_BOOL);
        CHECK_RC(PMIx_Spawn(&jinfo, 1, &app, 1, child_ns), PMIX_SUCCESS, "PMIx_Spawn");
        printf("spawned %s\n", child_ns);
        if (!fail) {
            pmix_info_t pub[2];
            pmix_data_range_t range = PMIX_RANGE_NAMESPACE;
            PMIX_INFO_LOAD(&pub[0], "spawn.nsonly", "x", PMIX_STRING);
            PMIX_INFO_LOAD(&pub[1], PMIX_RANGE, &range, PMIX_DATA_RANGE);
            CHECK_RC(PMIx_Publish(pub, 2), PMIX_SUCCESS, "publish on the namespace");
            PMIX_INFO_DESTRUCT(&pub[0]);
            PMIX_INFO_DESTRUCT(&pub[1]);
            PMIX_INFO_LOAD(&pub[0], "spawn.port", "port-of-parent", PMIX_STRING);
            CHECK_RC(PMIx_Publish(pub, 1), PMIX_SUCCESS, "publish the port");
            PMIX_INFO_DESTRUCT(&pub[0]);
        }
        CHECK(job_size(child_ns, true) == (uint32_t)nchild,
              "the spawn reply carried the children's job data");
        if (!fail) {
            /* Spawn_nb of one more, short-lived child (a plain program),
             * asking to hear when its process ends. */
            waiter_init(&proc_ended);
            pmix_status_t pt = PMIX_EVENT_PROC_TERMINATED;
            PMIx_Register_event_handler(&pt, 1, NULL, 0, ended_handler, NULL, NULL);
            struct waiter w;
            waiter_init(&w);
            pmix_app_t one;
            PMIX_APP_CONSTRUCT(&one);
            one.cmd = strdup("sh");
            PMIx_Argv_append_nosize(&one.argv, "sh");
            PMIx_Argv_append_nosize(&one.argv, "-c");
            PMIx_Argv_append_nosize(&one.argv, "exit 0");
            one.maxprocs = 1;
            pmix_info_t note;
            PMIX_INFO_LOAD(&note, PMIX_NOTIFY_PROC_TERMINATION, &t, PMIX_BOOL);
            CHECK_RC(PMIx_Spawn_nb(&note, 1, &one, 1, spawn_cb, &w), PMIX_SUCCESS, "Spawn_nb");
            CHECK(waiter_wait(&w) && PMIX_SUCCESS == w.status, "Spawn_nb completed");
            sleep_ms(50);
            CHECK(1 == w.calls, "Spawn_nb called back once");
            CHECK(waiter_wait_n(&proc_ended, 1, 20), "PMIX_EVENT_PROC_TERMINATED arrived");
            CHECK(0 == ended_proc.rank && 0 == ended_code &&
                      !PMIX_CHECK_NSPACE(ended_proc.nspace, me.nspace),
                  "it names the spawned process (%s:%u, exit %d)", ended_proc.nspace,
                  ended_proc.rank, ended_code);
            PMIX_INFO_DESTRUCT(&note);
            PMIX_APP_DESTRUCT(&one);
        }
        PMIX_APP_DESTRUCT(&app);
        PMIX_INFO_DESTRUCT(&jinfo);
        pmix_value_t val;
        PMIX_VALUE_LOAD(&val, child_ns, PMIX_STRING);
        CHECK_RC(PMIx_Put(PMIX_GLOBAL, "spawn.child.ns", &val), PMIX_SUCCESS, "put child ns");
        PMIX_VALUE_DESTRUCT(&val);
        CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "commit");
    }
    if (fail) {
        /* The children's failure ends this job too. */
        sleep(30);
        CHECK(false, "still running 30 s after the children failed");
        CHECK_DONE();
    }
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "parents' fence");
    if (0 != me.rank) {
        pmix_proc_t r0;
        load_proc(&r0, me.nspace, 0);
        CHECK_RC(PMIx_Get(&r0, "spawn.child.ns", NULL, 0, &v), PMIX_SUCCESS,
                 "learn the child namespace");
        if (v && PMIX_STRING == v->type) {
            PMIX_LOAD_NSPACE(child_ns, v->data.string);
        }
        if (v) {
            PMIX_VALUE_RELEASE(v);
        }
    }
    together(me.nspace, child_ns, nparents, (uint32_t)nchild);
    if (0 == me.rank) {
        CHECK(waiter_wait_n(&job_end, 1, 20), "PMIX_EVENT_JOB_END arrived");
        CHECK(PMIX_CHECK_NSPACE(ended_ns, child_ns), "the job end is the children's (%s)",
              ended_ns);
    }
    printf("parent %u done\n", me.rank);
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "parent: finalize");
    CHECK_DONE();
}
