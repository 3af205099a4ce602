/*
 * pmix_bench.c - time the PMIx client operations a parallel program uses, through the
 * public client API (pmix.h) only, so that one binary measures any libpmix.so.2.
 *
 *   pmix_bench [-n ITERS] [-r REPS] [-s]      (under mpirun, pmixrun or any PMIx launcher)
 *
 *   -n ITERS  operations per repetition (default 200)
 *   -r REPS   repetitions of each measurement (default 5)
 *   -s        solo: only rank 0 runs the non-collective loops (the others still join
 *             every fence)
 *
 * Each measurement runs REPS repetitions of ITERS operations and takes each repetition's
 * mean in microseconds per operation; rank 0 prints the median, minimum and maximum over
 * the repetitions, as a line for people and as
 *   RESULT np=<N> op=<name> median_us=<x> min_us=<x> max_us=<x>
 * for bench/run.py. Two exceptions: "init" is each rank's PMIx_Init time, median, minimum
 * and maximum over the ranks; "finalize" is rank 0's single PMIx_Finalize. "init+finalize"
 * cycles take ITERS/20 (at least 1) cycles per repetition.
 *
 * Order: job-level Gets; fences without data; collecting fences (each rank puts the same
 * 10 keys c.<k> with new 64-byte values every round, commits, fences); Put/Commit loops
 * (overwriting "a" and "b", keys p.<i> without commit); last the peer Gets (each rank puts
 * just enough keys g.<n> that every rank reads each (peer, key) pair once). A process's
 * committed data travels again with each collecting fence (with new keys every round both
 * libraries' fences slowed down round after round) and OpenPMIx's commit sends all of it,
 * so the loops keep that data small and the peer Gets' many keys come last.
 *
 * A collecting round is timed three ways: the fence alone (from the end of PMIx_Commit),
 * the commit and the fence ("commit+fence(collect)"), and the whole round with the Puts.
 * A library whose commit returns before the server has handled it (pmix-rs) moves the
 * server's handling of every rank's commit into its fence; the second figure holds it in
 * both.
 *
 * Every value read is checked: a peer's key must hold exactly what that peer put (the
 * string names the rank, the key and the repetition), job data must be what it was at the
 * first read. Each rank counts its mismatches; rank 0 sums them over all ranks (each rank
 * puts its count and its init time, a collecting fence, rank 0 gets them) and prints
 * "# value mismatches over all ranks: <n>". The exit status is 1 after any PMIx error,
 * 3 if any value mismatched, 2 for a usage error, 0 otherwise.
 */
#include <pmix.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define VAL_LEN 64 /* bytes of every string value put, the terminating NUL included */
#define NCOLLECT 10 /* keys each rank puts before a collecting fence */

static pmix_proc_t me;
static uint32_t np = 1;
static int iters = 200, reps = 5, solo = 0;
static uint64_t mismatches = 0;
static int is_rank0 = 0;

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* die_on: any PMIx error ends the program with status 1 and a line saying which call. */
static void die_on(pmix_status_t rc, const char *what)
{
    if (PMIX_SUCCESS == rc) {
        return;
    }
    fprintf(stderr, "pmix_bench: rank %u: %s failed: %s (%d)\n", (unsigned)me.rank, what,
            PMIx_Error_string(rc), (int)rc);
    exit(1);
}

/* The value rank `rank` puts under `key` in repetition `rep`: 63 characters + NUL. */
static void make_value(char *out, uint32_t rank, const char *key, int rep)
{
    int n = snprintf(out, VAL_LEN, "rank=%u key=%s rep=%d ", (unsigned)rank, key, rep);
    if (n < 0 || n > VAL_LEN - 1) {
        n = VAL_LEN - 1;
    }
    memset(out + n, '.', (size_t)(VAL_LEN - 1 - n));
    out[VAL_LEN - 1] = '\0';
}

static void put_string(const char *key, char *val)
{
    pmix_value_t v;
    v.type = PMIX_STRING;
    v.data.string = val;
    die_on(PMIx_Put(PMIX_GLOBAL, key, &v), "PMIx_Put");
}

/* get_check: Get a peer's string key and count a mismatch unless it is exactly `want`. */
static void get_check(const pmix_proc_t *peer, const char *key, const char *want)
{
    pmix_value_t *val = NULL;
    die_on(PMIx_Get(peer, key, NULL, 0, &val), "PMIx_Get (peer key)");
    if (NULL == val || PMIX_STRING != val->type || NULL == val->data.string
        || 0 != strcmp(val->data.string, want)) {
        if (mismatches < 5) {
            fprintf(stderr, "pmix_bench: rank %u: %s of rank %u is \"%s\", want \"%s\"\n",
                    (unsigned)me.rank, key, (unsigned)peer->rank,
                    (NULL != val && PMIX_STRING == val->type && NULL != val->data.string)
                        ? val->data.string
                        : "(not a string)",
                    want);
        }
        mismatches++;
    }
    if (NULL != val) {
        PMIX_VALUE_RELEASE(val);
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* report: rank 0 prints the median, minimum and maximum of xs[0..n). */
static void report(const char *op, double *xs, int n)
{
    if (!is_rank0 || n < 1) {
        return;
    }
    qsort(xs, (size_t)n, sizeof(*xs), cmp_double);
    double med = (n % 2) ? xs[n / 2] : (xs[n / 2 - 1] + xs[n / 2]) / 2.0;
    printf("%-36s %12.3f us/op median  (min %.3f, max %.3f; %d samples)\n", op, med, xs[0],
           xs[n - 1], n);
    printf("RESULT np=%u op=%s median_us=%.3f min_us=%.3f max_us=%.3f\n", (unsigned)np, op, med,
           xs[0], xs[n - 1]);
    fflush(stdout);
}

/* Whether this rank runs the non-collective loops. */
static int runs_local(void)
{
    return !solo || is_rank0;
}

static void fence(int collect)
{
    pmix_info_t info;
    bool flag = true;
    if (collect) {
        PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &flag, PMIX_BOOL);
        die_on(PMIx_Fence(NULL, 0, &info, 1), "PMIx_Fence (collect)");
        PMIX_INFO_DESTRUCT(&info);
    } else {
        die_on(PMIx_Fence(NULL, 0, NULL, 0), "PMIx_Fence");
    }
}

/* Job-level Gets: JOB_SIZE of the namespace, LOCAL_RANK of this process. */
static void bench_job_info(double *xs)
{
    pmix_proc_t wild;
    pmix_value_t *val;
    PMIX_PROC_LOAD(&wild, me.nspace, PMIX_RANK_WILDCARD);
    for (int r = 0; runs_local() && r < reps; r++) {
        double t0 = now_us();
        for (int i = 0; i < iters; i++) {
            val = NULL;
            die_on(PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &val), "PMIx_Get (JOB_SIZE)");
            if (NULL == val || PMIX_UINT32 != val->type || val->data.uint32 != np) {
                mismatches++;
            }
            PMIX_VALUE_RELEASE(val);
        }
        xs[r] = (now_us() - t0) / iters;
    }
    report("get(JOB_SIZE, wildcard)", xs, runs_local() ? reps : 0);

    uint16_t first = 0;
    for (int r = 0; runs_local() && r < reps; r++) {
        double t0 = now_us();
        for (int i = 0; i < iters; i++) {
            val = NULL;
            die_on(PMIx_Get(&me, PMIX_LOCAL_RANK, NULL, 0, &val), "PMIx_Get (LOCAL_RANK)");
            if (NULL == val || PMIX_UINT16 != val->type) {
                mismatches++;
            } else if (0 == r && 0 == i) {
                first = val->data.uint16;
            } else if (val->data.uint16 != first) {
                mismatches++;
            }
            PMIX_VALUE_RELEASE(val);
        }
        xs[r] = (now_us() - t0) / iters;
    }
    report("get(LOCAL_RANK, self)", xs, runs_local() ? reps : 0);
}

/* Read number j (0 .. ITERS x REPS - 1) of "first access" reads peer (rank + 1 + j mod
 * (N-1)) mod N, key g.<j / (N-1)>: every (peer, key) pair once. Alone, a rank reads its own. */
static pmix_rank_t peer_of(int j)
{
    if (np < 2) {
        return me.rank;
    }
    return (me.rank + 1 + (uint32_t)j % (np - 1)) % np;
}

static int key_of(int j)
{
    return np < 2 ? j : (int)((uint32_t)j / (np - 1));
}

/* Peer Gets: each rank puts the keys its peers read (as few as needed to read each one
 * once), one collecting fence, then every rank reads keys of other ranks it never read
 * before, then one peer key over and over. Runs last of the put/fence benchmarks: the
 * keys it adds would otherwise travel with every later commit and collecting fence. */
static void bench_peer_gets(double *xs)
{
    char key[PMIX_MAX_KEYLEN + 1], want[VAL_LEN], val[VAL_LEN];
    int nkeys = key_of(iters * reps - 1) + 1;
    for (int g = 0; g < nkeys; g++) {
        snprintf(key, sizeof(key), "g.%d", g);
        make_value(val, me.rank, key, 0);
        put_string(key, val);
    }
    die_on(PMIx_Commit(), "PMIx_Commit");
    fence(1);

    pmix_proc_t peer;
    PMIX_PROC_LOAD(&peer, me.nspace, 0);
    for (int r = 0; runs_local() && r < reps; r++) {
        double t = 0;
        for (int i = 0; i < iters; i++) {
            int j = r * iters + i;
            peer.rank = peer_of(j);
            snprintf(key, sizeof(key), "g.%d", key_of(j));
            make_value(want, peer.rank, key, 0);
            double t0 = now_us();
            get_check(&peer, key, want);
            t += now_us() - t0;
        }
        xs[r] = t / iters;
    }
    report("get(peer key, first access)", xs, runs_local() ? reps : 0);

    peer.rank = peer_of(0);
    make_value(want, peer.rank, "g.0", 0);
    for (int r = 0; runs_local() && r < reps; r++) {
        double t0 = now_us();
        for (int i = 0; i < iters; i++) {
            get_check(&peer, "g.0", want);
        }
        xs[r] = (now_us() - t0) / iters;
    }
    report("get(peer key, repeated)", xs, runs_local() ? reps : 0);
}

static void bench_fences(double *xs, double *ys)
{
    for (int r = 0; r < reps; r++) {
        double t0 = now_us();
        for (int i = 0; i < iters; i++) {
            fence(0);
        }
        xs[r] = (now_us() - t0) / iters;
    }
    report("fence(no data)", xs, reps);

    /* The same NCOLLECT keys every round with new values, so that the data collected stays
     * the size of one round (all of a process's committed data travels with each fence). Read once, after the last round: every peer's keys must hold the
     * last round's values (a peer cannot put again before this rank's next fence). */
    char key[PMIX_MAX_KEYLEN + 1], val[VAL_LEN], want[VAL_LEN];
    double *zs = calloc((size_t)reps, sizeof(double));
    if (NULL == zs) {
        fprintf(stderr, "pmix_bench: out of memory\n");
        exit(1);
    }
    for (int r = 0; r < reps; r++) {
        double tf = 0, tcf = 0, tall = 0;
        for (int i = 0; i < iters; i++) {
            int round = r * iters + i;
            double t0 = now_us();
            for (int k = 0; k < NCOLLECT; k++) {
                snprintf(key, sizeof(key), "c.%d", k);
                make_value(val, me.rank, key, round);
                put_string(key, val);
            }
            double tc = now_us();
            die_on(PMIx_Commit(), "PMIx_Commit");
            double t1 = now_us();
            fence(1);
            double t2 = now_us();
            tf += t2 - t1;
            tcf += t2 - tc;
            tall += t2 - t0;
        }
        xs[r] = tf / iters;
        zs[r] = tcf / iters;
        ys[r] = tall / iters;
    }
    pmix_proc_t peer;
    PMIX_PROC_LOAD(&peer, me.nspace, 0);
    for (uint32_t p = 0; p < np; p++) {
        if (p == me.rank && np > 1) {
            continue;
        }
        peer.rank = p;
        for (int k = 0; k < NCOLLECT; k++) {
            snprintf(key, sizeof(key), "c.%d", k);
            make_value(want, p, key, reps * iters - 1);
            get_check(&peer, key, want);
        }
    }
    report("fence(collect, 10x64B/rank)", xs, reps);
    report("commit+fence(collect)", zs, reps);
    report("put10x64B+commit+fence(collect)", ys, reps);
    free(zs);
}

/* Put and Commit loops. OpenPMIx's commit sends all of a process's data, so the loops
 * keep it small: put64+commit and commit overwrite one key each ("a", "b"); the puts
 * without commit use keys p.<i>, the same ones in every repetition. Never read. */
static void bench_puts(double *xs)
{
    char key[PMIX_MAX_KEYLEN + 1], val[VAL_LEN];
    for (int r = 0; runs_local() && r < reps; r++) {
        double t0 = now_us();
        for (int i = 0; i < iters; i++) {
            make_value(val, me.rank, "a", r);
            put_string("a", val);
            die_on(PMIx_Commit(), "PMIx_Commit");
        }
        xs[r] = (now_us() - t0) / iters;
    }
    report("put64+commit", xs, runs_local() ? reps : 0);

    for (int r = 0; runs_local() && r < reps; r++) {
        double t = 0;
        for (int i = 0; i < iters; i++) {
            make_value(val, me.rank, "b", r);
            put_string("b", val);
            double t0 = now_us();
            die_on(PMIx_Commit(), "PMIx_Commit");
            t += now_us() - t0;
        }
        xs[r] = t / iters;
    }
    report("commit (after 1 put)", xs, runs_local() ? reps : 0);

    for (int r = 0; runs_local() && r < reps; r++) {
        double t0 = now_us();
        for (int i = 0; i < iters; i++) {
            snprintf(key, sizeof(key), "p.%d", i);
            make_value(val, me.rank, key, r);
            put_string(key, val);
        }
        xs[r] = (now_us() - t0) / iters;
        die_on(PMIx_Commit(), "PMIx_Commit");
    }
    report("put64 (no commit)", xs, runs_local() ? reps : 0);
}

/* Every rank puts its PMIx_Init time and mismatch count; rank 0 reads them all, reports
 * "init" over the ranks and the sum of mismatches. Returns that sum on rank 0. */
static uint64_t gather_stats(double init_us)
{
    pmix_value_t v;
    v.type = PMIX_DOUBLE;
    v.data.dval = init_us;
    die_on(PMIx_Put(PMIX_GLOBAL, "bench.init_us", &v), "PMIx_Put");
    v.type = PMIX_UINT64;
    v.data.uint64 = mismatches;
    die_on(PMIx_Put(PMIX_GLOBAL, "bench.mismatches", &v), "PMIx_Put");
    die_on(PMIx_Commit(), "PMIx_Commit");
    fence(1);
    if (!is_rank0) {
        return 0;
    }
    double *inits = calloc(np, sizeof(double));
    uint64_t sum = 0;
    pmix_proc_t peer;
    PMIX_PROC_LOAD(&peer, me.nspace, 0);
    if (NULL == inits) {
        fprintf(stderr, "pmix_bench: out of memory\n");
        exit(1);
    }
    for (uint32_t p = 0; p < np; p++) {
        pmix_value_t *val = NULL;
        peer.rank = p;
        die_on(PMIx_Get(&peer, "bench.init_us", NULL, 0, &val), "PMIx_Get (bench.init_us)");
        inits[p] = (NULL != val && PMIX_DOUBLE == val->type) ? val->data.dval : -1.0;
        PMIX_VALUE_RELEASE(val);
        val = NULL;
        die_on(PMIx_Get(&peer, "bench.mismatches", NULL, 0, &val), "PMIx_Get (bench.mismatches)");
        sum += (NULL != val && PMIX_UINT64 == val->type) ? val->data.uint64 : 1;
        PMIX_VALUE_RELEASE(val);
    }
    report("init", inits, (int)np);
    free(inits);
    return sum;
}

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s [-n ITERS] [-r REPS] [-s]\n", prog);
    exit(2);
}

static int positive(const char *s, const char *prog)
{
    char *end = NULL;
    long v = strtol(s, &end, 10);
    if (NULL == end || '\0' != *end || v < 1 || v > 10000000) {
        usage(prog);
    }
    return (int)v;
}

int main(int argc, char **argv)
{
    int opt;
    while (-1 != (opt = getopt(argc, argv, "n:r:s"))) {
        switch (opt) {
        case 'n': iters = positive(optarg, argv[0]); break;
        case 'r': reps = positive(optarg, argv[0]); break;
        case 's': solo = 1; break;
        default: usage(argv[0]);
        }
    }
    if (optind != argc) {
        usage(argv[0]);
    }

    double t0 = now_us();
    die_on(PMIx_Init(&me, NULL, 0), "PMIx_Init");
    double init_us = now_us() - t0;
    is_rank0 = (0 == me.rank);

    pmix_proc_t wild;
    pmix_value_t *val = NULL;
    PMIX_PROC_LOAD(&wild, me.nspace, PMIX_RANK_WILDCARD);
    die_on(PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &val), "PMIx_Get (JOB_SIZE)");
    if (NULL == val || PMIX_UINT32 != val->type || 0 == val->data.uint32) {
        fprintf(stderr, "pmix_bench: PMIX_JOB_SIZE is not a positive uint32\n");
        exit(1);
    }
    np = val->data.uint32;
    PMIX_VALUE_RELEASE(val);
    if (is_rank0) {
        printf("# pmix_bench: PMIx %s, nspace %s, np=%u, iters=%d, reps=%d, mode=%s\n",
               PMIx_Get_version(), me.nspace, (unsigned)np, iters, reps, solo ? "solo" : "all");
        fflush(stdout);
    }

    double *xs = calloc((size_t)reps, sizeof(double));
    double *ys = calloc((size_t)reps, sizeof(double));
    if (NULL == xs || NULL == ys) {
        fprintf(stderr, "pmix_bench: out of memory\n");
        return 1;
    }
    bench_job_info(xs);
    bench_fences(xs, ys);
    bench_puts(xs);
    bench_peer_gets(xs);
    uint64_t bad = gather_stats(init_us);

    t0 = now_us();
    die_on(PMIx_Finalize(NULL, 0), "PMIx_Finalize");
    xs[0] = now_us() - t0;
    report("finalize", xs, 1);

    int cycles = iters / 20 > 0 ? iters / 20 : 1;
    for (int r = 0; runs_local() && r < reps; r++) {
        pmix_proc_t again;
        t0 = now_us();
        for (int i = 0; i < cycles; i++) {
            die_on(PMIx_Init(&again, NULL, 0), "PMIx_Init (again)");
            die_on(PMIx_Finalize(NULL, 0), "PMIx_Finalize (again)");
        }
        xs[r] = (now_us() - t0) / cycles;
    }
    report("init+finalize", xs, runs_local() ? reps : 0);

    if (is_rank0) {
        printf("# value mismatches over all ranks: %llu\n", (unsigned long long)bad);
    }
    free(xs);
    free(ys);
    return bad ? 3 : 0;
}
