/* Helpers shared by the CUDA communications-object tests: job size, deterministic
 * per-rank values and their expected reductions, and a polling wait with a deadline. */
#ifndef PMIX_TESTS_CUDA_UTIL_H
#define PMIX_TESTS_CUDA_UTIL_H

#include <pmix.h>
#include <pmix_cuda.h>
#include <sched.h>
#include <stdint.h>
#include <time.h>

static inline double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static inline void pause_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

static inline uint32_t job_size(const pmix_proc_t *me)
{
    pmix_proc_t job;
    pmix_value_t *v = NULL;
    uint32_t n = 0;
    PMIX_LOAD_PROCID(&job, me->nspace, PMIX_RANK_WILDCARD);
    if (PMIX_SUCCESS == PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &v) && v) {
        n = v->data.uint32;
        PMIX_VALUE_RELEASE(v);
    }
    return n;
}

/* The value rank r contributes at index i. */
static inline uint64_t value_of(uint32_t r, int i)
{
    return ((uint64_t)r + 1) * 0x9e3779b97f4a7c15ULL ^ ((uint64_t)i << 3);
}

static inline uint64_t apply_op(CUcommsReductionOp op, uint64_t a, uint64_t b)
{
    switch (op) {
    case CU_COMMS_REDUCTION_OP_SUM: return a + b;
    case CU_COMMS_REDUCTION_OP_MIN: return a < b ? a : b;
    case CU_COMMS_REDUCTION_OP_MAX: return a > b ? a : b;
    case CU_COMMS_REDUCTION_OP_BAND: return a & b;
    case CU_COMMS_REDUCTION_OP_BOR: return a | b;
    case CU_COMMS_REDUCTION_OP_BXOR: return a ^ b;
    }
    return 0;
}

/* The expected result at index i over the members listed in ranks[0..n). */
static inline uint64_t expected_at(CUcommsReductionOp op, const uint32_t *ranks, uint32_t n, int i)
{
    uint64_t acc = value_of(ranks[0], i);
    for (uint32_t k = 1; k < n; k++) {
        acc = apply_op(op, acc, value_of(ranks[k], i));
    }
    return acc;
}

/* Poll one request until it completes (returns test's last result), or give up after
 * `limit` seconds (returns -1000 and leaves *req alone). Yields between polls, as a
 * CUDA wait loop would, so the progress threads get the CPU. */
static inline int wait_req(const CUhostCommunicationsVtable *vt, void *obj, void **req, double limit)
{
    double t0 = now_s();
    int flag = 0;
    for (unsigned spins = 0;; spins++) {
        int rc = vt->test(obj, req, &flag);
        if (rc != 0 || flag) {
            return rc;
        }
        if (now_s() - t0 > limit) {
            return -1000;
        }
        if (spins > 200) {
            pause_us(20);
        } else {
            sched_yield();
        }
    }
}

#endif
