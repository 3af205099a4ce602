/* hostcb: a C host whose callbacks never arrive. PMIX_TIMEOUT bounds what the clients
 * wait for, and the server goes on working. No pmixrun involved.
 *
 * Job "hostcb-job" of 2 ranks: rank 0 on this host ("nodeA"), rank 1 on "nodeB" (never
 * started), so every fence over the job and every Get of rank 1's data goes to the host.
 *   - fence_nb: the first call is never completed (the host keeps the callback); later
 *     calls first complete that stale one (the server must ignore it), then their own;
 *   - direct_modex: never completed.
 * The client (rank 0, forked by the host) checks:
 *   - PMIx_Fence with PMIX_TIMEOUT=1 returns PMIX_ERR_TIMEOUT within 10 s;
 *   - a second fence (no timeout) succeeds, with the stale completion arriving first;
 *   - PMIx_Get of a key of rank 1 with PMIX_TIMEOUT=1 returns PMIX_ERR_TIMEOUT;
 *   - a third fence, with a timeout that does not expire, succeeds.
 * Run: hostcb */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "check.h"
#include "host.h"

#define NSPACE "hostcb-job"

static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static int n_fence, n_dmodex, n_stale_completed;
static pmix_modex_cbfunc_t stale_cb;
static void *stale_cbd;

static void release_buf(void *p) { free(p); }

static pmix_status_t on_fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                              size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cb,
                              void *cbd)
{
    (void)procs;
    (void)nprocs;
    (void)info;
    (void)ninfo;
    pthread_mutex_lock(&mtx);
    int call = ++n_fence;
    pmix_modex_cbfunc_t old = NULL;
    void *oldd = NULL;
    if (1 == call) {
        stale_cb = cb; /* never answered in time */
        stale_cbd = cbd;
    } else if (stale_cb) {
        old = stale_cb;
        oldd = stale_cbd;
        stale_cb = NULL;
        n_stale_completed++;
    }
    pthread_mutex_unlock(&mtx);
    if (1 == call) {
        free(data);
        return PMIX_SUCCESS;
    }
    if (old) {
        /* The first fence's answer, long after its client gave up: ignored. */
        old(PMIX_SUCCESS, NULL, 0, oldd, NULL, NULL);
    }
    /* A single server: everybody's contribution is ours. */
    cb(PMIX_SUCCESS, data, ndata, cbd, release_buf, data);
    return PMIX_SUCCESS;
}

static pmix_status_t on_dmodex(const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
                               pmix_modex_cbfunc_t cb, void *cbd)
{
    (void)proc;
    (void)info;
    (void)ninfo;
    (void)cb;
    (void)cbd;
    pthread_mutex_lock(&mtx);
    n_dmodex++;
    pthread_mutex_unlock(&mtx);
    return PMIX_SUCCESS; /* and never calls back */
}

static pmix_status_t on_finalized(const pmix_proc_t *p, void *obj, pmix_op_cbfunc_t cb, void *cbd)
{
    (void)p;
    (void)obj;
    if (cb) {
        cb(PMIX_SUCCESS, cbd);
    }
    return PMIX_SUCCESS;
}

/* ------------------------------------------------------------------ client */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int client(void)
{
    pmix_proc_t me, peer;
    pmix_info_t tmo;
    int one = 1, ten = 10;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    CHECK_RC(rc, PMIX_SUCCESS, "client PMIx_Init");
    if (rc != PMIX_SUCCESS) {
        CHECK_DONE();
    }
    PMIX_INFO_LOAD(&tmo, PMIX_TIMEOUT, &one, PMIX_INT);
    double t0 = now_s();
    rc = PMIx_Fence(NULL, 0, &tmo, 1);
    double took = now_s() - t0;
    CHECK_RC(rc, PMIX_ERR_TIMEOUT, "fence whose host never answers, PMIX_TIMEOUT=1");
    CHECK(took >= 0.9 && took < 10.0, "it gave up after %.2f s", took);

    t0 = now_s();
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "the next fence works");
    CHECK(now_s() - t0 < 10.0, "in %.2f s", now_s() - t0);

    PMIX_LOAD_PROCID(&peer, me.nspace, 1);
    pmix_value_t *v = NULL;
    t0 = now_s();
    rc = PMIx_Get(&peer, "hostcb.key", &tmo, 1, &v);
    took = now_s() - t0;
    CHECK_RC(rc, PMIX_ERR_TIMEOUT, "Get whose direct modex the host never answers");
    CHECK(took >= 0.9 && took < 10.0, "it gave up after %.2f s", took);
    if (v) {
        PMIX_VALUE_RELEASE(v);
    }
    PMIX_INFO_DESTRUCT(&tmo);

    PMIX_INFO_LOAD(&tmo, PMIX_TIMEOUT, &ten, PMIX_INT);
    CHECK_RC(PMIx_Fence(NULL, 0, &tmo, 1), PMIX_SUCCESS, "a fence within its timeout");
    PMIX_INFO_DESTRUCT(&tmo);
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "Finalize");
    CHECK_DONE();
}

/* ------------------------------------------------------------------ host */

int main(int argc, char **argv)
{
    if (argc > 1 && 0 == strcmp(argv[1], "client")) {
        return client();
    }
    pmix_server_module_t module;
    memset(&module, 0, sizeof module);
    module.client_finalized = on_finalized;
    module.fence_nb = on_fence;
    module.direct_modex = on_dmodex;
    pmix_info_t sinfo;
    PMIX_INFO_LOAD(&sinfo, PMIX_HOSTNAME, "nodeA", PMIX_STRING);
    pmix_status_t rc = PMIx_server_init(&module, &sinfo, 1);
    CHECK_RC(rc, PMIX_SUCCESS, "PMIx_server_init");
    PMIX_INFO_DESTRUCT(&sinfo);
    if (rc != PMIX_SUCCESS) {
        CHECK_DONE();
    }
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
    CHECK_RC(PMIx_server_register_nspace(ns, 1, info, 3, NULL, NULL), PMIX_SUCCESS,
             "register_nspace");
    PMIX_INFO_FREE(info, 3);

    fflush(stdout);
    char *args[] = {argv[0], "client", NULL};
    pid_t pid = host_start_client(NSPACE, 0, args);
    CHECK(0 == host_wait_clients(&pid, 1), "the client passed");
    pthread_mutex_lock(&mtx);
    CHECK(3 == n_fence, "fence upcalls: %d", n_fence);
    CHECK(1 == n_stale_completed, "the stale completion was delivered (%d)", n_stale_completed);
    CHECK(1 == n_dmodex, "direct-modex upcalls: %d", n_dmodex);
    pthread_mutex_unlock(&mtx);
    PMIx_server_deregister_nspace(ns, NULL, NULL);
    CHECK_RC(PMIx_server_finalize(), PMIX_SUCCESS, "PMIx_server_finalize");
    CHECK_DONE();
}
