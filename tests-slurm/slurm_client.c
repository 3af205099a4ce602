/* slurm_client: PMIx client cases run by srun --mpi=pmix (tests-slurm/run.sh).
 *
 *   slurm_client info        job and node info against Slurm's own environment
 *                            (SLURM_PROCID, SLURM_NTASKS, SLURM_NNODES, SLURM_NODEID,
 *                            SLURM_LOCALID, SLURMD_NODENAME), every peer's host, the local
 *                            ranks of my node, PMIX_LOCAL_PEERS, then Put/Commit/collecting
 *                            Fence and a Get of every peer's value
 *   slurm_client exchange [nocollect]
 *                            Put/Commit/Fence (collecting or not) and a Get of every
 *                            rank's value, then a final Fence
 *   slurm_client killfence   the last rank kills itself with SIGKILL while the others
 *                            wait in a collecting fence (the step must end promptly)
 *   slurm_client timeout [fence]
 *                            rank 0 Gets a key the last rank never commits with
 *                            PMIX_TIMEOUT 1: PMIX_ERR_TIMEOUT after about a second; with
 *                            "fence" every rank but the last first calls a Fence over the
 *                            whole job with PMIX_TIMEOUT 1 (one node only); without, the
 *                            last rank commits 3 s later and all end with a Fence
 */
#include <signal.h>
#include <sys/time.h>
#include <unistd.h>

#include "mn.h"

static pmix_proc_t me;

static double now(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + tv.tv_usec / 1e6;
}

static long env_num(const char *name)
{
    const char *v = getenv(name);
    CHECK(v != NULL, "%s is set", name);
    return v ? strtol(v, NULL, 10) : -1;
}

/* Get a uint16/uint32 key as a long (-1 on failure, reported). */
static long get_num(pmix_rank_t r, const char *key)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = mn_get(me.nspace, r, key, NULL, NULL, 0, &v);
    long out = -1;
    if (PMIX_SUCCESS == rc && v && v->type == PMIX_UINT16) {
        out = v->data.uint16;
    } else if (PMIX_SUCCESS == rc && v && v->type == PMIX_UINT32) {
        out = (long)v->data.uint32;
    }
    CHECK(out >= 0, "rank %u: Get %s of rank %u: %s (type %s)", me.rank, key, r,
          PMIx_Error_string(rc), v ? PMIx_Data_type_string(v->type) : "-");
    if (v) PMIX_VALUE_RELEASE(v);
    return out;
}

static void check_hostname(void)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = mn_get(me.nspace, me.rank, PMIX_HOSTNAME, NULL, NULL, 0, &v);
    const char *want = getenv("SLURMD_NODENAME");
    CHECK(PMIX_SUCCESS == rc && v && v->type == PMIX_STRING && want &&
              0 == strcmp(v->data.string, want),
          "rank %u: PMIX_HOSTNAME %s, SLURMD_NODENAME %s", me.rank,
          (v && v->type == PMIX_STRING) ? v->data.string : PMIx_Error_string(rc),
          want ? want : "(unset)");
    if (v) PMIX_VALUE_RELEASE(v);
}

/* PMIX_LOCAL_PEERS must list exactly the ranks on my node. */
static void check_local_peers(const bool *mine, uint32_t n)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = mn_get(me.nspace, PMIX_RANK_WILDCARD, PMIX_LOCAL_PEERS, NULL, NULL,
                              0, &v);
    char want[1024] = "", got[1024] = "";
    for (uint32_t r = 0; r < n; r++) {
        if (mine[r]) {
            size_t l = strlen(want);
            snprintf(want + l, sizeof want - l, "%s%u", l ? "," : "", r);
        }
    }
    if (PMIX_SUCCESS == rc && v && v->type == PMIX_STRING) {
        snprintf(got, sizeof got, "%s", v->data.string);
    }
    CHECK(0 == strcmp(got, want), "rank %u: PMIX_LOCAL_PEERS '%s' want '%s' (%s)", me.rank,
          got, want, PMIx_Error_string(rc));
    if (v) PMIX_VALUE_RELEASE(v);
}

/* Is rank r on the node named `host` (its PMIX_HOSTNAME)? */
static bool on_node(pmix_rank_t r, const char *host)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = mn_get(me.nspace, r, PMIX_HOSTNAME, NULL, NULL, 0, &v);
    bool ok = PMIX_SUCCESS == rc && v && v->type == PMIX_STRING;
    CHECK(ok, "rank %u: PMIX_HOSTNAME of rank %u: %s", me.rank, r, PMIx_Error_string(rc));
    bool same = ok && host && 0 == strcmp(v->data.string, host);
    if (v) PMIX_VALUE_RELEASE(v);
    return same;
}

/* Put/Commit/Fence, then a Get of every rank's value (after a non-collecting fence the
 * remote ones come by direct modex). */
static void exchange(uint32_t n, bool collect)
{
    CHECK_RC(mn_put_u32(PMIX_GLOBAL, "slurm.val", 1000 + me.rank), PMIX_SUCCESS, "Put");
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit");
    CHECK_RC(mn_fence(collect), PMIX_SUCCESS, collect ? "collecting Fence" : "Fence");
    uint32_t bad = 0;
    for (uint32_t r = 0; r < n; r++) {
        uint32_t got = 0;
        pmix_status_t rc = mn_get_u32(me.nspace, r, "slurm.val", NULL, &got);
        if (PMIX_SUCCESS != rc || got != 1000 + r) {
            bad++;
            printf("rank %u: Get slurm.val of %u: %s, %u\n", me.rank, r,
                   PMIx_Error_string(rc), got);
        }
    }
    CHECK(bad == 0, "rank %u: every peer's value after the fence (%u wrong)", me.rank, bad);
}

/* Job and node info. Peers are placed by their PMIX_HOSTNAME: Slurm 22.05 registers every
 * rank's PMIX_NODEID as the registering node's own id, and a remote rank's
 * PMIX_LOCAL_RANK not at all, so only mine are checked. */
static void info_case(uint32_t n)
{
    CHECK(n == (uint32_t)env_num("SLURM_NTASKS"), "rank %u: job size %u", me.rank, n);
    CHECK(me.rank == (pmix_rank_t)env_num("SLURM_PROCID"), "rank %u is SLURM_PROCID",
          me.rank);
    long nnodes = env_num("SLURM_NNODES"), mynode = env_num("SLURM_NODEID");
    CHECK(get_num(PMIX_RANK_WILDCARD, PMIX_NUM_NODES) == nnodes, "rank %u: %ld nodes",
          me.rank, nnodes);
    CHECK(get_num(me.rank, PMIX_NODEID) == mynode, "rank %u: node id %ld", me.rank, mynode);
    CHECK(get_num(me.rank, PMIX_LOCAL_RANK) == env_num("SLURM_LOCALID"),
          "rank %u: local rank is SLURM_LOCALID", me.rank);
    check_hostname();

    bool mine[256];
    long lrank[256], count = 0;
    CHECK(n <= 256, "at most 256 ranks");
    const char *host = getenv("SLURMD_NODENAME");
    for (uint32_t r = 0; r < n && r < 256; r++) {
        mine[r] = on_node(r, host);
        lrank[r] = mine[r] ? get_num(r, PMIX_LOCAL_RANK) : -1;
        count += mine[r];
    }
    /* Local ranks on my node are 0..count-1, each once. */
    uint32_t bad = 0;
    for (uint32_t r = 0; r < n && r < 256; r++) {
        if (mine[r] && (lrank[r] < 0 || lrank[r] >= count)) {
            bad++;
        }
        for (uint32_t s = 0; mine[r] && s < r; s++) {
            bad += mine[s] && lrank[s] == lrank[r];
        }
    }
    CHECK(bad == 0, "rank %u: local ranks of my node's %ld ranks", me.rank, count);
    CHECK(get_num(PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE) == count, "rank %u: local size %ld",
          me.rank, count);
    check_local_peers(mine, n);
    exchange(n, true);
}

static void killfence_case(uint32_t n)
{
    if (me.rank == n - 1) {
        sleep(1);
        printf("rank %u: killing myself in the fence\n", me.rank);
        fflush(stdout);
        raise(SIGKILL);
    }
    pmix_status_t rc = mn_fence(true);
    /* An error is a fine answer; a success is not: a rank never joined. */
    CHECK(PMIX_SUCCESS != rc, "rank %u: Fence with a dead rank returns %s", me.rank,
          PMIx_Error_string(rc));
}

/* Fence over the whole job without the last rank: PMIX_ERR_TIMEOUT. Rank 0 joins first
 * (the others 0.3 s later), so its call lasts the whole second. */
static void fence_timeout(void)
{
    pmix_info_t info[2];
    bool yes = true;
    int secs = 1;
    PMIX_INFO_LOAD(&info[0], PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[1], PMIX_TIMEOUT, &secs, PMIX_INT);
    if (me.rank != 0) {
        usleep(300000);
    }
    double t0 = now();
    pmix_status_t rc = PMIx_Fence(NULL, 0, info, 2);
    double t = now() - t0;
    CHECK_RC(rc, PMIX_ERR_TIMEOUT, "Fence without the last rank, PMIX_TIMEOUT 1");
    CHECK(t < 10 && (me.rank != 0 || t > 0.8), "rank %u: Fence timed out after %.2f s",
          me.rank, t);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
}

static void timeout_case(uint32_t n, bool fence)
{
    if (me.rank == n - 1) {
        sleep(fence ? 4 : 3);
        if (!fence) {
            /* Answers the direct modex still held for rank 0 while its node's
             * slurmstepd is there to take the answer, then the final fence. */
            CHECK_RC(mn_put_u32(PMIX_GLOBAL, "slurm.late", 1), PMIX_SUCCESS, "Put");
            CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit");
            CHECK_RC(mn_fence(false), PMIX_SUCCESS, "final Fence");
        }
        return;
    }
    if (fence) {
        fence_timeout();
    }
    if (me.rank == 0) {
        pmix_value_t *v = NULL;
        double t0 = now();
        pmix_status_t rc = mn_get(me.nspace, n - 1, "slurm.never", NULL, NULL, 1, &v);
        double t = now() - t0;
        CHECK_RC(rc, PMIX_ERR_TIMEOUT, "Get of a key never committed, PMIX_TIMEOUT 1");
        CHECK(t > 0.8 && t < 10, "Get timed out after about 1 s (%.2f s)", t);
        if (v) PMIX_VALUE_RELEASE(v);
    }
    if (!fence) {
        CHECK_RC(mn_fence(false), PMIX_SUCCESS, "final Fence");
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "info";
    uint32_t n = mn_init(&me);
    if (n == 0) {
        CHECK_DONE();
    }
    if (0 == strcmp(mode, "info")) {
        info_case(n);
    } else if (0 == strcmp(mode, "exchange")) {
        exchange(n, !(argc > 2 && 0 == strcmp(argv[2], "nocollect")));
        CHECK_RC(mn_fence(false), PMIX_SUCCESS, "final Fence");
    } else if (0 == strcmp(mode, "killfence")) {
        killfence_case(n);
    } else if (0 == strcmp(mode, "timeout")) {
        timeout_case(n, argc > 2 && 0 == strcmp(argv[2], "fence"));
    } else {
        CHECK(0, "unknown mode %s", mode);
    }
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
