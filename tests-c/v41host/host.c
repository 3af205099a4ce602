/* A small PMIx host built against Debian's OpenPMIx 4.2.2 headers and linked to its
 * libpmix.so.2, serving clients of OUR library (issue 16 item 6): they connect to
 * OpenPMIx's server over its tcp4 rendezvous and speak v41 to it.
 *
 *   host <nprocs> <client> [args...]
 *
 * PMIx_server_init with a module of its own (fence_nb, direct_modex, publish, lookup,
 * unpublish, client_connected/finalized, abort), registers namespace "v41host" of
 * <nprocs> ranks on this host, forks each rank with PMIx_server_setup_fork's
 * environment, waits for them and checks that every client exited 0, that each
 * connected and finalized through the host's callbacks, that the fences (all of them:
 * OpenPMIx's local-only shortcut is turned off) and a collecting one's data came
 * to the host with data, and that the published key was stored and looked up.
 * Prints ok/FAIL lines and "host.c: N checks, M failed". */
#include "../check.h"
#include <pmix.h>
#include <pmix_server.h>
#include <pthread.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int n_connected, n_finalized, n_fences, n_data_fences, n_published, n_looked_up;
static int n_aborts;

/* The published data: one key, its value and its publisher. */
#define MAXPUB 16
static struct {
    char key[PMIX_MAX_KEYLEN + 1];
    pmix_value_t value;
    pmix_proc_t owner;
} pubs[MAXPUB];
static int npubs;

static pmix_status_t connected(const pmix_proc_t *p, void *obj, pmix_op_cbfunc_t cb, void *cbd)
{
    (void) p; (void) obj; (void) cb; (void) cbd;
    pthread_mutex_lock(&mu);
    n_connected++;
    pthread_mutex_unlock(&mu);
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t finalized(const pmix_proc_t *p, void *obj, pmix_op_cbfunc_t cb, void *cbd)
{
    (void) p; (void) obj; (void) cb; (void) cbd;
    pthread_mutex_lock(&mu);
    n_finalized++;
    pthread_mutex_unlock(&mu);
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t aborted(const pmix_proc_t *p, void *obj, int status, const char msg[],
                             pmix_proc_t procs[], size_t nprocs, pmix_op_cbfunc_t cb, void *cbd)
{
    (void) obj; (void) procs; (void) nprocs; (void) cb; (void) cbd;
    printf("host: rank %u aborted with %d: %s\n", p->rank, status, msg ? msg : "");
    pthread_mutex_lock(&mu);
    n_aborts++;
    pthread_mutex_unlock(&mu);
    return PMIX_OPERATION_SUCCEEDED;
}

static void release_copy(void *cbdata)
{
    free(cbdata);
}

/* One host, one node: the collected data is this server's own blob; hand a copy back. */
static pmix_status_t fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                           size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cb,
                           void *cbd)
{
    (void) procs; (void) nprocs; (void) info; (void) ninfo;
    char *copy = NULL;
    if (ndata > 0) {
        copy = malloc(ndata);
        if (NULL == copy) return PMIX_ERR_NOMEM;
        memcpy(copy, data, ndata);
    }
    pthread_mutex_lock(&mu);
    n_fences++;
    if (ndata > 0) n_data_fences++;
    pthread_mutex_unlock(&mu);
    cb(PMIX_SUCCESS, copy, ndata, cbd, release_copy, copy);
    return PMIX_SUCCESS;
}

static pmix_status_t dmodex(const pmix_proc_t *p, const pmix_info_t info[], size_t ninfo,
                            pmix_modex_cbfunc_t cb, void *cbd)
{
    (void) p; (void) info; (void) ninfo; (void) cb; (void) cbd;
    return PMIX_ERR_NOT_SUPPORTED; /* every rank is local */
}

static pmix_status_t publish(const pmix_proc_t *p, const pmix_info_t info[], size_t ninfo,
                             pmix_op_cbfunc_t cb, void *cbd)
{
    pmix_status_t rc = PMIX_SUCCESS;
    pthread_mutex_lock(&mu);
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_INFO_IS_REQUIRED(&info[i]) || 0 == strncmp(info[i].key, "pmix.", 5)) {
            continue; /* directives (range, persistence) */
        }
        if (npubs == MAXPUB) {
            rc = PMIX_ERR_OUT_OF_RESOURCE;
            break;
        }
        snprintf(pubs[npubs].key, sizeof pubs[npubs].key, "%s", info[i].key);
        PMIx_Value_xfer(&pubs[npubs].value, &info[i].value);
        pubs[npubs].owner = *p;
        npubs++;
        n_published++;
    }
    pthread_mutex_unlock(&mu);
    cb(rc, cbd);
    return PMIX_SUCCESS;
}

static pmix_status_t lookup(const pmix_proc_t *p, char **keys, const pmix_info_t info[],
                            size_t ninfo, pmix_lookup_cbfunc_t cb, void *cbd)
{
    (void) p; (void) info; (void) ninfo;
    size_t n = 0;
    while (keys[n]) n++;
    pmix_pdata_t *out = NULL;
    PMIX_PDATA_CREATE(out, n);
    size_t found = 0;
    pthread_mutex_lock(&mu);
    for (size_t k = 0; k < n; k++) {
        for (int i = 0; i < npubs; i++) {
            if (0 == strcmp(pubs[i].key, keys[k])) {
                PMIX_PDATA_LOAD(&out[found], &pubs[i].owner, pubs[i].key, NULL, PMIX_UNDEF);
                PMIx_Value_xfer(&out[found].value, &pubs[i].value);
                found++;
                n_looked_up++;
                break;
            }
        }
    }
    pthread_mutex_unlock(&mu);
    cb(found ? PMIX_SUCCESS : PMIX_ERR_NOT_FOUND, out, found, cbd);
    PMIX_PDATA_FREE(out, n);
    return PMIX_SUCCESS;
}

static pmix_status_t unpublish(const pmix_proc_t *p, char **keys, const pmix_info_t info[],
                               size_t ninfo, pmix_op_cbfunc_t cb, void *cbd)
{
    (void) p; (void) info; (void) ninfo;
    pthread_mutex_lock(&mu);
    for (size_t k = 0; keys && keys[k]; k++) {
        for (int i = 0; i < npubs; i++) {
            if (0 == strcmp(pubs[i].key, keys[k])) {
                PMIX_VALUE_DESTRUCT(&pubs[i].value);
                pubs[i] = pubs[--npubs];
                break;
            }
        }
    }
    pthread_mutex_unlock(&mu);
    cb(PMIX_SUCCESS, cbd);
    return PMIX_SUCCESS;
}

static pmix_server_module_t module = {
    .client_connected = connected,
    .client_finalized = finalized,
    .abort = aborted,
    .fence_nb = fence,
    .direct_modex = dmodex,
    .publish = publish,
    .lookup = lookup,
    .unpublish = unpublish,
};

/* This process's environment plus what setup_fork adds, for one client. */
static char **client_env(const pmix_proc_t *p)
{
    size_t n = 0;
    while (environ[n]) n++;
    char **env = calloc(n + 1, sizeof(char *));
    for (size_t i = 0; i < n; i++) env[i] = strdup(environ[i]);
    CHECK_RC(PMIx_server_setup_fork(p, &env), PMIX_SUCCESS, "setup_fork");
    return env;
}

static void register_nspace(const char *nspace, uint32_t n)
{
    char host[256] = "", peers[1024] = "";
    gethostname(host, sizeof host - 1);
    for (uint32_t r = 0, len = 0; r < n && len + 12 < sizeof peers; r++) {
        len += (uint32_t) snprintf(peers + len, sizeof peers - len, r ? ",%u" : "%u", r);
    }
    char *nmap = NULL, *pmap = NULL;
    CHECK_RC(PMIx_generate_regex(host, &nmap), PMIX_SUCCESS, "generate_regex");
    CHECK_RC(PMIx_generate_ppn(peers, &pmap), PMIX_SUCCESS, "generate_ppn");
    uint32_t zero = 0;
    pmix_info_t info[8];
    PMIX_INFO_LOAD(&info[0], PMIX_JOB_SIZE, &n, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[1], PMIX_UNIV_SIZE, &n, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[2], PMIX_LOCAL_SIZE, &n, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[3], PMIX_LOCAL_PEERS, peers, PMIX_STRING);
    PMIX_INFO_LOAD(&info[4], PMIX_NODE_MAP, nmap, PMIX_STRING);
    PMIX_INFO_LOAD(&info[5], PMIX_PROC_MAP, pmap, PMIX_STRING);
    PMIX_INFO_LOAD(&info[6], PMIX_APPNUM, &zero, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[7], PMIX_HOSTNAME, host, PMIX_STRING);
    free(nmap);
    free(pmap);
    pmix_nspace_t ns;
    PMIX_LOAD_NSPACE(ns, nspace);
    pmix_status_t rc = PMIx_server_register_nspace(ns, (int) n, info, 8, NULL, NULL);
    CHECK(PMIX_SUCCESS == rc || PMIX_OPERATION_SUCCEEDED == rc, "register_nspace: %s",
          PMIx_Error_string(rc));
    for (int i = 0; i < 8; i++) PMIX_INFO_DESTRUCT(&info[i]);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s <nprocs> <client> [args...]\n", argv[0]);
        return 2;
    }
    uint32_t n = (uint32_t) atoi(argv[1]);
    CHECK(n >= 1 && n <= 64, "%u ranks", n);
    CHECK(0 == strncmp(PMIx_Get_version(), "OpenPMIx", 8), "serving on %s",
          PMIx_Get_version());
    pmix_proc_t me;
    /* OpenPMIx completes a fence of local procs only without its host unless told not
     * to: every fence then goes through fence_nb, as on a multi-node host. */
    setenv("PMIX_MCA_pmix_server_fence_localonly_opt", "0", 1);
    CHECK_RC(PMIx_server_init(&module, NULL, 0), PMIX_SUCCESS, "PMIx_server_init");
    register_nspace("v41host", n);
    pid_t pids[64];
    for (uint32_t r = 0; r < n; r++) {
        PMIX_LOAD_PROCID(&me, "v41host", r);
        pmix_status_t rc = PMIx_server_register_client(&me, getuid(), getgid(), NULL, NULL,
                                                       NULL);
        CHECK(PMIX_SUCCESS == rc || PMIX_OPERATION_SUCCEEDED == rc, "register_client: %s",
              PMIx_Error_string(rc));
        char **env = client_env(&me);
        pids[r] = fork();
        if (0 == pids[r]) {
            execve(argv[2], argv + 2, env);
            _exit(127);
        }
        for (char **e = env; *e; e++) free(*e);
        free(env);
    }
    int bad = 0;
    for (uint32_t r = 0; r < n; r++) {
        int st = 0;
        if (waitpid(pids[r], &st, 0) != pids[r] || !WIFEXITED(st) || 0 != WEXITSTATUS(st)) {
            printf("host: rank %u ended with status %#x\n", r, st);
            bad++;
        }
    }
    CHECK(0 == bad, "every client exited 0 (%d did not)", bad);
    pthread_mutex_lock(&mu);
    CHECK(n_connected == (int) n, "client_connected %d times", n_connected);
    CHECK(n_finalized == (int) n, "client_finalized %d times", n_finalized);
    CHECK(n_aborts == 0, "no abort");
    CHECK(n_fences >= 2, "fence_nb %d times", n_fences);
    CHECK(n_data_fences >= 1, "a collecting fence gave the host data (%d)", n_data_fences);
    CHECK(n_published == 1, "publish stored %d keys", n_published);
    CHECK(n_looked_up == (int) n - 1 || n == 1, "lookup found it %d times", n_looked_up);
    CHECK(npubs == 0, "unpublish removed it (%d left)", npubs);
    pthread_mutex_unlock(&mu);
    CHECK_RC(PMIx_server_finalize(), PMIX_SUCCESS, "PMIx_server_finalize");
    CHECK_DONE();
}
