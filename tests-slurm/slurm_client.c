/* slurm_client: PMIx client cases run by srun --mpi=pmix (tests-slurm/run.sh).
 *
 *   slurm_client info        job and node info against Slurm's own environment
 *                            (SLURM_PROCID, SLURM_NTASKS, SLURM_NNODES, SLURM_NODEID,
 *                            SLURM_LOCALID, SLURMD_NODENAME), every peer's node and local
 *                            rank, PMIX_LOCAL_PEERS, then Put/Commit/collecting Fence and
 *                            a Get of every peer's value
 *   slurm_client killfence   the last rank kills itself with SIGKILL while the others
 *                            wait in a collecting fence (the step must end promptly)
 *   slurm_client timeout [fence]
 *                            rank 0 Gets a key the last rank never commits with
 *                            PMIX_TIMEOUT 1: PMIX_ERR_TIMEOUT after about a second; with
 *                            "fence" every rank but the last also calls a Fence over the
 *                            whole job with PMIX_TIMEOUT 1 (one node only)
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

/* PMIX_LOCAL_PEERS must list exactly the ranks whose PMIX_NODEID is mine. */
static void check_local_peers(const long *node, uint32_t n, long mynode)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = mn_get(me.nspace, PMIX_RANK_WILDCARD, PMIX_LOCAL_PEERS, NULL, NULL,
                              0, &v);
    char want[1024] = "", got[1024] = "";
    for (uint32_t r = 0; r < n; r++) {
        if (node[r] == mynode) {
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

static void exchange(uint32_t n)
{
    CHECK_RC(mn_put_u32(PMIX_GLOBAL, "slurm.val", 1000 + me.rank), PMIX_SUCCESS, "Put");
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit");
    CHECK_RC(mn_fence(true), PMIX_SUCCESS, "collecting Fence");
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

    long node[256], lrank[256], count[256] = {0};
    CHECK(n <= 256, "at most 256 ranks");
    for (uint32_t r = 0; r < n && r < 256; r++) {
        node[r] = get_num(r, PMIX_NODEID);
        lrank[r] = get_num(r, PMIX_LOCAL_RANK);
        if (node[r] >= 0 && node[r] < 256) count[node[r]]++;
    }
    /* Local ranks on every node are 0..count-1, each once. */
    uint32_t bad = 0;
    for (uint32_t r = 0; r < n && r < 256; r++) {
        if (node[r] < 0 || node[r] >= nnodes || lrank[r] < 0 || lrank[r] >= count[node[r]]) {
            bad++;
        }
        for (uint32_t s = 0; s < r; s++) {
            bad += node[s] == node[r] && lrank[s] == lrank[r];
        }
    }
    CHECK(bad == 0, "rank %u: peers' node ids and local ranks consistent", me.rank);
    CHECK(get_num(PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE) == count[mynode],
          "rank %u: local size %ld", me.rank, count[mynode]);
    check_local_peers(node, n, mynode);
    exchange(n);
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
