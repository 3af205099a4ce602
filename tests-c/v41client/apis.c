/* The client APIs beyond the basics under an OpenPMIx server (Debian's mpirun: Open MPI
 * 4.1.4, OpenPMIx 4.2.2), as the same binary on our libpmix and on Debian's: run.sh runs
 * each mode on both and compares the "ANSWER" lines, which say only what a user sees
 * (statuses and data, never a namespace or a time). Modes (argv[1]):
 *   apis   (-np 2) a Get of a key nobody puts with PMIX_TIMEOUT 1 s (PMIX_ERR_TIMEOUT
 *          in about 1 s), Put/Commit/
 *          Fence, Publish/Lookup/Unpublish (and a Lookup after it), Query (namespaces,
 *          job size of our namespace, job status, number of psets), Log to stdout and
 *          stderr, Job_control (signal 0 to our namespace), Finalize. With V41APIS_OURS
 *          set, also the rules of our library alone (4.2.2 has neither): a blocking call
 *          from a callback is PMIX_ERR_WOULD_BLOCK, PMIX_GET_STATIC_VALUES fills the
 *          caller's storage.
 *   abort  (-np 2) rank 0 calls PMIx_Abort(3, ...) after a fence; rank 1 waits in
 *          PMIx_Fence (mpirun ends it); mpirun's exit status is the answer.
 *   spawn  (-np 1) PMIx_Spawn of one copy of this binary ("child"; its LD_LIBRARY_PATH
 *          and V41CLIENT_LIB are passed in the app's env), then PMIx_Connect of both
 *          namespaces, a Get of the child's key, PMIx_Disconnect.
 *   extras (-np 2) PMIx_IOF_pull of our namespace's stdout, PMIx_Group_construct of both
 *          ranks (and the deregistration/destruct when they succeed).
 *   child  the spawned copy: PMIX_PARENT_ID, Put/Commit, Connect to the parent's
 *          namespace, Disconnect.
 *   fencetimeout (-np 2) rank 0's Fence with PMIX_TIMEOUT 1 s while rank 1 sleeps
 *          (PMIX_ERR_TIMEOUT after about 1 s), then two ordinary fences of both ranks
 *          (SUCCESS: the timed-out fence left nothing behind at either end). Fences that
 *          no longer pair up after a timeout are not compared: when one rank has
 *          finalized before the other's unpaired fence reaches it, 4.2.2's server under
 *          ORTE never answers that fence (Debian's client and ours alike; otherwise it
 *          answers PMIX_ERR_PARTIAL_SUCCESS). */
#define _GNU_SOURCE
#include <pmix.h>
#include <pmix_tool.h> /* PMIx_IOF_pull, PMIx_IOF_deregister */
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "maps.h"

static pmix_proc_t me;
static const char *role = "job";

/* An answer line, on stdout and (V41APIS_DIR set) in a file of this process's own, which
 * mpirun's forwarded output (the logged lines) cannot interleave with. */
static FILE *answers;
/* The arguments are evaluated once (they are often the call under test). */
#define ANSWER(...)                                                        \
    do {                                                                   \
        char a_[4096];                                                     \
        snprintf(a_, sizeof a_, __VA_ARGS__);                              \
        FILE *to_[2] = {stdout, answers};                                  \
        for (int i_ = 0; i_ < 2 && to_[i_] != NULL; i_++) {                \
            fprintf(to_[i_], "ANSWER %s rank=%u %s\n", role, me.rank, a_); \
            fflush(to_[i_]);                                               \
        }                                                                  \
    } while (0)

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void fence(void)
{
    pmix_info_t info;
    bool yes = true;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    CHECK_RC(PMIx_Fence(NULL, 0, &info, 1), PMIX_SUCCESS, "collecting fence");
    PMIX_INFO_DESTRUCT(&info);
}

static void put_str(const char *key, const char *val)
{
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, val, PMIX_STRING);
    CHECK_RC(PMIx_Put(PMIX_GLOBAL, key, &v), PMIX_SUCCESS, key);
    PMIX_VALUE_DESTRUCT(&v);
}

/* A Get of a key no rank ever puts, with a 1 s timeout, before the peer committed. */
static void get_timeout(void)
{
    pmix_proc_t peer;
    PMIX_LOAD_PROCID(&peer, me.nspace, (me.rank + 1) % 2);
    pmix_info_t info;
    int secs = 1;
    PMIX_INFO_LOAD(&info, PMIX_TIMEOUT, &secs, PMIX_INT);
    pmix_value_t *v = NULL;
    double t0 = now();
    pmix_status_t rc = PMIx_Get(&peer, "v41apis.never", &info, 1, &v);
    double took = now() - t0;
    ANSWER("get-timeout status=%d", rc);
    CHECK(rc == PMIX_ERR_TIMEOUT && took > 0.5 && took < 3.0,
          "Get with PMIX_TIMEOUT 1 s: status %d after %.2f s", rc, took);
    if (rc == PMIX_SUCCESS)
        PMIX_VALUE_RELEASE(v);
    PMIX_INFO_DESTRUCT(&info);
}

static void pubsub(void)
{
    char key[64];
    snprintf(key, sizeof key, "v41apis.pub%u", me.rank);
    pmix_info_t info;
    PMIX_INFO_LOAD(&info, key, "published", PMIX_STRING);
    ANSWER("publish status=%d", PMIx_Publish(&info, 1));
    PMIX_INFO_DESTRUCT(&info);
    fence();
    pmix_pdata_t pd;
    PMIX_PDATA_CONSTRUCT(&pd);
    snprintf(pd.key, sizeof pd.key, "v41apis.pub%u", (me.rank + 1) % 2);
    pmix_status_t rc = PMIx_Lookup(&pd, 1, NULL, 0);
    ANSWER("lookup status=%d value=%s", rc,
           rc == PMIX_SUCCESS && pd.value.type == PMIX_STRING ? pd.value.data.string : "-");
    PMIX_PDATA_DESTRUCT(&pd);
    fence();
    char *keys[2] = {key, NULL};
    ANSWER("unpublish status=%d", PMIx_Unpublish(keys, NULL, 0));
    fence();
    PMIX_PDATA_CONSTRUCT(&pd);
    snprintf(pd.key, sizeof pd.key, "v41apis.pub%u", (me.rank + 1) % 2);
    rc = PMIx_Lookup(&pd, 1, NULL, 0);
    ANSWER("lookup-after-unpublish status=%d", rc);
    PMIX_PDATA_DESTRUCT(&pd);
    fence();
}

/* One query: its status, then each result's key and what it says (a namespace list is
 * answered by whether it names ours). */
static void query(const char *what, const char *qualifier, const char *qval)
{
    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    pmix_status_t rcx;
    PMIX_ARGV_APPEND(rcx, q.keys, what);
    (void)rcx;
    if (qualifier != NULL) {
        PMIX_QUERY_QUALIFIERS_CREATE(&q, 1);
        PMIX_INFO_LOAD(&q.qualifiers[0], qualifier, qval, PMIX_STRING);
    }
    pmix_info_t *res = NULL;
    size_t n = 0;
    pmix_status_t rc = PMIx_Query_info(&q, 1, &res, &n);
    char data[2048] = "";
    for (size_t i = 0; i < n; i++) {
        char one[600];
        pmix_value_t *v = &res[i].value;
        if (v->type == PMIX_STRING)
            snprintf(one, sizeof one, " %s=names-ours:%d", res[i].key,
                     strstr(v->data.string, me.nspace) != NULL);
        else if (v->type == PMIX_UINT32)
            snprintf(one, sizeof one, " %s=%u", res[i].key, v->data.uint32);
        else if (v->type == PMIX_SIZE)
            snprintf(one, sizeof one, " %s=%zu", res[i].key, v->data.size);
        else
            snprintf(one, sizeof one, " %s:type%d", res[i].key, v->type);
        strncat(data, one, sizeof data - strlen(data) - 1);
    }
    ANSWER("query %s status=%d n=%zu%s", what, rc, n, data);
    if (res != NULL)
        PMIX_INFO_FREE(res, n);
    PMIX_QUERY_DESTRUCT(&q);
}

static void log_and_control(void)
{
    pmix_info_t data[2];
    char msg[96];
    snprintf(msg, sizeof msg, "v41apis log line of rank %u\n", me.rank);
    PMIX_INFO_LOAD(&data[0], PMIX_LOG_STDOUT, msg, PMIX_STRING);
    ANSWER("log stdout status=%d", PMIx_Log(&data[0], 1, NULL, 0));
    PMIX_INFO_LOAD(&data[1], PMIX_LOG_STDERR, msg, PMIX_STRING);
    ANSWER("log stderr status=%d", PMIx_Log(&data[1], 1, NULL, 0));
    PMIX_INFO_DESTRUCT(&data[0]);
    PMIX_INFO_DESTRUCT(&data[1]);

    pmix_proc_t all;
    PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
    pmix_info_t dir;
    int sig = 0;
    PMIX_INFO_LOAD(&dir, PMIX_JOB_CTRL_SIGNAL, &sig, PMIX_INT);
    pmix_info_t *res = NULL;
    size_t n = 0;
    pmix_status_t rc = PMIx_Job_control(&all, 1, &dir, 1, &res, &n);
    ANSWER("job-control signal-0 status=%d n=%zu", rc, n);
    if (res != NULL)
        PMIX_INFO_FREE(res, n);
    PMIX_INFO_DESTRUCT(&dir);
}

/* Our library's rules (not compared: OpenPMIx 4.2 has neither). */
static volatile int cb_done = 0;
static volatile pmix_status_t cb_inner = 0;
static void in_callback(pmix_status_t st, pmix_value_t *v, void *cbdata)
{
    (void)st;
    (void)v;
    (void)cbdata;
    pmix_value_t *val = NULL;
    cb_inner = PMIx_Get(&me, PMIX_JOB_SIZE, NULL, 0, &val);
    if (cb_inner == PMIX_SUCCESS)
        PMIX_VALUE_RELEASE(val);
    cb_done = 1;
}

static void our_rules(void)
{
    pmix_proc_t peer;
    PMIX_LOAD_PROCID(&peer, me.nspace, (me.rank + 1) % 2);
    CHECK_RC(PMIx_Get_nb(&peer, "v41apis.key", NULL, 0, in_callback, NULL), PMIX_SUCCESS,
             "Get_nb");
    for (int i = 0; i < 1000 && !cb_done; i++)
        usleep(10000);
    CHECK(cb_done, "Get_nb callback ran");
    CHECK_RC(cb_inner, PMIX_ERR_WOULD_BLOCK, "blocking Get from a callback");

    pmix_info_t st;
    bool yes = true;
    PMIX_INFO_LOAD(&st, PMIX_GET_STATIC_VALUES, &yes, PMIX_BOOL);
    pmix_value_t storage;
    PMIX_VALUE_CONSTRUCT(&storage);
    pmix_value_t *vp = &storage;
    char want[64];
    snprintf(want, sizeof want, "key-of-%u", peer.rank);
    CHECK_RC(PMIx_Get(&peer, "v41apis.key", &st, 1, &vp), PMIX_SUCCESS, "STATIC Get");
    CHECK(vp == &storage && storage.type == PMIX_STRING && storage.data.string != NULL &&
              strcmp(storage.data.string, want) == 0,
          "STATIC Get filled the caller's storage");
    PMIX_VALUE_DESTRUCT(&storage);
    PMIX_INFO_DESTRUCT(&st);
}

static int apis(void)
{
    /* Rank 1 commits, fences, then sleeps while rank 0's Get waits: a 4.2.2 server
     * answers a pending Get with NOT_FOUND at once when its target connects, commits or
     * fences without the key, so the target must do none of these meanwhile. */
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit");
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "fence");
    if (me.rank == 0)
        get_timeout();
    else
        sleep(2);
    char val[64];
    snprintf(val, sizeof val, "key-of-%u", me.rank);
    put_str("v41apis.key", val);
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit");
    fence();
    if (getenv("V41APIS_OURS") != NULL)
        our_rules();
    pubsub();
    query(PMIX_QUERY_NAMESPACES, NULL, NULL);
    query(PMIX_JOB_SIZE, PMIX_NSPACE, me.nspace);
    query(PMIX_QUERY_JOB_STATUS, PMIX_NSPACE, me.nspace);
    query(PMIX_QUERY_NUM_PSETS, NULL, NULL);
    log_and_control();
    fence();
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}

/* IOF and groups: what the server's host answers (ORTE serves neither). The status a
 * user sees is the call's, or the registration callback's when the call succeeded. */
static volatile int iof_reg_done = 0;
static volatile pmix_status_t iof_reg_status = PMIX_SUCCESS;
static volatile size_t iof_ref = 0;
static void iof_out(size_t iofhdlr, pmix_iof_channel_t channel, pmix_proc_t *source,
                    pmix_byte_object_t *payload, pmix_info_t info[], size_t ninfo)
{
    (void)iofhdlr; (void)channel; (void)source; (void)payload; (void)info; (void)ninfo;
}
static void iof_reg(pmix_status_t st, size_t ref, void *cbdata)
{
    (void)cbdata;
    iof_reg_status = st;
    iof_ref = ref;
    iof_reg_done = 1;
}

static int extras(void)
{
    pmix_proc_t all;
    PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
    pmix_status_t rc =
        PMIx_IOF_pull(&all, 1, NULL, 0, PMIX_FWD_STDOUT_CHANNEL, iof_out, iof_reg, NULL);
    if (rc == PMIX_SUCCESS) {
        for (int i = 0; i < 1000 && !iof_reg_done; i++)
            usleep(10000);
        CHECK(iof_reg_done, "IOF pull registration callback ran");
        rc = iof_reg_status;
    }
    ANSWER("iof-pull status=%d", rc);
    if (rc == PMIX_SUCCESS)
        ANSWER("iof-deregister status=%d", PMIx_IOF_deregister(iof_ref, NULL, 0, NULL, NULL));
    pmix_proc_t both[2];
    PMIX_LOAD_PROCID(&both[0], me.nspace, 0);
    PMIX_LOAD_PROCID(&both[1], me.nspace, 1);
    pmix_info_t *res = NULL;
    size_t n = 0;
    rc = PMIx_Group_construct("v41apis.grp", both, 2, NULL, 0, &res, &n);
    ANSWER("group-construct status=%d", rc);
    if (res != NULL)
        PMIX_INFO_FREE(res, n);
    if (rc == PMIX_SUCCESS)
        ANSWER("group-destruct status=%d", PMIx_Group_destruct("v41apis.grp", NULL, 0));
    fence();
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}

static int fence_timeout(void)
{
    pmix_info_t info;
    int secs = 1;
    PMIX_INFO_LOAD(&info, PMIX_TIMEOUT, &secs, PMIX_INT);
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "fence");
    if (me.rank == 0) {
        double t0 = now();
        pmix_status_t rc = PMIx_Fence(NULL, 0, &info, 1);
        double took = now() - t0;
        ANSWER("timed-fence status=%d", rc);
        CHECK(rc == PMIX_ERR_TIMEOUT && took > 0.5 && took < 3.0,
              "Fence with PMIX_TIMEOUT 1 s: status %d after %.2f s", rc, took);
    } else {
        sleep(2);
    }
    PMIX_INFO_DESTRUCT(&info);
    for (int i = 0; i < 2; i++) {
        double t0 = now();
        pmix_status_t rc = PMIx_Fence(NULL, 0, NULL, 0);
        double took = now() - t0;
        ANSWER("fence-after-timeout %d status=%d", i, rc);
        CHECK(took < 5.0, "fence %d after the timeout ends within 5 s (%.2f s)", i, took);
    }
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}

static int do_abort(void)
{
    fence();
    if (me.rank == 0) {
        /* mpirun may end this process before PMIx_Abort returns */
        ANSWER("abort calling");
        pmix_status_t rc = PMIx_Abort(3, "v41apis: rank 0 aborts", NULL, 0);
        printf("PMIx_Abort returned %d\n", rc);
        fflush(stdout);
        sleep(20);
    } else {
        PMIx_Fence(NULL, 0, NULL, 0);
    }
    CHECK(0, "still running after PMIx_Abort");
    CHECK_DONE();
}

static void connect_pair(const char *other, const char *what)
{
    pmix_proc_t both[2];
    PMIX_LOAD_PROCID(&both[0], me.nspace, PMIX_RANK_WILDCARD);
    PMIX_LOAD_PROCID(&both[1], other, PMIX_RANK_WILDCARD);
    if (strcmp(what, "connect") == 0)
        ANSWER("%s status=%d", what, PMIx_Connect(both, 2, NULL, 0));
    else
        ANSWER("%s status=%d", what, PMIx_Disconnect(both, 2, NULL, 0));
}

static int spawn(const char *self)
{
    pmix_app_t app;
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup(self);
    pmix_status_t rcx;
    PMIX_ARGV_APPEND(rcx, app.argv, self);
    PMIX_ARGV_APPEND(rcx, app.argv, "child");
    char e[4200];
    const char *vars[] = {"LD_LIBRARY_PATH", "V41CLIENT_LIB", "V41APIS_DIR", NULL};
    for (int i = 0; vars[i] != NULL; i++) {
        const char *v = getenv(vars[i]);
        snprintf(e, sizeof e, "%s=%s", vars[i], v ? v : "");
        PMIX_ARGV_APPEND(rcx, app.env, e);
    }
    /* ORTE gives a spawned job no PMIX_PARENT_ID: the child also learns it from here */
    snprintf(e, sizeof e, "V41APIS_PARENT=%s", me.nspace);
    PMIX_ARGV_APPEND(rcx, app.env, e);
    (void)rcx;
    app.maxprocs = 1;
    char child[PMIX_MAX_NSLEN + 1] = "";
    pmix_status_t rc = PMIx_Spawn(NULL, 0, &app, 1, child);
    ANSWER("spawn status=%d named-child=%d", rc, child[0] != '\0' && strcmp(child, me.nspace));
    PMIX_APP_DESTRUCT(&app);
    if (rc != PMIX_SUCCESS)
        CHECK_DONE();
    connect_pair(child, "connect");
    pmix_proc_t c0;
    PMIX_LOAD_PROCID(&c0, child, 0);
    pmix_value_t *v = NULL;
    rc = PMIx_Get(&c0, "v41apis.child", NULL, 0, &v);
    ANSWER("get-child-key status=%d value=%s", rc,
           rc == PMIX_SUCCESS && v->type == PMIX_STRING ? v->data.string : "-");
    if (rc == PMIX_SUCCESS)
        PMIX_VALUE_RELEASE(v);
    connect_pair(child, "disconnect");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}

static int as_child(void)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(&me, PMIX_PARENT_ID, NULL, 0, &v);
    char parent[PMIX_MAX_NSLEN + 1] = "";
    if (rc == PMIX_SUCCESS && v->type == PMIX_PROC) {
        PMIX_LOAD_NSPACE(parent, v->data.proc->nspace);
        ANSWER("parent-id status=%d rank=%u other-nspace=%d", rc, v->data.proc->rank,
               strcmp(parent, me.nspace) != 0);
    } else {
        ANSWER("parent-id status=%d type=%d", rc, rc == PMIX_SUCCESS ? v->type : -1);
    }
    if (rc == PMIX_SUCCESS)
        PMIX_VALUE_RELEASE(v);
    const char *penv = getenv("V41APIS_PARENT");
    if (parent[0] == '\0' && penv != NULL)
        PMIX_LOAD_NSPACE(parent, penv);
    put_str("v41apis.child", "from-the-child");
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "child Commit");
    if (parent[0] != '\0') {
        connect_pair(parent, "connect");
        connect_pair(parent, "disconnect");
    }
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "child PMIx_Finalize");
    CHECK_DONE();
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "apis";
    check_maps();
    if (getenv("V41APIS_DIR") != NULL) {
        char path[4200];
        snprintf(path, sizeof path, "%s/answers.%d", getenv("V41APIS_DIR"), (int)getpid());
        answers = fopen(path, "w");
    }
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    CHECK_RC(rc, PMIX_SUCCESS, "PMIx_Init");
    if (rc != PMIX_SUCCESS)
        CHECK_DONE();
    if (strcmp(mode, "abort") == 0)
        return do_abort();
    if (strcmp(mode, "spawn") == 0)
        return spawn(argv[0]);
    if (strcmp(mode, "extras") == 0)
        return extras();
    if (strcmp(mode, "fencetimeout") == 0)
        return fence_timeout();
    if (strcmp(mode, "child") == 0) {
        role = "child";
        return as_child();
    }
    return apis();
}
