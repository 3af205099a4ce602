/* A minimal C host for the server API, written for pmix-rs: PMIx_server_init with a
 * module, PMIx_generate_regex/ppn, register_nspace (job info, maps, per-proc data),
 * register_client, setup_fork, then fork+exec N clients of itself ("client" mode) that
 * run Init/Put/Commit/Fence/Get/Finalize. No pmixrun involved.
 *
 *   simphost basic N   all clients finalize; the host sees N connects and N finalizes
 *   simphost lost  2   rank 1 exits without finalizing; rank 0's fence fails at once
 *   simphost abort 2   rank 1 calls PMIx_Abort; the host's abort upcall sees it */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "check.h"

/* CHECK_RC evaluates its first argument twice; calls go through this instead. */
#define CHECK_CALL(call, want, what)                                        \
    do {                                                                    \
        pmix_status_t call_rc_ = (call);                                    \
        CHECK_RC(call_rc_, want, what);                                     \
    } while (0)

#define NSPACE "simphost-job"

extern char **environ;

static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static int n_connected, n_finalized, n_fence, n_abort, abort_status;

static pmix_status_t on_connected(const pmix_proc_t *p, void *obj, pmix_op_cbfunc_t cb, void *cbd)
{
    (void)p; (void)obj; (void)cb; (void)cbd;
    pthread_mutex_lock(&mtx); n_connected++; pthread_mutex_unlock(&mtx);
    return PMIX_SUCCESS;
}

static pmix_status_t on_finalized(const pmix_proc_t *p, void *obj, pmix_op_cbfunc_t cb, void *cbd)
{
    (void)p; (void)obj;
    pthread_mutex_lock(&mtx); n_finalized++; pthread_mutex_unlock(&mtx);
    if (cb) cb(PMIX_SUCCESS, cbd);
    return PMIX_SUCCESS;
}

static pmix_status_t on_abort(const pmix_proc_t *p, void *obj, int status, const char *msg,
                              pmix_proc_t procs[], size_t nprocs, pmix_op_cbfunc_t cb, void *cbd)
{
    (void)p; (void)obj; (void)msg; (void)procs; (void)nprocs; (void)cb; (void)cbd;
    pthread_mutex_lock(&mtx); n_abort++; abort_status = status; pthread_mutex_unlock(&mtx);
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t on_fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                              size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cb, void *cbd)
{
    (void)procs; (void)nprocs; (void)info; (void)ninfo; (void)data; (void)ndata; (void)cb; (void)cbd;
    pthread_mutex_lock(&mtx); n_fence++; pthread_mutex_unlock(&mtx);
    return PMIX_ERR_NOT_SUPPORTED;
}

/* ------------------------------------------------------------------ client mode */

static int fence_done_status = 1;
static volatile int fence_done = 0;
static void fence_cb(pmix_status_t st, void *cbd) { (void)cbd; fence_done_status = st; fence_done = 1; }

/* Progress-thread rule: a blocking call made inside a callback returns WOULD_BLOCK. */
static volatile int get_calls = 0;
static pmix_status_t get_cb_status = 1, inner_get = 1, inner_fence = 1;
static void get_cb(pmix_status_t st, pmix_value_t *v, void *cbd)
{
    pmix_value_t *x = NULL;
    (void)v;
    get_cb_status = st;
    inner_get = PMIx_Get((const pmix_proc_t *)cbd, "test.rank", NULL, 0, &x);
    inner_fence = PMIx_Fence(NULL, 0, NULL, 0);
    get_calls++;
}

static int client(const char *scenario, int n)
{
    pmix_proc_t me, peer, wild;
    pmix_value_t val, *v = NULL;
    pmix_info_t info;
    bool t = true;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    CHECK_RC(rc, PMIX_SUCCESS, "client PMIx_Init");
    if (rc != PMIX_SUCCESS) CHECK_DONE();
    CHECK(strcmp(me.nspace, NSPACE) == 0, "rank %u: nspace %s", me.rank, me.nspace);

    if (0 == strcmp(scenario, "lost")) {
        if (me.rank == 1) _exit(0);             /* gone without PMIx_Finalize */
        rc = PMIx_Fence(NULL, 0, NULL, 0);
        CHECK(rc != PMIX_SUCCESS, "fence with a vanished participant fails (%d)", rc);
        PMIx_Finalize(NULL, 0);
        CHECK_DONE();
    }
    if (0 == strcmp(scenario, "abort")) {
        if (me.rank == 1) {
            rc = PMIx_Abort(42, "test abort", NULL, 0);
            CHECK_RC(rc, PMIX_SUCCESS, "PMIx_Abort accepted by the host");
        }
        PMIx_Finalize(NULL, 0);
        CHECK_DONE();
    }

    PMIX_VALUE_LOAD(&val, &me.rank, PMIX_UINT32);
    CHECK_CALL(PMIx_Put(PMIX_GLOBAL, "test.rank", &val), PMIX_SUCCESS, "Put");
    CHECK_CALL(PMIx_Commit(), PMIX_SUCCESS, "Commit");
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &t, PMIX_BOOL);
    CHECK_CALL(PMIx_Fence(NULL, 0, &info, 1), PMIX_SUCCESS, "collecting Fence");

    PMIX_LOAD_PROCID(&peer, me.nspace, (me.rank + 1) % n);
    rc = PMIx_Get(&peer, "test.rank", NULL, 0, &v);
    CHECK(rc == PMIX_SUCCESS && v && v->type == PMIX_UINT32 && v->data.uint32 == peer.rank,
          "rank %u reads peer %u's key", me.rank, peer.rank);
    if (v) { PMIX_VALUE_RELEASE(v); v = NULL; }

    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v);
    CHECK(rc == PMIX_SUCCESS && v && v->type == PMIX_UINT32 && (int)v->data.uint32 == n, "JOB_SIZE");
    if (v) { PMIX_VALUE_RELEASE(v); v = NULL; }
    rc = PMIx_Get(&wild, "test.custom", NULL, 0, &v);
    CHECK(rc == PMIX_SUCCESS && v && v->type == PMIX_INT16 && v->data.int16 == -7,
          "host's custom job key keeps its type");
    if (v) { PMIX_VALUE_RELEASE(v); v = NULL; }
    rc = PMIx_Get(&wild, PMIX_LOCAL_PEERS, NULL, 0, &v);
    CHECK(rc == PMIX_SUCCESS && v && v->type == PMIX_STRING && v->data.string &&
          strncmp(v->data.string, "0,1", 3) == 0, "LOCAL_PEERS derived from the maps: %s",
          (v && v->type == PMIX_STRING) ? v->data.string : "?");
    if (v) { PMIX_VALUE_RELEASE(v); v = NULL; }
    rc = PMIx_Get(&peer, PMIX_LOCAL_RANK, NULL, 0, &v);
    CHECK(rc == PMIX_SUCCESS && v && v->type == PMIX_UINT16 && v->data.uint16 == peer.rank,
          "peer LOCAL_RANK from PMIX_PROC_DATA");
    if (v) { PMIX_VALUE_RELEASE(v); v = NULL; }
    rc = PMIx_Get(&peer, "test.dbl", NULL, 0, &v);
    CHECK(rc == PMIX_SUCCESS && v && v->type == PMIX_DOUBLE && v->data.dval == 0.5 + peer.rank,
          "per-proc custom key from PMIX_PROC_DATA");
    if (v) { PMIX_VALUE_RELEASE(v); v = NULL; }
    {
        /* PMIX_GET_POINTER_VALUES: a library-owned value, the same one while it is unchanged. */
        pmix_info_t dir;
        pmix_value_t *p1 = NULL, *p2 = NULL, st, *sp = &st;
        bool yes = true;
        PMIX_INFO_LOAD(&dir, PMIX_GET_POINTER_VALUES, &yes, PMIX_BOOL);
        rc = PMIx_Get(&peer, "test.rank", &dir, 1, &p1);
        CHECK(rc == PMIX_SUCCESS && p1 && p1->type == PMIX_UINT32 && p1->data.uint32 == peer.rank,
              "POINTER_VALUES Get");
        rc = PMIx_Get(&peer, "test.rank", &dir, 1, &p2);
        CHECK(rc == PMIX_SUCCESS && p1 == p2, "POINTER_VALUES returns the same pointer");
        PMIX_INFO_DESTRUCT(&dir);
        /* PMIX_GET_STATIC_VALUES: caller storage, reached through *val. */
        PMIX_INFO_LOAD(&dir, PMIX_GET_STATIC_VALUES, &yes, PMIX_BOOL);
        PMIX_VALUE_CONSTRUCT(&st);
        rc = PMIx_Get(&peer, "test.rank", &dir, 1, &sp);
        CHECK(rc == PMIX_SUCCESS && sp == &st && st.type == PMIX_UINT32 &&
                  st.data.uint32 == peer.rank,
              "STATIC_VALUES Get fills caller storage");
        PMIX_VALUE_DESTRUCT(&st);
        rc = PMIx_Get(&peer, "test.rank", &dir, 1, NULL);
        CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "STATIC_VALUES with NULL storage");
        PMIX_INFO_DESTRUCT(&dir);
    }
    {
        pmix_proc_t self_q;
        PMIX_LOAD_PROCID(&self_q, me.nspace, PMIX_RANK_INVALID);
        rc = PMIx_Get(&self_q, PMIX_RANK, NULL, 0, &v);
        CHECK(rc == PMIX_SUCCESS && v && v->type == PMIX_PROC_RANK && v->data.rank == me.rank,
              "PMIX_RANK with {own ns, INVALID}");
        if (v) { PMIX_VALUE_RELEASE(v); v = NULL; }
    }
    {
        char longkey[600];
        memset(longkey, 'k', sizeof longkey - 1);
        longkey[sizeof longkey - 1] = 0;
        CHECK_CALL(PMIx_Get(&peer, longkey, NULL, 0, &v), PMIX_ERR_BAD_PARAM, "over-length key");
        CHECK_CALL(PMIx_Fence(NULL, 2, NULL, 0), PMIX_ERR_BAD_PARAM, "NULL procs with nprocs > 0");
        CHECK_CALL(PMIx_Get_nb(&peer, "test.rank", NULL, 0, NULL, NULL), PMIX_ERR_BAD_PARAM,
                 "Get_nb with NULL cbfunc");
    }
    rc = PMIx_Get_nb(&peer, "test.rank", NULL, 0, get_cb, &peer);
    CHECK_RC(rc, PMIX_SUCCESS, "Get_nb accepted");
    for (int i = 0; i < 10000 && !get_calls; i++) usleep(1000);
    usleep(50000);
    CHECK(get_calls == 1 && get_cb_status == PMIX_SUCCESS, "Get_nb callback ran once (%d)", get_calls);
    CHECK_RC(inner_get, PMIX_ERR_WOULD_BLOCK, "blocking Get inside a callback");
    CHECK_RC(inner_fence, PMIX_ERR_WOULD_BLOCK, "blocking Fence inside a callback");
    rc = PMIx_Fence_nb(NULL, 0, NULL, 0, NULL, NULL);
    CHECK_RC(rc, PMIX_SUCCESS, "Fence_nb with NULL cbfunc blocks and returns the result");
    rc = PMIx_Fence_nb(NULL, 0, NULL, 0, fence_cb, NULL);
    CHECK_RC(rc, PMIX_SUCCESS, "Fence_nb accepted");
    for (int i = 0; i < 10000 && !fence_done; i++) usleep(1000);
    CHECK(fence_done && fence_done_status == PMIX_SUCCESS, "Fence_nb callback ran with success");

    /* CHECK_RC evaluates its first argument twice: keep calls with side effects out of it. */
    rc = PMIx_Finalize(NULL, 0);
    CHECK_RC(rc, PMIX_SUCCESS, "Finalize");
    CHECK(!PMIx_Initialized(), "not initialized after Finalize");
    /* Init/Finalize again, twice nested. */
    rc = PMIx_Init(&me, NULL, 0);
    CHECK_RC(rc, PMIX_SUCCESS, "Init again");
    rc = PMIx_Init(&me, NULL, 0);
    CHECK_RC(rc, PMIX_SUCCESS, "nested Init");
    rc = PMIx_Finalize(NULL, 0);
    CHECK_RC(rc, PMIX_SUCCESS, "inner Finalize");
    CHECK(PMIx_Initialized(), "still initialized after the inner Finalize");
    rc = PMIx_Finalize(NULL, 0);
    CHECK_RC(rc, PMIX_SUCCESS, "outer Finalize");
    CHECK(!PMIx_Initialized(), "not initialized after the outer Finalize");
    CHECK_DONE();
}

/* ------------------------------------------------------------------ host mode */

static pmix_info_t *proc_data(int rank, int n)
{
    pmix_data_array_t *da;
    pmix_info_t *items, *out;
    uint16_t lr = (uint16_t)rank;
    pmix_rank_t r = (pmix_rank_t)rank;
    double d = 0.5 + rank;
    (void)n;
    PMIX_DATA_ARRAY_CREATE(da, 3, PMIX_INFO);
    items = (pmix_info_t *)da->array;
    PMIX_INFO_LOAD(&items[0], PMIX_RANK, &r, PMIX_PROC_RANK);
    PMIX_INFO_LOAD(&items[1], PMIX_LOCAL_RANK, &lr, PMIX_UINT16);
    PMIX_INFO_LOAD(&items[2], "test.dbl", &d, PMIX_DOUBLE);
    out = PMIx_Info_create(1);
    PMIX_INFO_LOAD(out, PMIX_PROC_DATA, da, PMIX_DATA_ARRAY);
    PMIX_DATA_ARRAY_FREE(da);
    return out;
}

int main(int argc, char **argv)
{
    const char *scenario = argc > 1 ? argv[1] : "basic";
    int n = argc > 2 ? atoi(argv[2]) : 4;
    if (argc > 3 && 0 == strcmp(argv[3], "client")) return client(scenario, n);

    pmix_server_module_t module;
    memset(&module, 0, sizeof module);
    module.client_connected = on_connected;
    module.client_finalized = on_finalized;
    module.abort = on_abort;
    module.fence_nb = on_fence;
    CHECK_CALL(PMIx_server_init(&module, NULL, 0), PMIX_SUCCESS, "PMIx_server_init");

    char host[256], ranks[1024] = "", *nmap = NULL, *pmap = NULL;
    gethostname(host, sizeof host);
    for (int i = 0; i < n; i++) {
        char b[16];
        snprintf(b, sizeof b, i ? ",%d" : "%d", i);
        strcat(ranks, b);
    }
    CHECK_CALL(PMIx_generate_regex(host, &nmap), PMIX_SUCCESS, "generate_regex");
    CHECK_CALL(PMIx_generate_ppn(ranks, &pmap), PMIX_SUCCESS, "generate_ppn");

    size_t ninfo = 4 + (size_t)n;
    pmix_info_t *info = PMIx_Info_create(ninfo);
    uint32_t size = (uint32_t)n;
    int16_t custom = -7;
    PMIX_INFO_LOAD(&info[0], PMIX_JOB_SIZE, &size, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[1], PMIX_NODE_MAP, nmap, PMIX_STRING);
    PMIX_INFO_LOAD(&info[2], PMIX_PROC_MAP, pmap, PMIX_STRING);
    PMIX_INFO_LOAD(&info[3], "test.custom", &custom, PMIX_INT16);
    for (int i = 0; i < n; i++) {
        pmix_info_t *pd = proc_data(i, n);
        PMIx_Info_xfer(&info[4 + i], pd);
        PMIX_INFO_FREE(pd, 1);
    }
    free(nmap);
    free(pmap);
    pmix_nspace_t nsname;
    PMIX_LOAD_NSPACE(nsname, NSPACE);
    CHECK_CALL(PMIx_server_register_nspace(nsname, n, info, ninfo, NULL, NULL), PMIX_SUCCESS,
             "register_nspace");
    PMIX_INFO_FREE(info, ninfo);

    pid_t pids[64];
    for (int i = 0; i < n && i < 64; i++) {
        pmix_proc_t p;
        char **env = NULL;
        PMIX_LOAD_PROCID(&p, NSPACE, (pmix_rank_t)i);
        CHECK_CALL(PMIx_server_register_client(&p, getuid(), getgid(), NULL, NULL, NULL),
                 PMIX_SUCCESS, "register_client");
        for (char **e = environ; *e; e++) PMIx_Argv_append_nosize(&env, *e);
        CHECK_CALL(PMIx_server_setup_fork(&p, &env), PMIX_SUCCESS, "setup_fork");
        pids[i] = fork();
        if (pids[i] == 0) {
            char *args[] = {argv[0], (char *)scenario, argv[2] ? argv[2] : "4", "client", NULL};
            execve(argv[0], args, env);
            _exit(127);
        }
        PMIx_Argv_free(env);
    }
    int failed = 0;
    for (int i = 0; i < n; i++) {
        int st = 0;
        waitpid(pids[i], &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) failed++;
    }
    CHECK(failed == 0, "%d of %d clients failed", failed, n);
    usleep(200000);
    pthread_mutex_lock(&mtx);
    CHECK(n_connected == (0 == strcmp(scenario, "basic") ? 2 * n : n),
          "client_connected upcalls: %d", n_connected);
    if (0 == strcmp(scenario, "basic"))
        CHECK(n_finalized == 2 * n, "client_finalized upcalls: %d", n_finalized);
    if (0 == strcmp(scenario, "lost"))
        CHECK(n_finalized == 1, "only rank 0 finalized: %d", n_finalized);
    if (0 == strcmp(scenario, "abort"))
        CHECK(n_abort == 1 && abort_status == 42, "abort upcall: %d (status %d)", n_abort, abort_status);
    CHECK(n_fence == 0, "an all-local fence never reaches the host (%d)", n_fence);
    pthread_mutex_unlock(&mtx);
    PMIx_server_deregister_nspace(nsname, NULL, NULL);
    CHECK_CALL(PMIx_server_finalize(), PMIX_SUCCESS, "PMIx_server_finalize");
    CHECK_DONE();
}
