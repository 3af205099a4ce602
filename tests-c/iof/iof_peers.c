/* iof_peers: output forwarding under pmixrun -n N (N >= 3): a rank pulls its peers' output.
 *
 *   iof_peers pull      rank 0 pulls the stdout of its whole namespace (blocking form);
 *                       the peers print their lines after a fence and exit; rank 0
 *                       receives exactly each peer's stdout, marked with its source and
 *                       ended by an end-of-stream marker, never its own output and never
 *                       stderr
 *   iof_peers explicit  the same naming ranks 1..N-1, registered with a callback
 *   iof_peers dereg     rank 0 pulls stdout and stderr, deregisters stdout after each
 *                       peer's first line: the peers' later stdout never reaches it while
 *                       their stderr still does; bad arguments get clear statuses
 *
 * The peers write nothing else on stdout (their failures go to stderr and the exit
 * status), so what rank 0 receives can be compared byte for byte. */
#include <pthread.h>
#include <stdint.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_tool.h>

#include "check.h"

#define MAXR 16
#define LINES 5
#define WAIT_S 30

static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cnd = PTHREAD_COND_INITIALIZER;
static pmix_proc_t me;

struct stream {
    char buf[4096];
    size_t len;
    bool complete;
    int chunks;
};
static struct stream out[MAXR], err[MAXR];
static int self_chunks, foreign_chunks, bad_channel, chunks_for[8];
static size_t id_out = (size_t)-1, id_err = (size_t)-1;
static int regs_done, reg_status[2];

static void on_output(size_t id, pmix_iof_channel_t channel, pmix_proc_t *source,
                      pmix_byte_object_t *payload, pmix_info_t info[], size_t ninfo)
{
    pthread_mutex_lock(&mtx);
    if (id < 8) chunks_for[id]++;
    if (strcmp(source->nspace, me.nspace) != 0 || source->rank >= MAXR) {
        foreign_chunks++;
    } else if (source->rank == me.rank) {
        self_chunks++;
    } else {
        struct stream *s = NULL;
        if (channel == PMIX_FWD_STDOUT_CHANNEL) s = &out[source->rank];
        else if (channel == PMIX_FWD_STDERR_CHANNEL) s = &err[source->rank];
        else bad_channel++;
        if (s) {
            s->chunks++;
            if (payload->size == 0) {
                bool c = false;
                for (size_t i = 0; i < ninfo; i++)
                    if (PMIX_CHECK_KEY(&info[i], PMIX_IOF_COMPLETE)) c = PMIX_INFO_TRUE(&info[i]);
                s->complete = c;
            } else if (s->len + payload->size < sizeof s->buf) {
                memcpy(s->buf + s->len, payload->bytes, payload->size);
                s->len += payload->size;
            }
        }
    }
    pthread_cond_broadcast(&cnd);
    pthread_mutex_unlock(&mtx);
}

static void on_reg(pmix_status_t st, size_t id, void *cbdata)
{
    int which = (int)(intptr_t)cbdata;
    pthread_mutex_lock(&mtx);
    reg_status[which] = st;
    if (which == 0) id_out = id; else id_err = id;
    regs_done++;
    pthread_cond_broadcast(&cnd);
    pthread_mutex_unlock(&mtx);
}

/* Wait (bounded) until pred() holds; the mutex is held while pred runs. */
static bool wait_for(bool (*pred)(int), int n)
{
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += WAIT_S;
    pthread_mutex_lock(&mtx);
    bool ok = pred(n);
    while (!ok) {
        if (pthread_cond_timedwait(&cnd, &mtx, &dl) != 0) { ok = pred(n); break; }
        ok = pred(n);
    }
    pthread_mutex_unlock(&mtx);
    return ok;
}

static bool regs(int n) { return regs_done >= n; }
static bool all_out_complete(int n)
{
    for (int r = 1; r < n; r++) if (!out[r].complete) return false;
    return true;
}
static bool all_err_complete(int n)
{
    for (int r = 1; r < n; r++) if (!err[r].complete) return false;
    return true;
}
static bool all_before(int n)
{
    char want[64];
    for (int r = 1; r < n; r++) {
        snprintf(want, sizeof want, "before %d\n", r);
        if (out[r].len < strlen(want)) return false;
    }
    return true;
}

static int peer(const char *mode)
{
    /* Nothing but the lines goes to stdout. */
    if (PMIx_Fence(NULL, 0, NULL, 0) != PMIX_SUCCESS) { fprintf(stderr, "peer fence failed\n"); return 1; }
    if (0 == strcmp(mode, "dereg")) {
        printf("before %u\n", me.rank);
        fflush(stdout);
        if (PMIx_Fence(NULL, 0, NULL, 0) != PMIX_SUCCESS) { fprintf(stderr, "peer fence 2 failed\n"); return 1; }
        printf("after %u\n", me.rank);
        fflush(stdout);
        fprintf(stderr, "done %u\n", me.rank);
    } else {
        for (int i = 0; i < LINES; i++) {
            printf("iof-peer %u line %d\n", me.rank, i);
            fflush(stdout);
        }
        fprintf(stderr, "iof-peer %u on stderr\n", me.rank);
    }
    return PMIx_Finalize(NULL, 0) == PMIX_SUCCESS ? 0 : 1;
}

static int n_ranks(void)
{
    pmix_proc_t wild;
    pmix_value_t *v = NULL;
    int n = 0;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    if (PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v) == PMIX_SUCCESS && v) n = (int)v->data.uint32;
    if (v) PMIX_VALUE_RELEASE(v);
    return n;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "pull";
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) { fprintf(stderr, "PMIx_Init: %d\n", rc); return 1; }
    if (me.rank != 0) return peer(mode);

    int n = n_ranks();
    CHECK(n >= 3 && n <= MAXR, "job of %d ranks", n);
    if (n < 3 || n > MAXR) CHECK_DONE();
    pmix_proc_t wild, procs[MAXR];
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);

    if (0 == strcmp(mode, "pull") || 0 == strcmp(mode, "explicit")) {
        if (0 == strcmp(mode, "pull")) {
            CHECK_RC(PMIx_IOF_pull(&wild, 1, NULL, 0, PMIX_FWD_STDOUT_CHANNEL, on_output, NULL, NULL),
                     PMIX_OPERATION_SUCCEEDED, "blocking pull of the namespace's stdout");
        } else {
            for (int r = 1; r < n; r++) PMIX_LOAD_PROCID(&procs[r - 1], me.nspace, (pmix_rank_t)r);
            CHECK_RC(PMIx_IOF_pull(procs, (size_t)n - 1, NULL, 0, PMIX_FWD_STDOUT_CHANNEL, on_output,
                                   on_reg, (void *)0),
                     PMIX_SUCCESS, "pull of ranks 1..N-1 with a registration callback");
            CHECK(wait_for(regs, 1) && reg_status[0] == PMIX_SUCCESS, "registered (%d)", reg_status[0]);
        }
        printf("rank 0 prints this too: never forwarded to itself\n");
        fflush(stdout);
        CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "fence");
        CHECK(wait_for(all_out_complete, n), "every peer's stdout ended");
        pthread_mutex_lock(&mtx);
        for (int r = 1; r < n; r++) {
            char want[1024] = "";
            for (int i = 0; i < LINES; i++) {
                char l[64];
                snprintf(l, sizeof l, "iof-peer %d line %d\n", r, i);
                strcat(want, l);
            }
            CHECK(out[r].len == strlen(want) && 0 == memcmp(out[r].buf, want, out[r].len),
                  "rank %d's stdout arrived exactly (%zu bytes in %d chunks)", r, out[r].len,
                  out[r].chunks);
            CHECK(err[r].chunks == 0, "no stderr of rank %d (%d)", r, err[r].chunks);
        }
        CHECK(self_chunks == 0 && foreign_chunks == 0 && bad_channel == 0,
              "nothing from itself (%d), other namespaces (%d) or other channels (%d)", self_chunks,
              foreign_chunks, bad_channel);
        pthread_mutex_unlock(&mtx);
    } else if (0 == strcmp(mode, "dereg")) {
        CHECK_RC(PMIx_IOF_pull(&wild, 1, NULL, 0, PMIX_FWD_STDOUT_CHANNEL, on_output, on_reg, (void *)0),
                 PMIX_SUCCESS, "stdout pull");
        CHECK_RC(PMIx_IOF_pull(&wild, 1, NULL, 0, PMIX_FWD_STDERR_CHANNEL, on_output, on_reg, (void *)1),
                 PMIX_SUCCESS, "stderr pull");
        CHECK(wait_for(regs, 2) && reg_status[0] == PMIX_SUCCESS && reg_status[1] == PMIX_SUCCESS &&
                  id_out != id_err && id_out < 8 && id_err < 8,
              "both registered (ids %zu, %zu)", id_out, id_err);
        CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "fence 1");
        CHECK(wait_for(all_before, n), "each peer's first line arrived");
        CHECK_RC(PMIx_IOF_deregister(id_out, NULL, 0, NULL, NULL), PMIX_SUCCESS, "deregister stdout");
        pthread_mutex_lock(&mtx);
        int before = chunks_for[id_out];
        pthread_mutex_unlock(&mtx);
        CHECK_RC(PMIx_IOF_deregister(id_out, NULL, 0, NULL, NULL), PMIX_ERR_BAD_PARAM,
                 "deregister it again");
        CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "fence 2");
        /* The peers write "after" on stdout before "done" on stderr; pmixrun hands the server
         * a rank's stdout before its stderr, so once every stderr has ended, any stdout chunk
         * still sent to the old registration would have arrived. */
        CHECK(wait_for(all_err_complete, n), "every peer's stderr ended");
        pthread_mutex_lock(&mtx);
        CHECK(chunks_for[id_out] == before, "nothing for the deregistered pull (%d, then %d)", before,
              chunks_for[id_out]);
        for (int r = 1; r < n; r++) {
            char want[64];
            snprintf(want, sizeof want, "before %d\n", r);
            CHECK(out[r].len == strlen(want) && 0 == memcmp(out[r].buf, want, out[r].len) &&
                      !out[r].complete,
                  "rank %d: stdout only up to the deregistration", r);
            snprintf(want, sizeof want, "done %d\n", r);
            CHECK(err[r].len == strlen(want) && 0 == memcmp(err[r].buf, want, err[r].len),
                  "rank %d: stderr still forwarded", r);
        }
        CHECK(self_chunks == 0, "nothing from itself (%d)", self_chunks);
        pthread_mutex_unlock(&mtx);
        CHECK_RC(PMIx_IOF_deregister(id_err, NULL, 0, NULL, NULL), PMIX_SUCCESS, "deregister stderr");

        /* Bad arguments. */
        CHECK_RC(PMIx_IOF_pull(&wild, 1, NULL, 0, PMIX_FWD_STDIN_CHANNEL, on_output, NULL, NULL),
                 PMIX_ERR_NOT_SUPPORTED, "pull of stdin");
        CHECK_RC(PMIx_IOF_pull(NULL, 1, NULL, 0, PMIX_FWD_STDOUT_CHANNEL, on_output, NULL, NULL),
                 PMIX_ERR_BAD_PARAM, "pull with NULL procs");
        CHECK_RC(PMIx_IOF_pull(&wild, 0, NULL, 0, PMIX_FWD_STDOUT_CHANNEL, on_output, NULL, NULL),
                 PMIX_ERR_BAD_PARAM, "pull with nprocs 0");
        CHECK_RC(PMIx_IOF_deregister(12345, NULL, 0, NULL, NULL), PMIX_ERR_BAD_PARAM,
                 "deregister an unknown id");
        pmix_byte_object_t bo = {.bytes = "x\n", .size = 2};
        pmix_proc_t one;
        PMIX_LOAD_PROCID(&one, me.nspace, 1);
        CHECK_RC(PMIx_IOF_push(&one, 1, &bo, NULL, 0, NULL, NULL), PMIX_ERR_NOT_SUPPORTED,
                 "push to a rank's stdin (pmixrun has no push_stdin)");
        CHECK_RC(PMIx_IOF_push(&one, 1, NULL, NULL, 0, NULL, NULL), PMIX_SUCCESS,
                 "push without data or directives");
        pmix_info_t d;
        bool yes = true;
        PMIX_INFO_LOAD(&d, PMIX_IOF_PUSH_STDIN, &yes, PMIX_BOOL);
        CHECK_RC(PMIx_IOF_push(&one, 1, NULL, &d, 1, NULL, NULL), PMIX_ERR_NOT_SUPPORTED,
                 "PMIX_IOF_PUSH_STDIN");
        PMIX_INFO_DESTRUCT(&d);
        pmix_byte_object_t bad = {.bytes = NULL, .size = 3};
        CHECK_RC(PMIx_IOF_push(&one, 1, &bad, NULL, 0, NULL, NULL), PMIX_ERR_BAD_PARAM,
                 "push of a byte object with NULL bytes");
    } else {
        CHECK(0, "unknown mode %s", mode);
    }
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "Finalize");
    CHECK_RC(PMIx_IOF_pull(&wild, 1, NULL, 0, PMIX_FWD_STDOUT_CHANNEL, on_output, NULL, NULL),
             PMIX_ERR_INIT, "pull after Finalize");
    CHECK_DONE();
}
