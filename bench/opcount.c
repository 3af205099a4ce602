/* opcount: N client operations of one kind after PMIx_Init, for instruction counting.
 *
 *   opcount OP N      OP: get-job | get-self | get-peer | get-peer-first | put |
 *                         put-commit | commit | fence | fence-collect | get-self-host |
 *                         get-self-nrank | get-self-appnum | get-self-jobkey
 *
 * get-self reads the process's own PMIX_LOCAL_RANK; get-self-host its PMIX_HOSTNAME (a
 * string), get-self-nrank its PMIX_NODE_RANK, get-self-appnum its PMIX_APPNUM, and
 * get-self-jobkey PMIX_JOB_SIZE asked of the process itself (not of the wildcard).
 *
 * The N operations run inside one function, `opcount_loop`, so that
 *   valgrind --tool=callgrind --toggle-collect=opcount_loop opcount OP N
 * counts exactly those operations (value release included for Gets). Running it for two
 * N and dividing the difference by the difference of N gives instructions per operation
 * without the loop's fixed costs (bench/opcount.sh does that). Run it under a launcher
 * with at least 2 ranks for get-peer (rank 1 reads rank 0's key after a collecting fence;
 * other ranks only take part in the fence). The fences run in every rank.
 *
 * OPCOUNT_KEYS=K makes every rank publish K 64-byte keys (default 1) before the loop.
 * With OPCOUNT_RUSAGE=1 rank 0 also prints, per operation, the wall time, the CPU time of
 * this process (all its threads), its voluntary context switches, and the CPU time of
 * its parent (the launcher hosting the PMIx server: pmixrun or mpirun) — counts that say
 * more than wall time on a loaded machine. */
#define _GNU_SOURCE
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static pmix_proc_t me;

static void die(const char *what, pmix_status_t rc)
{
    fprintf(stderr, "opcount [%s:%u]: %s failed: %s\n", me.nspace, me.rank, what,
            PMIx_Error_string(rc));
    exit(1);
}

/* The operations, resolved from their names once (so that the loop counts the library,
 * not a chain of strcmp calls choosing the operation). */
enum op { GET_JOB, GET_SELF, GET_PEER, GET_PEER_FIRST, COMMIT, FENCE, FENCE_COLLECT, PUT,
          PUT_COMMIT, GET_SELF_HOST, GET_SELF_NRANK, GET_SELF_APPNUM, GET_SELF_JOBKEY, NOPS };
static const char *const op_names[NOPS] = {"get-job", "get-self", "get-peer", "get-peer-first",
                                           "commit", "fence", "fence-collect", "put",
                                           "put-commit", "get-self-host", "get-self-nrank",
                                           "get-self-appnum", "get-self-jobkey"};

/* One operation of kind `op`; returns nonzero on a wrong answer. */
static int one(enum op op, const pmix_proc_t *wild, const pmix_proc_t *peer,
               uint32_t expect_size, long i)
{
    pmix_value_t *val = NULL;
    pmix_status_t rc;
    int bad = 0;
    switch (op) {
    case GET_JOB:
        rc = PMIx_Get(wild, PMIX_JOB_SIZE, NULL, 0, &val);
        if (PMIX_SUCCESS != rc)
            die("PMIx_Get(JOB_SIZE)", rc);
        bad = val->data.uint32 != expect_size;
        PMIX_VALUE_RELEASE(val);
        break;
    case GET_SELF:
        rc = PMIx_Get(&me, PMIX_LOCAL_RANK, NULL, 0, &val);
        if (PMIX_SUCCESS != rc)
            die("PMIx_Get(LOCAL_RANK)", rc);
        PMIX_VALUE_RELEASE(val);
        break;
    case GET_SELF_HOST:
    case GET_SELF_NRANK:
    case GET_SELF_APPNUM:
    case GET_SELF_JOBKEY: {
        const char *k = GET_SELF_HOST == op    ? PMIX_HOSTNAME
                        : GET_SELF_NRANK == op ? PMIX_NODE_RANK
                        : GET_SELF_APPNUM == op ? PMIX_APPNUM
                                                : PMIX_JOB_SIZE;
        rc = PMIx_Get(&me, k, NULL, 0, &val);
        if (PMIX_SUCCESS != rc)
            die(k, rc);
        bad = GET_SELF_JOBKEY == op && val->data.uint32 != expect_size;
        PMIX_VALUE_RELEASE(val);
        break;
    }
    case GET_PEER:
        rc = PMIx_Get(peer, "opcount.key", NULL, 0, &val);
        if (PMIX_SUCCESS != rc)
            die("PMIx_Get(peer key)", rc);
        bad = val->type != PMIX_STRING;
        PMIX_VALUE_RELEASE(val);
        break;
    case GET_PEER_FIRST: {
        /* key i+1 of the peer: each read once (run with OPCOUNT_KEYS > N) */
        char name[32];
        snprintf(name, sizeof name, "opcount.key%ld", i + 1);
        rc = PMIx_Get(peer, name, NULL, 0, &val);
        if (PMIX_SUCCESS != rc)
            die("PMIx_Get(peer key, first)", rc);
        bad = val->type != PMIX_STRING;
        PMIX_VALUE_RELEASE(val);
        break;
    }
    case COMMIT: {
        /* one small put, then the commit (the put is a small part of the cost) */
        pmix_value_t v;
        v.type = PMIX_UINT64;
        v.data.uint64 = (uint64_t)i;
        if (PMIX_SUCCESS != (rc = PMIx_Put(PMIX_GLOBAL, "opcount.c", &v)))
            die("PMIx_Put", rc);
        if (PMIX_SUCCESS != (rc = PMIx_Commit()))
            die("PMIx_Commit", rc);
        break;
    }
    case FENCE:
        if (PMIX_SUCCESS != (rc = PMIx_Fence(NULL, 0, NULL, 0)))
            die("PMIx_Fence", rc);
        break;
    case FENCE_COLLECT: {
        pmix_info_t info;
        bool yes = true;
        PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
        if (PMIX_SUCCESS != (rc = PMIx_Fence(NULL, 0, &info, 1)))
            die("PMIx_Fence(collect)", rc);
        PMIX_INFO_DESTRUCT(&info);
        break;
    }
    case PUT:
    case PUT_COMMIT:
    default: {
        /* the same 64-byte string (63 characters + NUL) every time, so that only the
         * library's work is counted */
        static char buf[64] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde";
        pmix_value_t v;
        v.type = PMIX_STRING;
        v.data.string = buf;
        rc = PMIx_Put(PMIX_GLOBAL, "opcount.put", &v);
        if (PMIX_SUCCESS != rc)
            die("PMIx_Put", rc);
        if (PUT_COMMIT == op && PMIX_SUCCESS != (rc = PMIx_Commit()))
            die("PMIx_Commit", rc);
        break;
    }
    }
    return bad;
}

/* Not inlined: the function callgrind's --toggle-collect names. */
__attribute__((noinline)) long opcount_loop(enum op op, long n, const pmix_proc_t *wild,
                                            const pmix_proc_t *peer, uint32_t size)
{
    long bad = 0;
    for (long i = 0; i < n; i++)
        bad += one(op, wild, peer, size, i);
    return bad;
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* CPU time (user + system, microseconds) of process `pid` from /proc (10 ms ticks). */
static double proc_cpu_us(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    unsigned long ut = 0, st = 0;
    /* after ") ": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime */
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
        return -1;
    return (ut + st) * 1e6 / sysconf(_SC_CLK_TCK);
}

static double self_cpu_us(struct rusage *ru)
{
    getrusage(RUSAGE_SELF, ru);
    return ru->ru_utime.tv_sec * 1e6 + ru->ru_utime.tv_usec + ru->ru_stime.tv_sec * 1e6 +
           ru->ru_stime.tv_usec;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s OP N (OP: see the top of opcount.c)\n", argv[0]);
        return 2;
    }
    const char *name = argv[1];
    long n = atol(argv[2]);
    enum op op = NOPS;
    for (int k = 0; k < NOPS; k++)
        if (0 == strcmp(name, op_names[k]))
            op = (enum op)k;
    if (NOPS == op) {
        fprintf(stderr, "opcount: unknown operation %s\n", name);
        return 2;
    }
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (PMIX_SUCCESS != rc)
        die("PMIx_Init", rc);
    pmix_proc_t wild, peer;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    PMIX_LOAD_PROCID(&peer, me.nspace, 0);
    pmix_value_t *val = NULL;
    if (PMIX_SUCCESS != (rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &val)))
        die("PMIx_Get(JOB_SIZE)", rc);
    uint32_t size = val->data.uint32;
    PMIX_VALUE_RELEASE(val);

    /* Everybody publishes one key, then a collecting fence. */
    pmix_value_t v;
    v.type = PMIX_STRING;
    v.data.string = "0123456789012345678901234567890123456789012345678901234567890ab";
    if (PMIX_SUCCESS != (rc = PMIx_Put(PMIX_GLOBAL, "opcount.key", &v)))
        die("PMIx_Put", rc);
    /* OPCOUNT_KEYS=K: K-1 more 64-byte keys per rank (data a collecting fence carries) */
    for (long k = 1; getenv("OPCOUNT_KEYS") && k < atol(getenv("OPCOUNT_KEYS")); k++) {
        char name[32];
        snprintf(name, sizeof name, "opcount.key%ld", k);
        if (PMIX_SUCCESS != (rc = PMIx_Put(PMIX_GLOBAL, name, &v)))
            die("PMIx_Put", rc);
    }
    if (PMIX_SUCCESS != (rc = PMIx_Commit()))
        die("PMIx_Commit", rc);
    pmix_info_t info;
    bool yes = true;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    if (PMIX_SUCCESS != (rc = PMIx_Fence(NULL, 0, &info, 1)))
        die("PMIx_Fence", rc);
    PMIX_INFO_DESTRUCT(&info);

    long bad = 0;
    int fence = FENCE == op || FENCE_COLLECT == op;
    int active = fence || (GET_PEER != op && GET_PEER_FIRST != op) || me.rank == 1;
    if (active) {
        /* warm up (first access of a peer key goes to the server), then count */
        if (GET_PEER_FIRST != op)
            one(op, &wild, &peer, size, -1);
        struct rusage r0, r1;
        double c0 = self_cpu_us(&r0), p0 = proc_cpu_us(getppid()), t0 = now_us();
        bad = opcount_loop(op, n, &wild, &peer, size);
        double t1 = now_us(), c1 = self_cpu_us(&r1), p1 = proc_cpu_us(getppid());
        if (getenv("OPCOUNT_RUSAGE") && (me.rank == 0 || (!fence && active)))
            printf("rusage op=%s np=%u n=%ld wall_us=%.3f cpu_us=%.3f vcsw=%.3f "
                   "parent_cpu_us=%.3f\n",
                   name, size, n, (t1 - t0) / n, (c1 - c0) / n,
                   (double)(r1.ru_nvcsw - r0.ru_nvcsw) / n, (p1 - p0) / n);
    }
    if (PMIX_SUCCESS != (rc = PMIx_Fence(NULL, 0, NULL, 0)))
        die("PMIx_Fence", rc);
    if (bad)
        fprintf(stderr, "opcount: %ld wrong answers\n", bad);
    if (PMIX_SUCCESS != (rc = PMIx_Finalize(NULL, 0)))
        die("PMIx_Finalize", rc);
    return bad != 0;
}
