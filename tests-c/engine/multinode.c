/* multinode: two PMIx servers in two processes, "nodeA" and "nodeB", each a small C host
 * that treats the library the way Open MPI 4.1's ORTE daemons do (mpirun/orted over
 * several hosts). The two hosts talk over a socketpair, standing in for ORTE's network:
 *
 *   - fence_nb: the host takes the blob (it frees `data` inside the upcall, as ORTE's
 *     buffer does), sends it to the other host, and completes with the concatenation of
 *     both nodes' blobs, which it frees in its release callback;
 *   - direct_modex: the host asks the other host, which calls PMIx_server_dmodex_request
 *     and sends back what that produced;
 *   - client_finalized: the host records the finalization later, from another thread,
 *     and only then completes; a client must not have exited before that;
 *   - before registering the job, the host does what mpirun does with its daemons' wireup
 *     data: PMIx_Store_internal for another process, then PMIx_Get of it with a NULL key.
 *
 * Job "multinode-job", 4 ranks: 0,1 on nodeA and 2,3 on nodeB.
 *   multinode fence    each client puts, commits, joins a collecting fence, then reads
 *                      every rank's key from the fence data (no direct modex allowed)
 *   multinode dmodex   no collecting fence (Open MPI's async modex): each client reads a
 *                      key of both ranks on the other node at once; rank 3 commits late,
 *                      so those Gets must wait for it, not fail
 * Run it under valgrind too: a double free of the fence blob or a bad release shows there. */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "check.h"

#define NSPACE "multinode-job"
#define NPROCS 4
#define LATE_RANK 3
#define MAXQ 16
#define MAXREQ 64

extern char **environ;

static int node;            /* 0: nodeA (ranks 0,1), 1: nodeB (ranks 2,3) */
static int peer_fd = -1;    /* the other host */
static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t wmtx = PTHREAD_MUTEX_INITIALIZER;

static const char *node_name(int n) { return n ? "nodeB" : "nodeA"; }
static int is_local(pmix_rank_t r) { return (int)(r / 2) == node; }

/* ------------------------------------------------------------ host-to-host messages */

enum { MSG_FENCE = 1, MSG_DMDX_REQ = 2, MSG_DMDX_RESP = 3 };
struct hdr { uint32_t type, id; int32_t status; uint32_t len; };

static int io_all(int fd, void *b, size_t n, int wr)
{
    char *p = b;
    while (n > 0) {
        ssize_t k = wr ? write(fd, p, n) : read(fd, p, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static void send_msg(uint32_t type, uint32_t id, int32_t status, const void *data, size_t len)
{
    struct hdr h = {type, id, status, (uint32_t)len};
    pthread_mutex_lock(&wmtx);
    if (io_all(peer_fd, &h, sizeof h, 1) != 0 || (len && io_all(peer_fd, (void *)data, len, 1) != 0))
        fprintf(stderr, "%s: cannot write to the other host\n", node_name(node));
    pthread_mutex_unlock(&wmtx);
}

/* ------------------------------------------------------------ host state */

typedef struct { char *data; size_t len; pmix_modex_cbfunc_t cb; void *cbd; } contrib_t;
static contrib_t ownq[MAXQ], peerq[MAXQ];
static int n_own, n_peer;
typedef struct { pmix_modex_cbfunc_t cb; void *cbd; int used; } dreq_t;
static dreq_t dreqs[MAXREQ];
static int n_fence, n_fence_bytes, n_dmodex, n_dmodex_req, n_bad_upcall;
static int finalized[NPROCS];

static void release_buf(void *p) { free(p); }

static void pop(contrib_t *q, int *n, contrib_t *out)
{
    *out = q[0];
    memmove(q, q + 1, (size_t)(*n - 1) * sizeof *q);
    (*n)--;
}

/* Complete every fence both nodes have contributed to: nodeA's blob first, then nodeB's,
 * as one malloc'd buffer that the release callback frees. */
static void try_complete(void)
{
    for (;;) {
        contrib_t o, p;
        pthread_mutex_lock(&mtx);
        if (n_own == 0 || n_peer == 0) { pthread_mutex_unlock(&mtx); return; }
        pop(ownq, &n_own, &o);
        pop(peerq, &n_peer, &p);
        pthread_mutex_unlock(&mtx);
        contrib_t *first = node == 0 ? &o : &p, *second = node == 0 ? &p : &o;
        size_t len = first->len + second->len;
        char *all = malloc(len ? len : 1);
        if (first->len) memcpy(all, first->data, first->len);
        if (second->len) memcpy(all + first->len, second->data, second->len);
        free(o.data);
        free(p.data);
        o.cb(PMIX_SUCCESS, all, len, o.cbd, release_buf, all);
    }
}

static void *completer(void *arg) { (void)arg; try_complete(); return NULL; }

static pmix_status_t on_fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                              size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cb, void *cbd)
{
    (void)info; (void)ninfo;
    contrib_t c = {NULL, ndata, cb, cbd};
    if (ndata) {
        c.data = malloc(ndata);
        memcpy(c.data, data, ndata);
    }
    free(data);   /* the blob is the host's: ORTE's buffer frees it before returning */
    /* Send before queueing: once queued, the reader thread may complete and free it. */
    send_msg(MSG_FENCE, 0, 0, c.data, ndata);
    pthread_mutex_lock(&mtx);
    n_fence++;
    n_fence_bytes += (int)ndata;
    if (nprocs < 1 || procs == NULL || n_own >= MAXQ) n_bad_upcall++;
    else ownq[n_own++] = c;
    pthread_mutex_unlock(&mtx);
    pthread_t t;
    pthread_create(&t, NULL, completer, NULL);
    pthread_detach(t);
    return PMIX_SUCCESS;
}

static pmix_status_t on_dmodex(const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
                               pmix_modex_cbfunc_t cb, void *cbd)
{
    (void)info; (void)ninfo;
    uint32_t id = 0, rank = proc->rank;
    pthread_mutex_lock(&mtx);
    n_dmodex++;
    if (strcmp(proc->nspace, NSPACE) != 0 || is_local(proc->rank)) n_bad_upcall++;
    while (id < MAXREQ && dreqs[id].used) id++;
    if (id == MAXREQ) { pthread_mutex_unlock(&mtx); return PMIX_ERR_OUT_OF_RESOURCE; }
    dreqs[id] = (dreq_t){cb, cbd, 1};
    pthread_mutex_unlock(&mtx);
    send_msg(MSG_DMDX_REQ, id, 0, &rank, sizeof rank);
    return PMIX_SUCCESS;
}

/* The library answers the other node's request (on its progress thread). */
static void dmodex_answer(pmix_status_t status, char *data, size_t sz, void *cbdata)
{
    send_msg(MSG_DMDX_RESP, (uint32_t)(uintptr_t)cbdata, status, data, sz);
}

struct fin { pmix_rank_t rank; pmix_op_cbfunc_t cb; void *cbd; };

static void *finalize_later(void *arg)
{
    struct fin *f = arg;
    usleep(100000);
    pthread_mutex_lock(&mtx);
    if (f->rank < NPROCS) finalized[f->rank] = 1;
    pthread_mutex_unlock(&mtx);
    if (f->cb) f->cb(PMIX_SUCCESS, f->cbd);
    free(f);
    return NULL;
}

static pmix_status_t on_finalized(const pmix_proc_t *p, void *obj, pmix_op_cbfunc_t cb, void *cbd)
{
    (void)obj;
    struct fin *f = malloc(sizeof *f);
    *f = (struct fin){p->rank, cb, cbd};
    pthread_t t;
    pthread_create(&t, NULL, finalize_later, f);
    pthread_detach(t);
    return PMIX_SUCCESS;
}

static pmix_status_t on_connected(const pmix_proc_t *p, void *obj, pmix_op_cbfunc_t cb, void *cbd)
{
    (void)p; (void)obj; (void)cb; (void)cbd;
    return PMIX_SUCCESS;
}

/* Serves the other host until it closes its end. */
static void *reader(void *arg)
{
    (void)arg;
    for (;;) {
        struct hdr h;
        if (io_all(peer_fd, &h, sizeof h, 0) != 0) return NULL;
        char *buf = h.len ? malloc(h.len) : NULL;
        if (h.len && io_all(peer_fd, buf, h.len, 0) != 0) { free(buf); return NULL; }
        if (h.type == MSG_FENCE) {
            pthread_mutex_lock(&mtx);
            if (n_peer < MAXQ) peerq[n_peer++] = (contrib_t){buf, h.len, NULL, NULL};
            else n_bad_upcall++;
            pthread_mutex_unlock(&mtx);
            try_complete();
        } else if (h.type == MSG_DMDX_REQ) {
            pmix_proc_t p;
            uint32_t rank = 0;
            if (buf && h.len == sizeof rank) memcpy(&rank, buf, sizeof rank);
            free(buf);
            PMIX_LOAD_PROCID(&p, NSPACE, rank);
            pthread_mutex_lock(&mtx);
            n_dmodex_req++;
            pthread_mutex_unlock(&mtx);
            pmix_status_t rc = PMIx_server_dmodex_request(&p, dmodex_answer, (void *)(uintptr_t)h.id);
            if (rc != PMIX_SUCCESS) send_msg(MSG_DMDX_RESP, h.id, rc, NULL, 0);
        } else if (h.type == MSG_DMDX_RESP && h.id < MAXREQ) {
            pthread_mutex_lock(&mtx);
            dreq_t d = dreqs[h.id];
            dreqs[h.id].used = 0;
            pthread_mutex_unlock(&mtx);
            if (d.used) d.cb(h.status, buf, h.len, d.cbd, release_buf, buf);
            else free(buf);
        } else {
            free(buf);
        }
    }
}

/* ------------------------------------------------------------ client mode */

static int client(const char *scenario)
{
    pmix_proc_t me, peer;
    pmix_value_t val, *v = NULL;
    pmix_info_t info;
    bool t = true;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    CHECK_RC(rc, PMIX_SUCCESS, "client PMIx_Init");
    if (rc != PMIX_SUCCESS) CHECK_DONE();
    int dmodex = 0 == strcmp(scenario, "dmodex");
    if (dmodex && me.rank == LATE_RANK) usleep(500000);   /* others ask before this commits */
    uint32_t mine = 100 + me.rank;
    PMIX_VALUE_LOAD(&val, &mine, PMIX_UINT32);
    CHECK_RC(PMIx_Put(PMIX_GLOBAL, "mn.rank", &val), PMIX_SUCCESS, "Put");
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit");
    if (!dmodex) {
        PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &t, PMIX_BOOL);
        CHECK_RC(PMIx_Fence(NULL, 0, &info, 1), PMIX_SUCCESS, "collecting Fence across nodes");
    }
    for (pmix_rank_t r = 0; r < NPROCS; r++) {
        if (dmodex && (int)(r / 2) == (int)(me.rank / 2)) continue;   /* the other node's */
        PMIX_LOAD_PROCID(&peer, me.nspace, r);
        rc = PMIx_Get(&peer, "mn.rank", NULL, 0, &v);
        CHECK(rc == PMIX_SUCCESS && v && v->type == PMIX_UINT32 && v->data.uint32 == 100 + r,
              "rank %u reads rank %u's key (%d)", me.rank, r, rc);
        if (v) { PMIX_VALUE_RELEASE(v); v = NULL; }
    }
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "final Fence across nodes");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "Finalize");
    CHECK_DONE();
}

/* ------------------------------------------------------------ host mode */

static void host(const char *scenario, const char *argv0)
{
    pmix_server_module_t module;
    memset(&module, 0, sizeof module);
    module.client_connected = on_connected;
    module.client_finalized = on_finalized;
    module.fence_nb = on_fence;
    module.direct_modex = on_dmodex;
    pmix_info_t sinfo;
    PMIX_INFO_LOAD(&sinfo, PMIX_HOSTNAME, node_name(node), PMIX_STRING);
    CHECK_RC(PMIx_server_init(&module, &sinfo, 1), PMIX_SUCCESS, "PMIx_server_init");
    PMIX_INFO_DESTRUCT(&sinfo);
    pthread_t rd;
    pthread_create(&rd, NULL, reader, NULL);

    /* mpirun and its daemons: Store_internal of another daemon's data, read back whole. */
    pmix_proc_t dmn;
    pmix_value_t val, *v = NULL;
    PMIX_LOAD_PROCID(&dmn, "multinode-daemons", 1);
    PMIX_VALUE_LOAD(&val, "tcp://10.0.0.2:1", PMIX_STRING);
    CHECK_RC(PMIx_Store_internal(&dmn, "pmix.puri", &val), PMIX_SUCCESS, "Store_internal");
    PMIX_VALUE_DESTRUCT(&val);
    pmix_status_t rc = PMIx_Get(&dmn, NULL, NULL, 0, &v);
    int found = 0;
    if (rc == PMIX_SUCCESS && v && v->type == PMIX_DATA_ARRAY && v->data.darray &&
        v->data.darray->type == PMIX_INFO) {
        pmix_info_t *it = v->data.darray->array;
        for (size_t i = 0; i < v->data.darray->size; i++)
            if (0 == strcmp(it[i].key, "pmix.puri") && it[i].value.type == PMIX_STRING &&
                0 == strcmp(it[i].value.data.string, "tcp://10.0.0.2:1"))
                found = 1;
    }
    CHECK(found, "%s: Get(daemon 1, NULL key) returns its stored data (%d)", node_name(node), rc);
    if (v) { PMIX_VALUE_RELEASE(v); v = NULL; }

    /* The job, registered like ORTE does: maps from our own regex functions. */
    char *nmap = NULL, *pmap = NULL;
    CHECK_RC(PMIx_generate_regex("nodeA,nodeB", &nmap), PMIX_SUCCESS, "generate_regex");
    CHECK_RC(PMIx_generate_ppn("0,1;2,3", &pmap), PMIX_SUCCESS, "generate_ppn");
    pmix_info_t *info = PMIx_Info_create(3);
    uint32_t size = NPROCS;
    PMIX_INFO_LOAD(&info[0], PMIX_JOB_SIZE, &size, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[1], PMIX_NODE_MAP, nmap, PMIX_STRING);
    PMIX_INFO_LOAD(&info[2], PMIX_PROC_MAP, pmap, PMIX_STRING);
    free(nmap);
    free(pmap);
    pmix_nspace_t ns;
    PMIX_LOAD_NSPACE(ns, NSPACE);
    CHECK_RC(PMIx_server_register_nspace(ns, 2, info, 3, NULL, NULL), PMIX_SUCCESS, "register_nspace");
    PMIX_INFO_FREE(info, 3);

    pid_t pids[2];
    for (int i = 0; i < 2; i++) {
        pmix_proc_t p;
        char **env = NULL;
        PMIX_LOAD_PROCID(&p, NSPACE, (pmix_rank_t)(2 * node + i));
        CHECK_RC(PMIx_server_register_client(&p, getuid(), getgid(), NULL, NULL, NULL),
                 PMIX_SUCCESS, "register_client");
        for (char **e = environ; *e; e++) PMIx_Argv_append_nosize(&env, *e);
        CHECK_RC(PMIx_server_setup_fork(&p, &env), PMIX_SUCCESS, "setup_fork");
        fflush(stdout);
        pids[i] = fork();
        if (pids[i] == 0) {
            char *args[] = {(char *)argv0, "client", (char *)scenario, NULL};
            execve(argv0, args, env);
            _exit(127);
        }
        PMIx_Argv_free(env);
    }
    for (int i = 0; i < 2; i++) {
        int st = 0;
        pmix_rank_t r = (pmix_rank_t)(2 * node + i);
        waitpid(pids[i], &st, 0);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: client rank %u passed", node_name(node), r);
        pthread_mutex_lock(&mtx);
        int f = finalized[r];
        pthread_mutex_unlock(&mtx);
        CHECK(f, "%s: rank %u exited only after the host recorded its finalize", node_name(node), r);
    }
    pthread_mutex_lock(&mtx);
    CHECK(n_bad_upcall == 0, "%s: upcall arguments as expected (%d bad)", node_name(node), n_bad_upcall);
    if (0 == strcmp(scenario, "fence")) {
        CHECK(n_fence == 2, "%s: two fences reached the host (%d)", node_name(node), n_fence);
        CHECK(n_fence_bytes > 0, "%s: the collecting fence carried data", node_name(node));
        CHECK(n_dmodex == 0, "%s: no direct modex after a collecting fence (%d)", node_name(node), n_dmodex);
    } else {
        CHECK(n_dmodex >= 1, "%s: direct modex upcalls: %d", node_name(node), n_dmodex);
        CHECK(n_dmodex_req >= 1, "%s: dmodex requests served: %d", node_name(node), n_dmodex_req);
    }
    pthread_mutex_unlock(&mtx);
    PMIx_server_deregister_nspace(ns, NULL, NULL);
    CHECK_RC(PMIx_server_finalize(), PMIX_SUCCESS, "PMIx_server_finalize");
}

int main(int argc, char **argv)
{
    if (argc > 2 && 0 == strcmp(argv[1], "client")) return client(argv[2]);
    const char *scenario = argc > 1 ? argv[1] : "fence";
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) { perror("socketpair"); return 2; }
    fflush(stdout);
    pid_t b = fork();
    if (b == 0) {
        node = 1;
        close(sv[0]);
        peer_fd = sv[1];
        host(scenario, argv[0]);
        /* the reader ends when nodeA closes its end; this process just leaves */
        printf("%s: %d checks, %d failed\n", node_name(node), check_count, check_failures);
        fflush(stdout);
        _exit(check_failures ? 1 : 0);
    }
    node = 0;
    close(sv[1]);
    peer_fd = sv[0];
    host(scenario, argv[0]);
    int st = 0;
    waitpid(b, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the nodeB host passed");
    close(peer_fd);
    CHECK_DONE();
}
