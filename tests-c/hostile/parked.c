/* parked: a client floods its server with Gets nobody can answer (docs/ROBUSTNESS.md
 * HC10, HC11; the server's per-client cap on parked requests, server/budget.rs). Run
 * under pmixrun -n 3 (see tests-c/hostile/run.sh):
 *
 *   parked small N   rank 0 posts N PMIx_Get_nb of keys of rank 1 that nobody commits
 *   parked large N   the same with 500-character keys and a 1 KiB info each
 *
 * Rank 0 checks that every request past the server's cap is answered at once with
 * PMIX_ERR_OUT_OF_RESOURCE (the count cap exactly for "small", the byte cap first for
 * "large") and that pmixrun's VmHWM stays under PARKED_RSS_MB (default 160). Ranks 1
 * and 2 meanwhile run put/commit/fence/get rounds between themselves, and go on until
 * rank 0 is through its flood. Then rank 1 finalizes (its waiters get an answer), and
 * ranks 0 and 2 fence and read each other's data normally.
 *
 * Environment: PARKED_MAX (the server's count cap, default 65536), PARKED_RSS_MB. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

#include "check.h"
#include "hostile/procfs.h"

static pmix_proc_t me;
static atomic_long answered, refused, others, last_seen;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static long env_long(const char *name, long dflt)
{
    const char *v = getenv(name);
    return v && *v ? strtol(v, NULL, 10) : dflt;
}

static void put_u32(const char *key, uint32_t v)
{
    pmix_value_t val;
    PMIX_VALUE_LOAD(&val, &v, PMIX_UINT32);
    CHECK_RC(PMIx_Put(PMIX_GLOBAL, key, &val), PMIX_SUCCESS, "Put");
    PMIX_VALUE_DESTRUCT(&val);
}

/* `key` of `rank`: its value, or -1 with *rc set. `immediate` asks the server now, once. */
static long get_u32(pmix_rank_t rank, const char *key, bool immediate, pmix_status_t *rc)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    pmix_info_t info[2];
    bool t = true;
    long r = -1;
    PMIX_LOAD_PROCID(&p, me.nspace, rank);
    PMIX_INFO_LOAD(&info[0], PMIX_IMMEDIATE, &t, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[1], PMIX_GET_REFRESH_CACHE, &t, PMIX_BOOL);
    *rc = PMIx_Get(&p, key, immediate ? info : NULL, immediate ? 2 : 0, &v);
    if (*rc == PMIX_SUCCESS && v && v->type == PMIX_UINT32) r = v->data.uint32;
    if (v) PMIX_VALUE_RELEASE(v);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    return r;
}

static pmix_status_t fence_of(pmix_rank_t a, pmix_rank_t b)
{
    pmix_proc_t two[2];
    pmix_info_t info;
    bool t = true;
    PMIX_LOAD_PROCID(&two[0], me.nspace, a);
    PMIX_LOAD_PROCID(&two[1], me.nspace, b);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &t, PMIX_BOOL);
    pmix_status_t rc = PMIx_Fence(two, 2, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    return rc;
}

static void got(pmix_status_t status, pmix_value_t *kv, void *cbdata)
{
    (void)kv;
    if (status == PMIX_ERR_OUT_OF_RESOURCE)
        atomic_fetch_add(&refused, 1);
    else
        atomic_fetch_add(&others, 1);
    atomic_store(&last_seen, (long)(uintptr_t)cbdata);
    atomic_fetch_add(&answered, 1);
}

/* Wait up to `secs` until `cond` holds (re-evaluated every 10 ms). */
#define WAIT_FOR(cond, secs)                                                              \
    do {                                                                                  \
        double until_ = now_s() + (secs);                                                 \
        while (!(cond) && now_s() < until_) usleep(10000);                                \
    } while (0)

/* Rank 0: the flood. Returns how many requests were parked (not refused at once). */
static long flood(long n, bool large)
{
    pmix_proc_t one;
    pmix_info_t pad;
    char key[512], big[1025];
    memset(big, 'p', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    PMIX_LOAD_PROCID(&one, me.nspace, 1);
    PMIX_INFO_LOAD(&pad, "parked.pad", big, PMIX_STRING);
    atomic_store(&last_seen, -1);
    double t0 = now_s();
    long bad = 0;
    for (long i = 0; i < n; i++) {
        if (large) {
            int w = snprintf(key, sizeof key, "never.%ld.", i);
            memset(key + w, 'k', 500 - (size_t)w);
            key[500] = '\0';
        } else {
            snprintf(key, sizeof key, "never.%ld", i);
        }
        pmix_status_t rc = PMIx_Get_nb(&one, key, large ? &pad : NULL, large ? 1 : 0, got,
                                       (void *)(uintptr_t)i);
        if (rc != PMIX_SUCCESS && bad++ < 3) printf("# Get_nb %ld: rc %d\n", i, rc);
    }
    double t1 = now_s();
    /* Replies come in order: once the last request's is here, every refusal is. */
    WAIT_FOR(atomic_load(&last_seen) == n - 1, 90);
    long parked = n - atomic_load(&answered);
    printf("# %ld Get_nb posted in %.1f s, answered up to the last in %.1f s: %ld refused, "
           "%ld other answers, %ld parked\n", n, t1 - t0, now_s() - t0,
           (long)atomic_load(&refused), (long)atomic_load(&others), parked);
    CHECK(bad == 0, "%ld Get_nb calls failed", bad);
    CHECK(atomic_load(&last_seen) == n - 1, "the last request was answered");
    CHECK(atomic_load(&others) == 0, "nothing but PMIX_ERR_OUT_OF_RESOURCE answered yet");
    PMIX_INFO_DESTRUCT(&pad);
    return parked;
}

static int flooder(long n, bool large)
{
    pid_t server = getppid();
    usage_t before = usage_of(server);
    print_usage("pmixrun before", before);
    long parked = flood(n, large);
    long cap = env_long("PARKED_MAX", 65536);
    if (large)
        CHECK(parked > 10000 && parked < cap, "large requests: the byte cap parks %ld (count "
              "cap %ld)", parked, cap);
    else
        CHECK(parked == cap, "parked %ld, the cap is %ld", parked, cap);
    usage_t after = usage_of(server);
    print_usage("pmixrun after the flood", after);
    print_usage("this client after the flood", usage_of(0));
    long bound = env_long("PARKED_RSS_MB", 160) * 1024;
    CHECK(after.hwm_kb > 0 && after.hwm_kb < bound, "pmixrun VmHWM %ld KiB, limit %ld KiB",
          after.hwm_kb, bound);
    /* Tell ranks 1 and 2; rank 1 finalizes, which answers every parked Get. */
    put_u32("parked.done", (uint32_t)parked);
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit");
    WAIT_FOR(atomic_load(&answered) == n, 60);
    CHECK(atomic_load(&answered) == n, "all %ld answered once rank 1 finalized (%ld)", n,
          (long)atomic_load(&answered));
    CHECK_RC(fence_of(0, 2), PMIX_SUCCESS, "fence of ranks 0 and 2 after the flood");
    pmix_status_t rc;
    CHECK(get_u32(2, "good.k", false, &rc) == 102, "rank 2's key after the flood (rc %d)", rc);
    return 0;
}

/* Ranks 1 and 2: rounds until rank 1 has seen rank 0's "parked.done". */
static void rounds(void)
{
    pmix_rank_t peer = 3 - me.rank;
    int bad = 0, n = 0, before_done = 0;
    double t0 = now_s(), worst = 0;
    for (uint32_t i = 0; i < 100000; i++) {
        double a = now_s();
        pmix_status_t rc;
        char key[64];
        bool seen = me.rank == 1 && get_u32(0, "parked.done", true, &rc) >= 0;
        snprintf(key, sizeof key, "round.%u", i);
        put_u32(key, i * 10 + (seen ? 1 : 0));
        if (PMIx_Commit() != PMIX_SUCCESS) bad++;
        if (fence_of(1, 2) != PMIX_SUCCESS) bad++;
        long v = get_u32(1, key, false, &rc);
        if (v < 0 || (uint32_t)v / 10 != i) bad++;
        if (get_u32(peer, key, false, &rc) < 0) bad++;
        n++;
        if (now_s() - a > worst) worst = now_s() - a;
        if (v < 0 || v % 10 == 1) break;
        before_done++;
        usleep(5000);
    }
    CHECK(bad == 0 && before_done > 0, "%d put/commit/fence/get rounds between ranks 1 and 2 "
          "(%d during the flood): %d failed (%.2f s, slowest %.3f s)", n, before_done, bad,
          now_s() - t0, worst);
}

int main(int argc, char **argv)
{
    bool large = argc > 1 && 0 == strcmp(argv[1], "large");
    long n = argc > 2 ? strtol(argv[2], NULL, 10) : 1000000;
    CHECK_RC(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS, "PMIx_Init");
    put_u32("good.k", 100 + me.rank);
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit");
    if (me.rank == 0) {
        flooder(n, large);
    } else {
        rounds();
        if (me.rank == 2) {
            CHECK_RC(fence_of(0, 2), PMIX_SUCCESS, "fence of ranks 0 and 2 after the flood");
            pmix_status_t rc;
            CHECK(get_u32(0, "good.k", false, &rc) == 100, "rank 0's key (rc %d)", rc);
        }
    }
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
