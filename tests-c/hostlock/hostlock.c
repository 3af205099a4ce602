/* hostlock: a C host that completes every upcall while holding its own non-recursive
 * lock, which its release functions and its callbacks take too (as Slurm's collective
 * lock is taken by its fence completion and by the release function it passes). The
 * library must never call the host back from inside the host's own call: the lock is a
 * PTHREAD_MUTEX_ERRORCHECK one, so such a re-entry shows as EDEADLK (counted, reported,
 * a failure) instead of a hang.
 *
 *   hostlock inline   each upcall takes the lock and completes from inside the upcall
 *   hostlock thread   each upcall hands its completion to a host thread, which takes the
 *                     lock and completes while holding it
 *
 * Job "hostlock-job" of 2 ranks: rank 0 here ("nodeA"), rank 1 on "nodeB" (never
 * started), so every fence and every Get of rank 1's data goes to the host. The client
 * (rank 0) runs a collecting fence, a Get of rank 1 (direct modex), publish / lookup /
 * unpublish, spawn, connect / disconnect beyond this server, a host query, log, job
 * control, allocation, get / validate credential, a plain fence and finalize. The host
 * itself calls, while holding its lock, register_nspace, register_client,
 * setup_application, setup_local_support, dmodex_request, IOF_deliver, IOF_push,
 * deregister_client and deregister_nspace with callbacks that take the lock. */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>
#include <pmix_tool.h>

#include "check.h"

#define NSPACE "hostlock-job"
#define OTHER "hostlock-elsewhere"

extern char **environ;

static pthread_mutex_t hl;
static bool threaded;
static int relocks, n_release, n_given, n_hostcb, n_upcalls;

static int bump(int *c) { return __atomic_add_fetch(c, 1, __ATOMIC_SEQ_CST); }
static int peek(int *c) { return __atomic_load_n(c, __ATOMIC_SEQ_CST); }

/* Take the host lock; false (and a recorded failure) when this thread already holds it. */
static bool host_lock(const char *who)
{
    int rc = pthread_mutex_lock(&hl);
    if (EDEADLK == rc) {
        bump(&relocks);
        fprintf(stderr, "hostlock: RELOCK: %s re-entered the host while it held its lock\n", who);
        return false;
    }
    return 0 == rc;
}

static void host_unlock(bool held)
{
    if (held) {
        pthread_mutex_unlock(&hl);
    }
}

/* A release function or callback of the host: takes the lock, as a real host does. */
static void locked_touch(const char *who)
{
    host_unlock(host_lock(who));
}

static void rel_free(void *p)
{
    locked_touch("a release function");
    bump(&n_release);
    free(p);
}

static void rel_info(void *p)
{
    locked_touch("a release function");
    bump(&n_release);
    PMIx_Info_free((pmix_info_t *)p, 1);
}

/* ------------------------------------------------------------ completions */

enum kind { J_MODEX, J_OP, J_LOOKUP, J_SPAWN, J_INFO, J_CRED, J_VALID };

typedef struct job {
    struct job *next;
    enum kind kind;
    pmix_status_t status;
    void *cbd;
    pmix_modex_cbfunc_t modex;
    pmix_op_cbfunc_t op;
    pmix_lookup_cbfunc_t lookup;
    pmix_spawn_cbfunc_t spawn;
    pmix_info_cbfunc_t info;
    pmix_credential_cbfunc_t cred;
    pmix_validation_cbfunc_t valid;
    char *data;
    size_t ndata;
    const char *key;
} job_t;

static void run_info(job_t *j)
{
    pmix_info_t *res = PMIx_Info_create(1);
    int v = 5;
    PMIX_INFO_LOAD(&res[0], j->key, &v, PMIX_INT);
    bump(&n_given);
    j->info(j->status, res, 1, j->cbd, rel_info, res);
}

static void run_job(job_t *j)
{
    switch (j->kind) {
    case J_MODEX:
        bump(&n_given);
        j->modex(j->status, j->data, j->ndata, j->cbd, rel_free, j->data);
        break;
    case J_OP:
        j->op(j->status, j->cbd);
        break;
    case J_LOOKUP: {
        pmix_pdata_t d;
        PMIX_PDATA_CONSTRUCT(&d);
        PMIX_LOAD_PROCID(&d.proc, NSPACE, 0);
        PMIX_LOAD_KEY(d.key, "hostlock.key");
        int v = 77;
        PMIx_Value_load(&d.value, &v, PMIX_INT);
        j->lookup(PMIX_SUCCESS, &d, 1, j->cbd);
        PMIX_PDATA_DESTRUCT(&d);
        break;
    }
    case J_SPAWN:
        j->spawn(PMIX_SUCCESS, "hostlock-spawned", j->cbd);
        break;
    case J_INFO:
        run_info(j);
        break;
    case J_CRED: {
        pmix_byte_object_t bo = {.bytes = "hostlock-cred", .size = 13};
        j->cred(PMIX_SUCCESS, &bo, NULL, 0, j->cbd);
        break;
    }
    case J_VALID:
        j->valid(PMIX_SUCCESS, NULL, 0, j->cbd);
        break;
    }
    free(j);
}

static pthread_mutex_t qm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t qc = PTHREAD_COND_INITIALIZER;
static job_t *queue;
static bool stopping;

static void *worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&qm);
    while (!stopping || queue) {
        if (!queue) {
            pthread_cond_wait(&qc, &qm);
            continue;
        }
        job_t *j = queue;
        queue = j->next;
        pthread_mutex_unlock(&qm);
        bool held = host_lock("a completion on the host's thread");
        run_job(j);
        host_unlock(held);
        pthread_mutex_lock(&qm);
    }
    pthread_mutex_unlock(&qm);
    return NULL;
}

/* Complete `j` as the mode says: inside the upcall under the lock, or on the host's
 * thread under the lock. */
static pmix_status_t finish(job_t *j, const char *what)
{
    bump(&n_upcalls);
    if (!threaded) {
        bool held = host_lock(what);
        run_job(j);
        host_unlock(held);
        return PMIX_SUCCESS;
    }
    j->next = NULL;
    pthread_mutex_lock(&qm);
    job_t **t = &queue;
    while (*t) {
        t = &(*t)->next;
    }
    *t = j;
    pthread_cond_signal(&qc);
    pthread_mutex_unlock(&qm);
    return PMIX_SUCCESS;
}

static job_t *job(enum kind k, pmix_status_t st, void *cbd)
{
    job_t *j = calloc(1, sizeof *j);
    j->kind = k;
    j->status = st;
    j->cbd = cbd;
    return j;
}

static pmix_status_t op_job(pmix_op_cbfunc_t cb, void *cbd, const char *what)
{
    job_t *j = job(J_OP, PMIX_SUCCESS, cbd);
    j->op = cb;
    return finish(j, what);
}

/* ------------------------------------------------------------ upcalls */

static pmix_status_t h_fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                             size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cb,
                             void *cbd)
{
    (void)procs;
    (void)nprocs;
    (void)info;
    (void)ninfo;
    /* One server: everybody's contribution is ours; the blob is ours to free. */
    job_t *j = job(J_MODEX, PMIX_SUCCESS, cbd);
    j->modex = cb;
    j->data = data;
    j->ndata = ndata;
    return finish(j, "fence_nb's completion");
}

static pmix_status_t h_dmodex(const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
                              pmix_modex_cbfunc_t cb, void *cbd)
{
    (void)proc;
    (void)info;
    (void)ninfo;
    /* nodeB has nothing for us; the answer still comes with a buffer to release. */
    job_t *j = job(J_MODEX, PMIX_ERR_NOT_FOUND, cbd);
    j->modex = cb;
    j->data = strdup("nothing");
    j->ndata = 8;
    return finish(j, "direct_modex's completion");
}

static pmix_status_t h_finalized(const pmix_proc_t *p, void *obj, pmix_op_cbfunc_t cb, void *cbd)
{
    (void)p;
    (void)obj;
    return op_job(cb, cbd, "client_finalized's completion");
}

static pmix_status_t h_publish(const pmix_proc_t *p, const pmix_info_t info[], size_t ninfo,
                               pmix_op_cbfunc_t cb, void *cbd)
{
    (void)p;
    (void)info;
    (void)ninfo;
    return op_job(cb, cbd, "publish's completion");
}

static pmix_status_t h_lookup(const pmix_proc_t *p, char **keys, const pmix_info_t info[],
                              size_t ninfo, pmix_lookup_cbfunc_t cb, void *cbd)
{
    (void)p;
    (void)keys;
    (void)info;
    (void)ninfo;
    job_t *j = job(J_LOOKUP, PMIX_SUCCESS, cbd);
    j->lookup = cb;
    return finish(j, "lookup's completion");
}

static pmix_status_t h_unpublish(const pmix_proc_t *p, char **keys, const pmix_info_t info[],
                                 size_t ninfo, pmix_op_cbfunc_t cb, void *cbd)
{
    (void)p;
    (void)keys;
    (void)info;
    (void)ninfo;
    return op_job(cb, cbd, "unpublish's completion");
}

static pmix_status_t h_spawn(const pmix_proc_t *p, const pmix_info_t job_info[], size_t ninfo,
                             const pmix_app_t apps[], size_t napps, pmix_spawn_cbfunc_t cb,
                             void *cbd)
{
    (void)p;
    (void)job_info;
    (void)ninfo;
    (void)apps;
    (void)napps;
    job_t *j = job(J_SPAWN, PMIX_SUCCESS, cbd);
    j->spawn = cb;
    return finish(j, "spawn's completion");
}

static pmix_status_t h_connect(const pmix_proc_t procs[], size_t nprocs,
                               const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cb,
                               void *cbd)
{
    (void)procs;
    (void)nprocs;
    (void)info;
    (void)ninfo;
    return op_job(cb, cbd, "connect's completion");
}

static pmix_status_t h_disconnect(const pmix_proc_t procs[], size_t nprocs,
                                  const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cb,
                                  void *cbd)
{
    (void)procs;
    (void)nprocs;
    (void)info;
    (void)ninfo;
    return op_job(cb, cbd, "disconnect's completion");
}

static pmix_status_t info_job(pmix_info_cbfunc_t cb, void *cbd, const char *key, const char *what)
{
    job_t *j = job(J_INFO, PMIX_SUCCESS, cbd);
    j->info = cb;
    j->key = key;
    return finish(j, what);
}

static pmix_status_t h_query(pmix_proc_t *p, pmix_query_t *queries, size_t nqueries,
                             pmix_info_cbfunc_t cb, void *cbd)
{
    (void)p;
    (void)queries;
    (void)nqueries;
    return info_job(cb, cbd, "hostlock.query", "query's completion");
}

static void h_log(const pmix_proc_t *p, const pmix_info_t data[], size_t ndata,
                  const pmix_info_t dirs[], size_t ndirs, pmix_op_cbfunc_t cb, void *cbd)
{
    (void)p;
    (void)data;
    (void)ndata;
    (void)dirs;
    (void)ndirs;
    op_job(cb, cbd, "log's completion");
}

static pmix_status_t h_jctrl(const pmix_proc_t *p, const pmix_proc_t targets[], size_t ntargets,
                             const pmix_info_t dirs[], size_t ndirs, pmix_info_cbfunc_t cb,
                             void *cbd)
{
    (void)p;
    (void)targets;
    (void)ntargets;
    (void)dirs;
    (void)ndirs;
    return info_job(cb, cbd, "hostlock.jctrl", "job_control's completion");
}

static pmix_status_t h_alloc(const pmix_proc_t *p, pmix_alloc_directive_t d,
                             const pmix_info_t data[], size_t ndata, pmix_info_cbfunc_t cb,
                             void *cbd)
{
    (void)p;
    (void)d;
    (void)data;
    (void)ndata;
    return info_job(cb, cbd, "hostlock.alloc", "allocate's completion");
}

static pmix_status_t h_getcred(const pmix_proc_t *p, const pmix_info_t dirs[], size_t ndirs,
                               pmix_credential_cbfunc_t cb, void *cbd)
{
    (void)p;
    (void)dirs;
    (void)ndirs;
    job_t *j = job(J_CRED, PMIX_SUCCESS, cbd);
    j->cred = cb;
    return finish(j, "get_credential's completion");
}

static pmix_status_t h_validcred(const pmix_proc_t *p, const pmix_byte_object_t *cred,
                                 const pmix_info_t dirs[], size_t ndirs,
                                 pmix_validation_cbfunc_t cb, void *cbd)
{
    (void)p;
    (void)cred;
    (void)dirs;
    (void)ndirs;
    job_t *j = job(J_VALID, PMIX_SUCCESS, cbd);
    j->valid = cb;
    return finish(j, "validate_credential's completion");
}

static pmix_status_t h_stdin(const pmix_proc_t *source, const pmix_proc_t targets[],
                             size_t ntargets, const pmix_info_t dirs[], size_t ndirs,
                             const pmix_byte_object_t *bo, pmix_op_cbfunc_t cb, void *cbd)
{
    (void)source;
    (void)targets;
    (void)ntargets;
    (void)dirs;
    (void)ndirs;
    (void)bo;
    return op_job(cb, cbd, "push_stdin's completion");
}

/* ------------------------------------------------------------ client */

/* Whether `key` is among `n` infos, or among the PMIX_QUERY_RESULTS they carry. */
static bool has_key(const pmix_info_t *res, size_t n, const char *key)
{
    for (size_t i = 0; res && i < n; i++) {
        if (PMIX_CHECK_KEY(&res[i], key)) {
            return true;
        }
        if (PMIX_DATA_ARRAY == res[i].value.type && res[i].value.data.darray &&
            PMIX_INFO == res[i].value.data.darray->type &&
            has_key(res[i].value.data.darray->array, res[i].value.data.darray->size, key)) {
            return true;
        }
    }
    return false;
}

static int client(void)
{
    pmix_proc_t me, peer;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    CHECK_RC(rc, PMIX_SUCCESS, "client PMIx_Init");
    if (rc != PMIX_SUCCESS) {
        CHECK_DONE();
    }
    pmix_value_t val, *v = NULL;
    int x = 42;
    PMIX_VALUE_LOAD(&val, &x, PMIX_INT);
    CHECK_RC(PMIx_Put(PMIX_GLOBAL, "hostlock.mine", &val), PMIX_SUCCESS, "Put");
    PMIX_VALUE_DESTRUCT(&val);
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit");
    pmix_info_t i1;
    bool t = true;
    PMIX_INFO_LOAD(&i1, PMIX_COLLECT_DATA, &t, PMIX_BOOL);
    CHECK_RC(PMIx_Fence(NULL, 0, &i1, 1), PMIX_SUCCESS, "Fence collecting data (host)");
    PMIX_INFO_DESTRUCT(&i1);
    CHECK_RC(PMIx_Get(&me, "hostlock.mine", NULL, 0, &v), PMIX_SUCCESS, "Get own key");
    if (v) {
        CHECK(PMIX_INT == v->type && 42 == v->data.integer, "own value back");
        PMIX_VALUE_RELEASE(v);
        v = NULL;
    }
    PMIX_LOAD_PROCID(&peer, me.nspace, 1);
    int five = 5;
    PMIX_INFO_LOAD(&i1, PMIX_TIMEOUT, &five, PMIX_INT);
    CHECK_RC(PMIx_Get(&peer, "hostlock.theirs", &i1, 1, &v), PMIX_ERR_NOT_FOUND,
             "Get of rank 1 (direct modex, the host has nothing)");
    PMIX_INFO_DESTRUCT(&i1);

    PMIX_INFO_LOAD(&i1, "hostlock.key", &x, PMIX_INT);
    CHECK_RC(PMIx_Publish(&i1, 1), PMIX_SUCCESS, "Publish");
    PMIX_INFO_DESTRUCT(&i1);
    pmix_pdata_t d;
    PMIX_PDATA_CONSTRUCT(&d);
    PMIX_LOAD_KEY(d.key, "hostlock.key");
    CHECK_RC(PMIx_Lookup(&d, 1, NULL, 0), PMIX_SUCCESS, "Lookup");
    CHECK(PMIX_INT == d.value.type && 77 == d.value.data.integer, "the host's lookup value");
    PMIX_PDATA_DESTRUCT(&d);
    char *keys[] = {"hostlock.key", NULL};
    CHECK_RC(PMIx_Unpublish(keys, NULL, 0), PMIX_SUCCESS, "Unpublish");

    pmix_app_t app;
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup("hostlock-child");
    app.maxprocs = 1;
    char ns[PMIX_MAX_NSLEN + 1] = "";
    CHECK_RC(PMIx_Spawn(NULL, 0, &app, 1, ns), PMIX_SUCCESS, "Spawn");
    CHECK(0 == strcmp(ns, "hostlock-spawned"), "spawned namespace '%s'", ns);
    PMIX_APP_DESTRUCT(&app);

    pmix_proc_t two[2];
    PMIX_LOAD_PROCID(&two[0], me.nspace, me.rank);
    PMIX_LOAD_PROCID(&two[1], OTHER, PMIX_RANK_WILDCARD);
    CHECK_RC(PMIx_Connect(two, 2, NULL, 0), PMIX_SUCCESS, "Connect beyond this server");
    CHECK_RC(PMIx_Disconnect(two, 2, NULL, 0), PMIX_SUCCESS, "Disconnect");

    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    PMIx_Argv_append_nosize(&q.keys, "hostlock.query");
    pmix_info_t *res = NULL;
    size_t nres = 0;
    CHECK_RC(PMIx_Query_info(&q, 1, &res, &nres), PMIX_SUCCESS, "Query of a host key");
    CHECK(has_key(res, nres, "hostlock.query"), "the host's query answer (%zu infos)", nres);
    PMIX_INFO_FREE(res, nres);
    PMIX_QUERY_DESTRUCT(&q);

    PMIX_INFO_LOAD(&i1, PMIX_LOG_STDERR, "hostlock log line", PMIX_STRING);
    CHECK_RC(PMIx_Log(&i1, 1, NULL, 0), PMIX_SUCCESS, "Log");
    PMIX_INFO_DESTRUCT(&i1);

    PMIX_INFO_LOAD(&i1, PMIX_JOB_CTRL_KILL, &t, PMIX_BOOL);
    CHECK_RC(PMIx_Job_control(two, 2, &i1, 1, &res, &nres), PMIX_SUCCESS, "Job_control");
    CHECK(1 == nres && PMIX_CHECK_KEY(&res[0], "hostlock.jctrl"), "the host's job control answer");
    PMIX_INFO_FREE(res, nres);
    PMIX_INFO_DESTRUCT(&i1);

    uint64_t nodes = 1;
    PMIX_INFO_LOAD(&i1, PMIX_ALLOC_NUM_NODES, &nodes, PMIX_UINT64);
    CHECK_RC(PMIx_Allocation_request(PMIX_ALLOC_EXTEND, &i1, 1, &res, &nres), PMIX_SUCCESS,
             "Allocation_request");
    CHECK(1 == nres && PMIX_CHECK_KEY(&res[0], "hostlock.alloc"), "the host's allocation answer");
    PMIX_INFO_FREE(res, nres);
    PMIX_INFO_DESTRUCT(&i1);

    pmix_byte_object_t cred;
    PMIX_BYTE_OBJECT_CONSTRUCT(&cred);
    CHECK_RC(PMIx_Get_credential(NULL, 0, &cred), PMIX_SUCCESS, "Get_credential");
    CHECK(13 == cred.size && cred.bytes && 0 == memcmp(cred.bytes, "hostlock-cred", 13),
          "the host's credential");
    res = NULL;
    nres = 0;
    CHECK_RC(PMIx_Validate_credential(&cred, NULL, 0, &res, &nres), PMIX_SUCCESS,
             "Validate_credential");
    PMIX_INFO_FREE(res, nres);
    PMIX_BYTE_OBJECT_DESTRUCT(&cred);

    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "plain Fence (host)");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "Finalize");
    CHECK_DONE();
}

/* ------------------------------------------------------------ host */

static void host_opcb(pmix_status_t st, void *cbd)
{
    locked_touch((const char *)cbd);
    if (PMIX_SUCCESS != st) {
        fprintf(stderr, "hostlock: %s completed with %d\n", (const char *)cbd, st);
    }
    bump(&n_hostcb);
}

static void setup_app_cb(pmix_status_t st, pmix_info_t info[], size_t ninfo, void *provided,
                         pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)info;
    (void)ninfo;
    locked_touch("setup_application's callback");
    if (PMIX_SUCCESS != st) {
        fprintf(stderr, "hostlock: setup_application completed with %d\n", st);
    }
    (void)provided;
    bump(&n_hostcb);
    if (cbfunc) {
        cbfunc(PMIX_SUCCESS, cbdata);
    }
}

static void dmodex_resp(pmix_status_t st, char *data, size_t sz, void *cbd)
{
    (void)data;
    (void)cbd;
    locked_touch("dmodex_request's callback");
    if (PMIX_SUCCESS != st || 0 == sz) {
        fprintf(stderr, "hostlock: dmodex_request answered %d with %zu bytes\n", st, sz);
    }
    bump(&n_hostcb);
}

/* Wait (without the lock) until `n_hostcb` reaches `want`. */
static bool wait_hostcb(int want)
{
    for (int i = 0; i < 2000 && peek(&n_hostcb) < want; i++) {
        usleep(5000);
    }
    return peek(&n_hostcb) >= want;
}

static void register_job(void)
{
    char *nmap = NULL, *pmap = NULL;
    CHECK_RC(PMIx_generate_regex("nodeA,nodeB", &nmap), PMIX_SUCCESS, "generate_regex");
    CHECK_RC(PMIx_generate_ppn("0;1", &pmap), PMIX_SUCCESS, "generate_ppn");
    pmix_info_t *info = PMIx_Info_create(3);
    uint32_t size = 2;
    PMIX_INFO_LOAD(&info[0], PMIX_JOB_SIZE, &size, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[1], PMIX_NODE_MAP, nmap, PMIX_STRING);
    PMIX_INFO_LOAD(&info[2], PMIX_PROC_MAP, pmap, PMIX_STRING);
    free(nmap);
    free(pmap);
    pmix_nspace_t ns;
    PMIX_LOAD_NSPACE(ns, NSPACE);
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, NSPACE, 0);
    bool held = host_lock("the host's main thread");
    CHECK_RC(PMIx_server_register_nspace(ns, 1, info, 3, host_opcb, "register_nspace's callback"),
             PMIX_SUCCESS, "register_nspace with a callback, under the lock");
    CHECK_RC(PMIx_server_register_client(&p, getuid(), getgid(), NULL, host_opcb,
                                         "register_client's callback"),
             PMIX_SUCCESS, "register_client with a callback, under the lock");
    CHECK_RC(PMIx_server_setup_application(ns, NULL, 0, setup_app_cb, NULL), PMIX_SUCCESS,
             "setup_application, under the lock");
    CHECK_RC(PMIx_server_setup_local_support(ns, NULL, 0, host_opcb,
                                             "setup_local_support's callback"),
             PMIX_SUCCESS, "setup_local_support, under the lock");
    host_unlock(held);
    CHECK(wait_hostcb(4), "the 4 registration callbacks came (%d)", peek(&n_hostcb));
    PMIX_INFO_FREE(info, 3);
}

static pid_t start_client(char *const args[])
{
    pmix_proc_t p;
    char **env = NULL;
    PMIX_LOAD_PROCID(&p, NSPACE, 0);
    for (char **e = environ; *e; e++) {
        PMIx_Argv_append_nosize(&env, *e);
    }
    CHECK_RC(PMIx_server_setup_fork(&p, &env), PMIX_SUCCESS, "setup_fork");
    fflush(stdout);
    pid_t pid = fork();
    if (0 == pid) {
        execve(args[0], args, env);
        _exit(127);
    }
    PMIx_Argv_free(env);
    return pid;
}

/* After the client: the host's own calls whose callbacks take the lock. */
static void host_calls(void)
{
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, NSPACE, 0);
    int base = peek(&n_hostcb);
    bool held = host_lock("the host's main thread");
    CHECK_RC(PMIx_server_dmodex_request(&p, dmodex_resp, NULL), PMIX_SUCCESS,
             "dmodex_request, under the lock");
    pmix_byte_object_t bo = {.bytes = "out\n", .size = 4};
    pmix_info_t quiet;
    bool f = false;
    PMIX_INFO_LOAD(&quiet, PMIX_IOF_LOCAL_OUTPUT, &f, PMIX_BOOL);
    CHECK_RC(PMIx_server_IOF_deliver(&p, PMIX_FWD_STDOUT_CHANNEL, &bo, &quiet, 1, host_opcb,
                                     "IOF_deliver's callback"),
             PMIX_SUCCESS, "IOF_deliver, under the lock");
    PMIX_INFO_DESTRUCT(&quiet);
    pmix_byte_object_t in = {.bytes = "in\n", .size = 3};
    CHECK_RC(PMIx_IOF_push(&p, 1, &in, NULL, 0, host_opcb, "IOF_push's callback"), PMIX_SUCCESS,
             "the server's own IOF_push (through push_stdin), under the lock");
    host_unlock(held);
    CHECK(wait_hostcb(base + 3), "dmodex_request, IOF_deliver and IOF_push called back (%d)",
          peek(&n_hostcb) - base);
    pmix_nspace_t ns;
    PMIX_LOAD_NSPACE(ns, NSPACE);
    held = host_lock("the host's main thread");
    PMIx_server_deregister_client(&p, host_opcb, "deregister_client's callback");
    PMIx_server_deregister_nspace(ns, host_opcb, "deregister_nspace's callback");
    host_unlock(held);
    CHECK(wait_hostcb(base + 5), "both deregistrations called back (%d)", peek(&n_hostcb) - base);
}

static void set_module(pmix_server_module_t *m)
{
    memset(m, 0, sizeof *m);
    m->client_finalized = h_finalized;
    m->fence_nb = h_fence;
    m->direct_modex = h_dmodex;
    m->publish = h_publish;
    m->lookup = h_lookup;
    m->unpublish = h_unpublish;
    m->spawn = h_spawn;
    m->connect = h_connect;
    m->disconnect = h_disconnect;
    m->query = h_query;
    m->log = h_log;
    m->job_control = h_jctrl;
    m->allocate = h_alloc;
    m->get_credential = h_getcred;
    m->validate_credential = h_validcred;
    m->push_stdin = h_stdin;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "inline";
    if (argc > 2 && 0 == strcmp(argv[2], "client")) {
        return client();
    }
    threaded = 0 == strcmp(mode, "thread");
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
    pthread_mutex_init(&hl, &a);
    pthread_t w;
    if (threaded) {
        pthread_create(&w, NULL, worker, NULL);
    }
    pmix_server_module_t module;
    set_module(&module);
    pmix_info_t sinfo;
    PMIX_INFO_LOAD(&sinfo, PMIX_HOSTNAME, "nodeA", PMIX_STRING);
    pmix_status_t rc = PMIx_server_init(&module, &sinfo, 1);
    CHECK_RC(rc, PMIX_SUCCESS, "PMIx_server_init");
    PMIX_INFO_DESTRUCT(&sinfo);
    if (rc != PMIX_SUCCESS) {
        CHECK_DONE();
    }
    register_job();
    char *args[] = {argv[0], (char *)mode, "client", NULL};
    pid_t pid = start_client(args);
    int st = 0;
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && 0 == WEXITSTATUS(st),
          "the client passed");
    host_calls();
    CHECK(peek(&n_upcalls) >= 16, "upcalls completed under the lock: %d", peek(&n_upcalls));
    CHECK(peek(&n_release) == peek(&n_given), "every release function ran (%d of %d)",
          peek(&n_release), peek(&n_given));
    CHECK_RC(PMIx_server_finalize(), PMIX_SUCCESS, "PMIx_server_finalize");
    if (threaded) {
        pthread_mutex_lock(&qm);
        stopping = true;
        pthread_cond_signal(&qc);
        pthread_mutex_unlock(&qm);
        pthread_join(w, NULL);
    }
    CHECK(0 == peek(&relocks), "the library never re-entered the host under its lock (%d)",
          peek(&relocks));
    CHECK_DONE();
}
