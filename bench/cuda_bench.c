/* cuda_bench: latency of the PMIx-backed CUDA communications object next to PMIx_Fence.
 *
 *   pmixrun -n N cuda_bench [-i ITERATIONS]      (make bench-cuda)
 *
 * Every rank times ITERATIONS of each operation after a warm-up; rank 0 prints the mean
 * per operation (the slowest rank's mean, found with the object's own allreduce) and the
 * ratio to a plain PMIx_Fence (the goal: barrier and 1-element allreduce within 1.5x;
 * the 1000-element line is for information). Waiting for a request polls test() with sched_yield(), as
 * a CUDA wait loop would; the Fence_nb line waits the same way, for comparison. */
#include <pmix.h>
#include <pmix_cuda.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

static const CUhostCommunicationsVtable *vt;
static void *obj;

static int wait_req(void **req)
{
    int flag = 0, rc;
    while ((rc = vt->test(obj, req, &flag)) == 0 && !flag) {
        sched_yield();
    }
    return rc;
}

static volatile int fence_done;
static void fence_cb(pmix_status_t status, void *cbdata)
{
    (void)cbdata;
    fence_done = status == PMIX_SUCCESS ? 1 : -1;
}

enum { FENCE, FENCE_NB, BARRIER, ALLREDUCE, ALLREDUCE_BIG, NKIND };
static const char *names[NKIND] = {"PMIx_Fence", "PMIx_Fence_nb + poll", "barrier",
                                   "allreduce_uint64 (1 element)",
                                   "allreduce_uint64 (1000, info)"};
static cuuint64_t big_in[1000], big_out[1000];

static int run(int kind)
{
    void *req = NULL;
    cuuint64_t one = 1, out = 0;
    switch (kind) {
    case FENCE:
        return PMIx_Fence(NULL, 0, NULL, 0);
    case FENCE_NB:
        fence_done = 0;
        if (PMIx_Fence_nb(NULL, 0, NULL, 0, fence_cb, NULL) != PMIX_SUCCESS) {
            return -1;
        }
        while (!fence_done) {
            sched_yield();
        }
        return fence_done == 1 ? 0 : -1;
    case BARRIER:
        if (vt->barrier(obj, 0, &req) != 0) {
            return -1;
        }
        return wait_req(&req);
    case ALLREDUCE:
        if (vt->allreduce_uint64(obj, 0, &one, &out, 1, CU_COMMS_REDUCTION_OP_SUM, &req) != 0) {
            return -1;
        }
        return wait_req(&req);
    default:
        if (vt->allreduce_uint64(obj, 0, big_in, big_out, 1000, CU_COMMS_REDUCTION_OP_SUM,
                                 &req) != 0) {
            return -1;
        }
        return wait_req(&req);
    }
}

int main(int argc, char **argv)
{
    int iters = 2000, opt;
    while ((opt = getopt(argc, argv, "i:")) != -1) {
        if (opt == 'i') {
            iters = atoi(optarg);
        } else {
            fprintf(stderr, "usage: %s [-i iterations]\n", argv[0]);
            return 2;
        }
    }
    if (iters < 1) {
        iters = 1;
    }
    pmix_proc_t me, job;
    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) {
        fprintf(stderr, "PMIx_Init failed\n");
        return 1;
    }
    pmix_value_t *v = NULL;
    uint32_t n = 0;
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    if (PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &v) == PMIX_SUCCESS && v) {
        n = v->data.uint32;
        PMIX_VALUE_RELEASE(v);
    }
    if (pmix_cuda_comms_create(NULL, 0, &obj, &vt) != PMIX_SUCCESS) {
        fprintf(stderr, "pmix_cuda_comms_create failed\n");
        return 1;
    }
    /* Interleave the kinds in rounds so that a change in machine load hits all alike. */
    enum { ROUNDS = 10 };
    int per = iters / ROUNDS > 0 ? iters / ROUNDS : 1;
    double total[NKIND] = {0};
    for (int kind = 0; kind < NKIND; kind++) {
        for (int i = 0; i < per / 2 + 5; i++) { /* warm-up */
            if (run(kind) != 0) {
                fprintf(stderr, "rank %u: %s failed\n", me.rank, names[kind]);
                return 1;
            }
        }
    }
    for (int round = 0; round < ROUNDS; round++) {
        for (int kind = 0; kind < NKIND; kind++) {
            double t0 = now_us();
            for (int i = 0; i < per; i++) {
                if (run(kind) != 0) {
                    fprintf(stderr, "rank %u: %s failed\n", me.rank, names[kind]);
                    return 1;
                }
            }
            total[kind] += now_us() - t0;
        }
    }
    double mean[NKIND];
    for (int kind = 0; kind < NKIND; kind++) {
        mean[kind] = total[kind] / ((double)per * ROUNDS);
    }
    /* The slowest rank's mean of each kind (nanoseconds), with the object itself. */
    cuuint64_t ns[NKIND], worst[NKIND];
    for (int k = 0; k < NKIND; k++) {
        ns[k] = (cuuint64_t)(mean[k] * 1000.0);
    }
    void *req = NULL;
    if (vt->allreduce_uint64(obj, 0, ns, worst, NKIND, CU_COMMS_REDUCTION_OP_MAX, &req) != 0 ||
        wait_req(&req) != 0) {
        fprintf(stderr, "rank %u: final allreduce failed\n", me.rank);
        return 1;
    }
    if (me.rank == 0) {
        printf("cuda_bench: %u ranks, %d iterations each in %d interleaved rounds "
               "(mean of the slowest rank)\n",
               n, per * ROUNDS, ROUNDS);
        for (int k = 0; k < NKIND; k++) {
            printf("  %-30s %9.2f us   %.2fx PMIx_Fence\n", names[k], worst[k] / 1000.0,
                   (double)worst[k] / (double)worst[FENCE]);
        }
        double r = (double)(worst[BARRIER] > worst[ALLREDUCE] ? worst[BARRIER] : worst[ALLREDUCE]) /
                   (double)worst[FENCE];
        printf("  goal (within 1.5x of PMIx_Fence): %s (%.2fx)\n", r <= 1.5 ? "met" : "MISSED", r);
    }
    vt->release(obj);
    PMIx_Finalize(NULL, 0);
    return 0;
}
