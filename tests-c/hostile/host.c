/* host: a C host on the server API (PMIx_server_init) for the resource and uid tests
 * (issue 10, parts 2 and 5). It forks clients of itself; no pmixrun involved.
 *
 *   host waves W N   W waves of N short-lived clients, each wave a namespace of its own
 *                    (register, fork, fence, finalize, deregister): after the first wave
 *                    the host's descriptors and threads must not grow, nor its memory
 *                    beyond a small bound
 *   host uid         rank 0 is registered for another uid than the one it runs with: its
 *                    PMIx_Init is refused and the host never hears of it; rank 1, right
 *                    uid, is accepted
 *
 * Clients (the same binary): host client-wave N | host client-refused | host client-ok */
#define _GNU_SOURCE
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
#include "hostile/procfs.h"

extern char **environ;

static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static int n_connected, n_finalized;

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

/* ------------------------------------------------------------------ clients */

static int client_wave(void)
{
    pmix_proc_t me;
    pmix_value_t val;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf("FAIL client: PMIx_Init %d\n", rc);
        return 1;
    }
    uint32_t v = me.rank;
    PMIX_VALUE_LOAD(&val, &v, PMIX_UINT32);
    rc = PMIx_Put(PMIX_GLOBAL, "wave.rank", &val);
    if (rc == PMIX_SUCCESS) rc = PMIx_Commit();
    if (rc == PMIX_SUCCESS) rc = PMIx_Fence(NULL, 0, NULL, 0);
    pmix_status_t rc2 = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS || rc2 != PMIX_SUCCESS) {
        printf("FAIL client %s:%u: %d %d\n", me.nspace, me.rank, rc, rc2);
        return 1;
    }
    return 0;
}

static int client_refused(void)
{
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    CHECK(rc != PMIX_SUCCESS, "PMIx_Init of a client registered for another uid is refused (%d)",
          rc);
    CHECK(!PMIx_Initialized(), "not initialized after the refusal");
    if (rc == PMIX_SUCCESS) PMIx_Finalize(NULL, 0);
    CHECK_DONE();
}

static int client_ok(void)
{
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    CHECK_RC(rc, PMIX_SUCCESS, "PMIx_Init with the registered uid");
    if (rc == PMIX_SUCCESS) CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}

/* ------------------------------------------------------------------ host */

static const char *self_path;

/* Register namespace `ns` with n ranks (rank r registered for uids[r]) and start each
 * as `host <mode> n`; returns the number of clients that failed. */
static int run_job(const char *ns, int n, const uid_t *uids, const char *const *modes)
{
    pmix_nspace_t nsname;
    char host[256], *ranks = calloc((size_t)n, 12), *nmap = NULL, *pmap = NULL;
    pid_t *pids = calloc((size_t)n, sizeof *pids);
    int failed = 0;
    gethostname(host, sizeof host);
    for (int i = 0; i < n; i++) sprintf(ranks + strlen(ranks), i ? ",%d" : "%d", i);
    PMIx_generate_regex(host, &nmap);
    PMIx_generate_ppn(ranks, &pmap);
    pmix_info_t *info = PMIx_Info_create(3);
    uint32_t size = (uint32_t)n;
    PMIX_INFO_LOAD(&info[0], PMIX_JOB_SIZE, &size, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[1], PMIX_NODE_MAP, nmap, PMIX_STRING);
    PMIX_INFO_LOAD(&info[2], PMIX_PROC_MAP, pmap, PMIX_STRING);
    free(nmap);
    free(pmap);
    free(ranks);
    PMIX_LOAD_NSPACE(nsname, ns);
    pmix_status_t rc = PMIx_server_register_nspace(nsname, n, info, 3, NULL, NULL);
    PMIX_INFO_FREE(info, 3);
    if (rc != PMIX_SUCCESS) {
        printf("FAIL register_nspace %s: %d\n", ns, rc);
        free(pids);
        return n;
    }
    for (int i = 0; i < n; i++) {
        pmix_proc_t p;
        char **env = NULL;
        char nstr[16];
        PMIX_LOAD_PROCID(&p, ns, (pmix_rank_t)i);
        rc = PMIx_server_register_client(&p, uids[i], getgid(), NULL, NULL, NULL);
        for (char **e = environ; *e; e++) PMIx_Argv_append_nosize(&env, *e);
        if (rc == PMIX_SUCCESS) rc = PMIx_server_setup_fork(&p, &env);
        snprintf(nstr, sizeof nstr, "%d", n);
        pids[i] = rc == PMIX_SUCCESS ? fork() : -1;
        if (pids[i] == 0) {
            char *args[] = {(char *)self_path, (char *)modes[i], nstr, NULL};
            execve(self_path, args, env);
            _exit(127);
        }
        PMIx_Argv_free(env);
    }
    for (int i = 0; i < n; i++) {
        int st = 0;
        if (pids[i] <= 0 || waitpid(pids[i], &st, 0) != pids[i] || !WIFEXITED(st) ||
            WEXITSTATUS(st) != 0)
            failed++;
    }
    for (int i = 0; i < n; i++) {
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, ns, (pmix_rank_t)i);
        PMIx_server_deregister_client(&p, NULL, NULL);
    }
    PMIx_server_deregister_nspace(nsname, NULL, NULL);
    free(pids);
    return failed;
}

/* Wait (up to 5 s) for the host's threads to come back to `threads` and its descriptor
 * count to stop changing (the server closes a client's socket when it has read the
 * client's end, a moment after the client exited). */
static usage_t settle(long threads)
{
    usage_t u = usage_of(0), prev = u;
    for (int i = 0; i < 50; i++) {
        usleep(100000);
        u = usage_of(0);
        if (u.threads <= threads && u.fds == prev.fds) break;
        prev = u;
    }
    return u;
}

static int waves(int w, int n)
{
    uid_t *uids = calloc((size_t)n, sizeof *uids);
    const char **modes = calloc((size_t)n, sizeof *modes);
    for (int i = 0; i < n; i++) {
        uids[i] = getuid();
        modes[i] = "client-wave";
    }
    usage_t first = {0, 0, 0, 0}, u = {0, 0, 0, 0};
    int failed = 0;
    double t0 = 0;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    t0 = (double)ts.tv_sec + ts.tv_nsec / 1e9;
    for (int k = 0; k < w; k++) {
        char ns[64];
        snprintf(ns, sizeof ns, "hostile-wave-%d", k);
        failed += run_job(ns, n, uids, modes);
        u = settle(first.threads ? first.threads : 1000);
        char what[64];
        snprintf(what, sizeof what, "host after wave %d", k);
        print_usage(what, u);
        if (k == 0) first = u;
    }
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double dt = (double)ts.tv_sec + ts.tv_nsec / 1e9 - t0;
    CHECK(failed == 0, "%d waves of %d clients in %.1f s: %d clients failed", w, n, dt, failed);
    pthread_mutex_lock(&mtx);
    CHECK(n_connected == w * n && n_finalized == w * n, "host saw %d connects, %d finalizes",
          n_connected, n_finalized);
    pthread_mutex_unlock(&mtx);
    CHECK(u.fds <= first.fds, "host descriptors after the first wave %ld, after the last %ld",
          first.fds, u.fds);
    CHECK(u.threads == first.threads, "host threads after the first wave %ld, after the last %ld",
          first.threads, u.threads);
    CHECK(u.rss_kb - first.rss_kb < 4096,
          "host VmRSS after the first wave %ld KiB, after the last %ld KiB (limit +4 MiB)",
          first.rss_kb, u.rss_kb);
    free(uids);
    free(modes);
    return 0;
}

static int uid_case(void)
{
    uid_t uids[2] = {getuid() + 4242, getuid()};
    const char *modes[2] = {"client-refused", "client-ok"};
    int failed = run_job("hostile-uid", 2, uids, modes);
    CHECK(failed == 0, "both clients saw what they expected (%d failed)", failed);
    usleep(100000);
    pthread_mutex_lock(&mtx);
    CHECK(n_connected == 1, "the host heard of one connection only (%d)", n_connected);
    pthread_mutex_unlock(&mtx);
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (0 == strcmp(mode, "client-wave")) return client_wave();
    if (0 == strcmp(mode, "client-refused")) return client_refused();
    if (0 == strcmp(mode, "client-ok")) return client_ok();
    self_path = argv[0];

    pmix_server_module_t module;
    memset(&module, 0, sizeof module);
    module.client_connected = on_connected;
    module.client_finalized = on_finalized;
    pmix_status_t rc = PMIx_server_init(&module, NULL, 0);
    CHECK_RC(rc, PMIX_SUCCESS, "PMIx_server_init");
    if (rc != PMIX_SUCCESS) CHECK_DONE();
    if (0 == strcmp(mode, "waves") && argc > 3)
        waves(atoi(argv[2]), atoi(argv[3]));
    else if (0 == strcmp(mode, "uid"))
        uid_case();
    else
        CHECK(0, "usage: host waves W N | host uid");
    CHECK_RC(PMIx_server_finalize(), PMIX_SUCCESS, "PMIx_server_finalize");
    CHECK_DONE();
}
