/* scale: many ranks on one machine (e.g. pmixrun -n 256): PMIx_Init, one Put + Commit,
 * one collecting fence, then a Get of every peer's key, or of the next PEERS ranks' keys
 * (values checked), a plain fence and
 * PMIx_Finalize. Rank 0 prints the timings (median and maximum over ranks, shared through
 * one more collecting fence), the ranks' resident memory (VmRSS, VmHWM), their
 * Private_Dirty (/proc/self/smaps_rollup) before Init, after Init and after the first
 * fence, and malloc's bytes in use (mallinfo2) after Init and after the fence; exit
 * status 0 only if every rank read every value correctly.
 *
 *   scale [KEYBYTES [PEERS]]   value size in bytes (default 64); how many peers each
 *                              rank reads (default 0: every rank, itself included) */
#define _GNU_SOURCE
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <malloc.h>

static pmix_proc_t me;

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void die(const char *what, pmix_status_t rc)
{
    fprintf(stderr, "scale [%s:%u]: %s failed: %s\n", me.nspace, me.rank, what,
            PMIx_Error_string(rc));
    exit(1);
}

static void value_of(char *buf, size_t len, uint32_t rank)
{
    int n = snprintf(buf, len, "rank-%u-", rank);
    for (size_t i = n; i + 1 < len; i++)
        buf[i] = 'a' + (char)((i + rank) % 26);
    buf[len - 1] = '\0';
}

static long status_kib(const char *field)
{
    size_t flen = strlen(field);
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (0 == strncmp(line, field, flen))
            kib = atol(line + flen);
    if (f)
        fclose(f);
    return kib;
}

/* This process's private dirty memory (what it costs the machine alone), KiB. */
static long private_dirty_kib(void)
{
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (0 == strncmp(line, "Private_Dirty:", 14))
            kib = atol(line + 14);
    if (f)
        fclose(f);
    return kib;
}

/* Bytes malloc has handed out and not been given back, KiB. */
static long heap_kib(void)
{
    struct mallinfo2 mi = mallinfo2();
    return (long)(mi.uordblks + mi.hblkhd) / 1024;
}

static void collect_fence(void)
{
    pmix_info_t info;
    bool yes = true;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    pmix_status_t rc = PMIx_Fence(NULL, 0, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    if (PMIX_SUCCESS != rc)
        die("PMIx_Fence(collect)", rc);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void put_double(const char *key, double d)
{
    pmix_value_t v;
    v.type = PMIX_DOUBLE;
    v.data.dval = d;
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &v);
    if (PMIX_SUCCESS != rc)
        die("PMIx_Put", rc);
}

int main(int argc, char **argv)
{
    size_t len = argc > 1 ? (size_t)atol(argv[1]) : 64;
    if (len < 16)
        len = 16;
    long peers = argc > 2 ? atol(argv[2]) : 0;
    long pd_start = private_dirty_kib();
    double t0 = now_us();
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    double t_init = now_us() - t0;
    if (PMIX_SUCCESS != rc)
        die("PMIx_Init", rc);
    long rss_init = status_kib("VmRSS:");
    long pd_init = private_dirty_kib(), heap_init = heap_kib();
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *val = NULL;
    if (PMIX_SUCCESS != (rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &val)))
        die("PMIx_Get(JOB_SIZE)", rc);
    uint32_t n = val->data.uint32;
    PMIX_VALUE_RELEASE(val);
    uint32_t nget = peers > 0 && (uint32_t)peers < n ? (uint32_t)peers : n;

    char *buf = malloc(len), *want = malloc(len);
    value_of(buf, len, me.rank);
    pmix_value_t v;
    v.type = PMIX_STRING;
    v.data.string = buf;
    if (PMIX_SUCCESS != (rc = PMIx_Put(PMIX_GLOBAL, "scale.key", &v)))
        die("PMIx_Put", rc);
    if (PMIX_SUCCESS != (rc = PMIx_Commit()))
        die("PMIx_Commit", rc);
    t0 = now_us();
    collect_fence();
    double t_fence = now_us() - t0;
    long pd_fence = private_dirty_kib(), heap_fence = heap_kib();

    long bad = 0;
    t0 = now_us();
    for (uint32_t i = 0; i < nget; i++) {
        /* Every rank from 0, or the next `peers` ranks after this one. */
        uint32_t r = nget == n ? i : (me.rank + 1 + i) % n;
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, me.nspace, r);
        if (PMIX_SUCCESS != (rc = PMIx_Get(&p, "scale.key", NULL, 0, &val)))
            die("PMIx_Get(peer key)", rc);
        value_of(want, len, r);
        bad += val->type != PMIX_STRING || 0 != strcmp(val->data.string, want);
        PMIX_VALUE_RELEASE(val);
    }
    double t_get = now_us() - t0;
    long rss_end = status_kib("VmRSS:");
    long hwm_end = status_kib("VmHWM:");

    /* Share the numbers with rank 0. */
    put_double("scale.init", t_init);
    put_double("scale.fence", t_fence);
    put_double("scale.get", t_get);
    put_double("scale.bad", (double)bad);
    put_double("scale.rss0", (double)rss_init);
    put_double("scale.rss1", (double)rss_end);
    put_double("scale.hwm", (double)hwm_end);
    put_double("scale.pd0", (double)pd_start);
    put_double("scale.pd1", (double)pd_init);
    put_double("scale.pd2", (double)pd_fence);
    put_double("scale.heap1", (double)heap_init);
    put_double("scale.heap2", (double)heap_fence);
    if (PMIX_SUCCESS != (rc = PMIx_Commit()))
        die("PMIx_Commit", rc);
    collect_fence();
    int status = bad != 0;
    if (me.rank == 0) {
        const char *keys[] = {"scale.init", "scale.fence", "scale.get", "scale.rss0",
                              "scale.rss1", "scale.hwm", "scale.pd0", "scale.pd1",
                              "scale.pd2", "scale.heap1", "scale.heap2", "scale.bad"};
        const char *what[] = {"PMIx_Init us", "collecting fence us",
                              nget == n ? "Get of every peer's key us (all peers)"
                                        : "Get of the next peers' keys us",
                              "RSS after init KiB",
                              "RSS after the Gets KiB", "peak RSS (VmHWM) KiB",
                              "Private_Dirty before init KiB", "Private_Dirty after init KiB",
                              "Private_Dirty after the fence KiB", "heap in use after init KiB",
                              "heap in use after the fence KiB", "wrong values"};
        double *x = calloc(n, sizeof(double));
        printf("scale: np=%u, %zu-byte values, %u peers read\n", n, len, nget);
        const int nkeys = (int)(sizeof keys / sizeof keys[0]);
        for (int k = 0; k < nkeys; k++) {
            double sum = 0;
            for (uint32_t r = 0; r < n; r++) {
                pmix_proc_t p;
                PMIX_LOAD_PROCID(&p, me.nspace, r);
                if (PMIX_SUCCESS != (rc = PMIx_Get(&p, keys[k], NULL, 0, &val)))
                    die("PMIx_Get(result)", rc);
                x[r] = val->data.dval;
                sum += x[r];
                PMIX_VALUE_RELEASE(val);
            }
            qsort(x, n, sizeof(double), cmp_double);
            printf("  %-40s median %10.0f  max %10.0f\n", what[k], x[n / 2], x[n - 1]);
            if (k == nkeys - 1 && sum > 0)
                status = 1;
        }
        printf("scale: %s\n", status ? "FAILED" : "ok");
        free(x);
    }
    if (PMIX_SUCCESS != (rc = PMIx_Fence(NULL, 0, NULL, 0)))
        die("PMIx_Fence", rc);
    if (PMIX_SUCCESS != (rc = PMIx_Finalize(NULL, 0)))
        die("PMIx_Finalize", rc);
    free(buf);
    free(want);
    return status;
}
