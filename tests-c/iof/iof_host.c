/* iof_host: output forwarding through a C host's module (the path of Open MPI's mpirun),
 * without pmixrun. The host forks one client of itself.
 *
 *   iof_host host   the module has iof_pull and push_stdin. The host delivers output with
 *                   PMIx_server_IOF_deliver before the client pulls (cached, then
 *                   replayed to it) and after (live, with an end-of-stream marker); the
 *                   client's pull and deregistration reach iof_pull (PMIX_IOF_STOP on the
 *                   second), its push reaches push_stdin with its source, targets and
 *                   bytes; nothing arrives after deregistration; the host's own pull (a
 *                   server process without PMIx_Init) gets its chunks through a handler;
 *                   a delivery is written to the host's stderr unless
 *                   PMIX_IOF_LOCAL_OUTPUT is false; bad arguments get clear statuses
 *   iof_host null   iof_pull and push_stdin are NULL: the client's pull and push get
 *                   PMIX_ERR_NOT_SUPPORTED, while delivering (and the host's own pull)
 *                   still work
 *
 * Sources: rank 0 is the client; ranks 1, 2, 5, 6 stand for processes elsewhere whose
 * output the host relays; rank 7's output is for the host's own pull only. */
#include <fcntl.h>
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

#define NSPACE "iofhost-job"
#define WAIT_S 30

extern char **environ;

static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cnd = PTHREAD_COND_INITIALIZER;

/* Wait (bounded) until *flag >= n. */
static bool wait_int(volatile int *flag, int n)
{
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += WAIT_S;
    pthread_mutex_lock(&mtx);
    while (*flag < n)
        if (pthread_cond_timedwait(&cnd, &mtx, &dl) != 0) break;
    bool ok = *flag >= n;
    pthread_mutex_unlock(&mtx);
    return ok;
}

static void bump(volatile int *x)
{
    pthread_mutex_lock(&mtx);
    (*x)++;
    pthread_cond_broadcast(&cnd);
    pthread_mutex_unlock(&mtx);
}

/* ------------------------------------------------------------------ host side */

static volatile int n_pull, n_stop, n_push, n_opdone;
static int pull_nprocs, pull_channels, push_ntargets, push_src_rank = -1;
static pmix_rank_t push_target = 99;
static char push_bytes[64];

static pmix_status_t h_finalized(const pmix_proc_t *p, void *obj, pmix_op_cbfunc_t cb, void *cbd)
{
    (void)p;
    (void)obj;
    if (cb) cb(PMIX_SUCCESS, cbd);
    return PMIX_SUCCESS;
}

static pmix_status_t h_iof_pull(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t dirs[],
                                size_t ndirs, pmix_iof_channel_t channels, pmix_op_cbfunc_t cb,
                                void *cbd)
{
    (void)procs;
    bool stop = false;
    for (size_t i = 0; i < ndirs; i++)
        if (PMIX_CHECK_KEY(&dirs[i], "pmix.iof.stop")) stop = PMIX_INFO_TRUE(&dirs[i]);
    pthread_mutex_lock(&mtx);
    if (!stop) {
        pull_nprocs = (int)nprocs;
        pull_channels = channels;
    }
    pthread_mutex_unlock(&mtx);
    if (stop) {
        bump(&n_stop);
        return PMIX_OPERATION_SUCCEEDED; /* done at once: no callback */
    }
    bump(&n_pull);
    cb(PMIX_SUCCESS, cbd); /* answered from inside the upcall */
    return PMIX_SUCCESS;
}

static pmix_status_t h_push(const pmix_proc_t *source, const pmix_proc_t targets[], size_t ntargets,
                            const pmix_info_t dirs[], size_t ndirs, const pmix_byte_object_t *bo,
                            pmix_op_cbfunc_t cb, void *cbd)
{
    (void)dirs;
    (void)ndirs;
    pthread_mutex_lock(&mtx);
    push_src_rank = (int)source->rank;
    push_ntargets = (int)ntargets;
    if (ntargets) push_target = targets[0].rank;
    if (bo && bo->bytes && bo->size < sizeof push_bytes) memcpy(push_bytes, bo->bytes, bo->size);
    pthread_mutex_unlock(&mtx);
    bump(&n_push);
    cb(PMIX_SUCCESS, cbd);
    return PMIX_SUCCESS;
}

static void op_done(pmix_status_t st, void *cbd)
{
    *(pmix_status_t *)cbd = st;
    bump(&n_opdone);
}

/* Deliver `text` from `rank` on `ch` (blocking), not written locally. */
static pmix_status_t deliver(int rank, pmix_iof_channel_t ch, const char *text)
{
    pmix_proc_t src;
    pmix_info_t quiet;
    bool no = false;
    PMIX_LOAD_PROCID(&src, NSPACE, (pmix_rank_t)rank);
    PMIX_INFO_LOAD(&quiet, PMIX_IOF_LOCAL_OUTPUT, &no, PMIX_BOOL);
    pmix_byte_object_t bo = {.bytes = (char *)text, .size = strlen(text)};
    pmix_status_t rc = PMIx_server_IOF_deliver(&src, ch, &bo, &quiet, 1, NULL, NULL);
    PMIX_INFO_DESTRUCT(&quiet);
    return rc;
}

static char host_got[256];
static volatile int host_chunks;
static void host_handler(size_t id, pmix_iof_channel_t channel, pmix_proc_t *source,
                         pmix_byte_object_t *payload, pmix_info_t info[], size_t ninfo)
{
    (void)id;
    (void)channel;
    (void)info;
    (void)ninfo;
    pthread_mutex_lock(&mtx);
    if (source->rank == 7 && payload->size && strlen(host_got) + payload->size < sizeof host_got)
        strncat(host_got, payload->bytes, payload->size);
    pthread_mutex_unlock(&mtx);
    bump(&host_chunks);
}

/* ------------------------------------------------------------------ client side */

struct got {
    char text[256];
    int chunks, completes;
};
static struct got by_src[8];
static volatile int c_chunks;
static int c_bad;

static void c_handler(size_t id, pmix_iof_channel_t channel, pmix_proc_t *source,
                      pmix_byte_object_t *payload, pmix_info_t info[], size_t ninfo)
{
    (void)id;
    (void)channel;
    pthread_mutex_lock(&mtx);
    if (source->rank < 8 && 0 == strcmp(source->nspace, NSPACE)) {
        struct got *g = &by_src[source->rank];
        g->chunks++;
        if (payload->size && strlen(g->text) + payload->size < sizeof g->text)
            strncat(g->text, payload->bytes, payload->size);
        for (size_t i = 0; i < ninfo; i++)
            if (PMIX_CHECK_KEY(&info[i], PMIX_IOF_COMPLETE) && PMIX_INFO_TRUE(&info[i]) &&
                payload->size == 0)
                g->completes++;
    } else {
        c_bad++;
    }
    pthread_mutex_unlock(&mtx);
    bump(&c_chunks);
}

static volatile int c_regs;
static size_t c_reg_id;
static pmix_status_t c_reg_st = 1;
static void c_reg(pmix_status_t st, size_t id, void *cbd)
{
    (void)cbd;
    pthread_mutex_lock(&mtx);
    c_reg_st = st;
    c_reg_id = id;
    pthread_mutex_unlock(&mtx);
    bump(&c_regs);
}

/* Wait (bounded) until source `rank` has sent `text` (or, with text NULL, its end of
 * stream). */
static bool wait_text(int rank, const char *text)
{
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += WAIT_S;
    pthread_mutex_lock(&mtx);
    bool ok;
    for (;;) {
        ok = text ? strstr(by_src[rank].text, text) != NULL : by_src[rank].completes > 0;
        if (ok || pthread_cond_timedwait(&cnd, &mtx, &dl) != 0) break;
    }
    if (!ok) ok = text ? strstr(by_src[rank].text, text) != NULL : by_src[rank].completes > 0;
    pthread_mutex_unlock(&mtx);
    return ok;
}

static int client(bool null)
{
    pmix_proc_t me, a[3], b[2], all;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    CHECK_RC(rc, PMIX_SUCCESS, "client PMIx_Init");
    if (rc != PMIX_SUCCESS) CHECK_DONE();
    PMIX_LOAD_PROCID(&a[0], NSPACE, 1);
    PMIX_LOAD_PROCID(&a[1], NSPACE, 2);
    PMIX_LOAD_PROCID(&a[2], NSPACE, 5);
    PMIX_LOAD_PROCID(&b[0], NSPACE, 6);
    PMIX_LOAD_PROCID(&b[1], NSPACE, 1);
    PMIX_LOAD_PROCID(&all, NSPACE, PMIX_RANK_WILDCARD);
    pmix_byte_object_t go = {.bytes = "go\n", .size = 3};

    if (null) {
        CHECK_RC(PMIx_IOF_pull(a, 3, NULL, 0, PMIX_FWD_STDOUT_CHANNEL, c_handler, NULL, NULL),
                 PMIX_ERR_NOT_SUPPORTED, "pull when the host has no iof_pull");
        CHECK_RC(PMIx_IOF_push(&all, 1, &go, NULL, 0, NULL, NULL), PMIX_ERR_NOT_SUPPORTED,
                 "push when the host has no push_stdin");
        CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "client Finalize");
        CHECK_DONE();
    }

    /* A: stdout and stderr of ranks 1, 2 and 5 (blocking form). */
    CHECK_RC(PMIx_IOF_pull(a, 3, NULL, 0, PMIX_FWD_STDOUT_CHANNEL | PMIX_FWD_STDERR_CHANNEL,
                           c_handler, NULL, NULL),
             PMIX_OPERATION_SUCCEEDED, "pull A");
    CHECK(wait_text(5, "early\n"), "cached output replayed after the pull");
    CHECK(wait_text(1, "live1\n"), "live stdout");
    CHECK(wait_text(2, "err1\n"), "live stderr");
    CHECK(wait_text(1, NULL), "end of rank 1's stdout");
    pthread_mutex_lock(&mtx);
    CHECK(by_src[1].completes == 1, "end-of-stream marker with PMIX_IOF_COMPLETE (%d)",
          by_src[1].completes);
    CHECK(0 == strcmp(by_src[5].text, "early\n") && 0 == strcmp(by_src[1].text, "live1\n") &&
              0 == strcmp(by_src[2].text, "err1\n") && by_src[6].chunks == 0 &&
              by_src[7].chunks == 0 && c_bad == 0,
          "exactly what A asked for: [%s][%s][%s], %d from rank 6, %d from rank 7, %d foreign",
          by_src[5].text, by_src[1].text, by_src[2].text, by_src[6].chunks, by_src[7].chunks, c_bad);
    int a_chunks = c_chunks;
    pthread_mutex_unlock(&mtx);
    /* OpenPMIx numbers registrations from 0 in each process. */
    CHECK_RC(PMIx_IOF_deregister(0, NULL, 0, NULL, NULL), PMIX_SUCCESS, "deregister A");

    /* B: stddiag of ranks 6 and 1, with a registration callback. */
    CHECK_RC(PMIx_IOF_pull(b, 2, NULL, 0, PMIX_FWD_STDDIAG_CHANNEL, c_handler, c_reg, NULL),
             PMIX_SUCCESS, "pull B");
    CHECK(wait_int(&c_regs, 1) && c_reg_st == PMIX_SUCCESS && c_reg_id == 0,
          "B registered (%d, id %zu)", c_reg_st, c_reg_id);
    CHECK(wait_text(6, "diag1\n"), "B gets the stddiag chunk cached before it");
    CHECK_RC(PMIx_IOF_push(&all, 1, &go, NULL, 0, NULL, NULL), PMIX_SUCCESS,
             "push to the namespace's stdin");
    /* The host delivers "late" (stdout, for A only) and then "sentinel" (stddiag, for B). */
    CHECK(wait_text(1, "sentinel\n"), "B gets the sentinel");
    pthread_mutex_lock(&mtx);
    CHECK(strstr(by_src[1].text, "late") == NULL && c_chunks == a_chunks + 2,
          "nothing for A after its deregistration (%d chunks since)", c_chunks - a_chunks);
    pthread_mutex_unlock(&mtx);
    CHECK_RC(PMIx_IOF_deregister(c_reg_id, NULL, 0, NULL, NULL), PMIX_SUCCESS, "deregister B");

    /* Bad arguments. */
    CHECK_RC(PMIx_IOF_pull(a, 3, NULL, 0, PMIX_FWD_STDIN_CHANNEL, c_handler, NULL, NULL),
             PMIX_ERR_NOT_SUPPORTED, "pull of stdin");
    CHECK_RC(PMIx_IOF_pull(NULL, 3, NULL, 0, PMIX_FWD_STDOUT_CHANNEL, c_handler, NULL, NULL),
             PMIX_ERR_BAD_PARAM, "pull with NULL procs");
    CHECK_RC(PMIx_IOF_deregister(4242, NULL, 0, NULL, NULL), PMIX_ERR_BAD_PARAM,
             "deregister an unknown id");
    pmix_byte_object_t bad = {.bytes = NULL, .size = 3};
    CHECK_RC(PMIx_IOF_push(&all, 1, &bad, NULL, 0, NULL, NULL), PMIX_ERR_BAD_PARAM,
             "push of a byte object with NULL bytes");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "client Finalize");
    CHECK_DONE();
}

/* ------------------------------------------------------------------ host main */

/* Deliver on stderr with local output on, capturing what the host writes there. */
static pmix_status_t deliver_captured(const char *text, char *seen, size_t nseen)
{
    int p[2], saved = dup(2);
    if (pipe(p) != 0 || saved < 0) return PMIX_ERROR;
    fflush(stderr);
    dup2(p[1], 2);
    pmix_proc_t src;
    PMIX_LOAD_PROCID(&src, NSPACE, 2);
    pmix_byte_object_t bo = {.bytes = (char *)text, .size = strlen(text)};
    pmix_status_t st = 1;
    pmix_status_t rc = PMIx_server_IOF_deliver(&src, PMIX_FWD_STDERR_CHANNEL, &bo, NULL, 0, op_done, &st);
    wait_int(&n_opdone, 1);
    dup2(saved, 2);
    close(saved);
    close(p[1]);
    fcntl(p[0], F_SETFL, O_NONBLOCK);
    ssize_t k = read(p[0], seen, nseen - 1);
    seen[k > 0 ? k : 0] = 0;
    close(p[0]);
    return rc == PMIX_SUCCESS ? st : rc;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "host";
    bool null = 0 == strcmp(mode, "null");
    if (argc > 2 && 0 == strcmp(argv[2], "client")) return client(null);

    pmix_proc_t wild, src7;
    PMIX_LOAD_PROCID(&wild, NSPACE, PMIX_RANK_WILDCARD);
    PMIX_LOAD_PROCID(&src7, NSPACE, 7);
    pmix_byte_object_t bo = {.bytes = "x\n", .size = 2};
    CHECK_RC(PMIx_server_IOF_deliver(&wild, PMIX_FWD_STDOUT_CHANNEL, &bo, NULL, 0, NULL, NULL),
             PMIX_ERR_INIT, "deliver before PMIx_server_init");
    CHECK_RC(PMIx_IOF_pull(&wild, 1, NULL, 0, PMIX_FWD_STDOUT_CHANNEL, host_handler, NULL, NULL),
             PMIX_ERR_INIT, "pull before any init");

    pmix_server_module_t module;
    memset(&module, 0, sizeof module);
    module.client_finalized = h_finalized;
    if (!null) {
        module.iof_pull = h_iof_pull;
        module.push_stdin = h_push;
    }
    CHECK_RC(PMIx_server_init(&module, NULL, 0), PMIX_SUCCESS, "PMIx_server_init");

    /* Bad arguments. */
    CHECK_RC(PMIx_server_IOF_deliver(NULL, PMIX_FWD_STDOUT_CHANNEL, &bo, NULL, 0, NULL, NULL),
             PMIX_ERR_BAD_PARAM, "deliver with a NULL source");
    CHECK_RC(PMIx_server_IOF_deliver(&src7, PMIX_FWD_STDOUT_CHANNEL, NULL, NULL, 0, NULL, NULL),
             PMIX_ERR_BAD_PARAM, "deliver with a NULL byte object");
    pmix_byte_object_t bad = {.bytes = NULL, .size = 4};
    CHECK_RC(PMIx_server_IOF_deliver(&src7, PMIX_FWD_STDOUT_CHANNEL, &bad, NULL, 0, NULL, NULL),
             PMIX_ERR_BAD_PARAM, "deliver with NULL bytes");
    CHECK_RC(PMIx_server_IOF_deliver(&src7, PMIX_FWD_STDIN_CHANNEL, &bo, NULL, 0, NULL, NULL),
             PMIX_ERR_BAD_PARAM, "deliver on the stdin channel");

    /* The host's own pull: rank 7's cached output first, then live, nothing after. */
    CHECK_RC(deliver(7, PMIX_FWD_STDOUT_CHANNEL, "host-cached\n"), PMIX_OPERATION_SUCCEEDED,
             "blocking deliver");
    CHECK_RC(PMIx_IOF_pull(&src7, 1, NULL, 0, PMIX_FWD_STDOUT_CHANNEL, host_handler, NULL, NULL),
             PMIX_OPERATION_SUCCEEDED, "the host pulls rank 7");
    CHECK_RC(deliver(7, PMIX_FWD_STDOUT_CHANNEL, "host-live\n"), PMIX_OPERATION_SUCCEEDED,
             "deliver to the host's pull");
    CHECK(wait_int(&host_chunks, 2) && 0 == strcmp(host_got, "host-cached\nhost-live\n"),
          "the host's handler got [%s]", host_got);
    CHECK_RC(PMIx_IOF_deregister(0, NULL, 0, NULL, NULL), PMIX_SUCCESS, "the host deregisters");
    CHECK_RC(deliver(7, PMIX_FWD_STDOUT_CHANNEL, "host-after\n"), PMIX_OPERATION_SUCCEEDED,
             "deliver after it");
    CHECK_RC(PMIx_IOF_deregister(0, NULL, 0, NULL, NULL), PMIX_ERR_BAD_PARAM,
             "the host deregisters twice");

    /* Output from elsewhere before the client pulls: cached. */
    CHECK_RC(deliver(5, PMIX_FWD_STDOUT_CHANNEL, "early\n"), PMIX_OPERATION_SUCCEEDED, "early");
    CHECK_RC(deliver(6, PMIX_FWD_STDDIAG_CHANNEL, "diag1\n"), PMIX_OPERATION_SUCCEEDED, "diag1");

    pmix_nspace_t nsname;
    PMIX_LOAD_NSPACE(nsname, NSPACE);
    pmix_info_t ji;
    uint32_t one = 1;
    PMIX_INFO_LOAD(&ji, PMIX_JOB_SIZE, &one, PMIX_UINT32);
    CHECK_RC(PMIx_server_register_nspace(nsname, 1, &ji, 1, NULL, NULL), PMIX_SUCCESS,
             "register_nspace");
    PMIX_INFO_DESTRUCT(&ji);
    pmix_proc_t p0;
    char **env = NULL;
    PMIX_LOAD_PROCID(&p0, NSPACE, 0);
    CHECK_RC(PMIx_server_register_client(&p0, getuid(), getgid(), NULL, NULL, NULL), PMIX_SUCCESS,
             "register_client");
    for (char **e = environ; *e; e++) PMIx_Argv_append_nosize(&env, *e);
    CHECK_RC(PMIx_server_setup_fork(&p0, &env), PMIX_SUCCESS, "setup_fork");
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        char *args[] = {argv[0], (char *)mode, "client", NULL};
        execve(argv[0], args, env);
        _exit(127);
    }
    PMIx_Argv_free(env);

    if (!null) {
        CHECK(wait_int(&n_pull, 1), "the client's pull reached iof_pull");
        pthread_mutex_lock(&mtx);
        CHECK(pull_nprocs == 3 && pull_channels == (PMIX_FWD_STDOUT_CHANNEL | PMIX_FWD_STDERR_CHANNEL),
              "iof_pull arguments (%d procs, channels %#x)", pull_nprocs, pull_channels);
        pthread_mutex_unlock(&mtx);
        CHECK_RC(deliver(1, PMIX_FWD_STDOUT_CHANNEL, "live1\n"), PMIX_OPERATION_SUCCEEDED, "live1");
        char seen[256];
        CHECK_RC(deliver_captured("err1\n", seen, sizeof seen), PMIX_SUCCESS,
                 "non-blocking deliver, completed");
        CHECK(0 == strcmp(seen, "err1\n"), "the host's stderr got its local copy [%s]", seen);
        /* End of rank 1's stdout. */
        pmix_proc_t src1;
        pmix_info_t cmp[2];
        bool yes = true, no = false;
        PMIX_LOAD_PROCID(&src1, NSPACE, 1);
        PMIX_INFO_LOAD(&cmp[0], PMIX_IOF_COMPLETE, &yes, PMIX_BOOL);
        PMIX_INFO_LOAD(&cmp[1], PMIX_IOF_LOCAL_OUTPUT, &no, PMIX_BOOL);
        pmix_byte_object_t empty = {.bytes = NULL, .size = 0};
        CHECK_RC(PMIx_server_IOF_deliver(&src1, PMIX_FWD_STDOUT_CHANNEL, &empty, cmp, 2, NULL, NULL),
                 PMIX_OPERATION_SUCCEEDED, "end-of-stream marker");
        PMIX_INFO_DESTRUCT(&cmp[0]);
        PMIX_INFO_DESTRUCT(&cmp[1]);

        CHECK(wait_int(&n_push, 1), "the client's push reached push_stdin");
        pthread_mutex_lock(&mtx);
        CHECK(push_src_rank == 0 && push_ntargets == 1 && push_target == PMIX_RANK_WILDCARD &&
                  0 == strcmp(push_bytes, "go\n"),
              "push_stdin arguments (source %d, %d targets, bytes [%s])", push_src_rank,
              push_ntargets, push_bytes);
        CHECK(n_stop == 1 && n_pull == 2, "A's deregistration reached iof_pull with PMIX_IOF_STOP "
              "(%d stops, %d pulls)", n_stop, n_pull);
        pthread_mutex_unlock(&mtx);
        CHECK_RC(deliver(1, PMIX_FWD_STDOUT_CHANNEL, "late\n"), PMIX_OPERATION_SUCCEEDED, "late");
        CHECK_RC(deliver(1, PMIX_FWD_STDDIAG_CHANNEL, "sentinel\n"), PMIX_OPERATION_SUCCEEDED,
                 "sentinel");
    }
    int st = 0;
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the client passed (status %#x)", st);
    if (!null) CHECK(n_stop == 2, "B's deregistration reached iof_pull (%d stops)", n_stop);
    CHECK_RC(PMIx_server_finalize(), PMIX_SUCCESS, "PMIx_server_finalize");
    CHECK_DONE();
}
