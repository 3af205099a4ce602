/* What the runtime scenarios (tests-c/runtime/) share: PMIx_Init as their first check,
 * and the job size. */
#ifndef PMIX_TESTS_RUNTIME_RT_H
#define PMIX_TESTS_RUNTIME_RT_H

#include <pmix.h>

#include "check.h"

/* PMIx_Init into *me, checked; when it fails, the verdict at once (nothing else can
 * work): the caller's `return`, so only in main. */
#define RT_INIT(me)                                                          \
    do {                                                                     \
        pmix_status_t rt_init_rc_ = PMIx_Init((me), NULL, 0);                \
        CHECK_RC(rt_init_rc_, PMIX_SUCCESS, "PMIx_Init");                    \
        if (PMIX_SUCCESS != rt_init_rc_) {                                   \
            CHECK_DONE();                                                    \
        }                                                                    \
    } while (0)

/* PMIX_JOB_SIZE of `nspace`; `otherwise` when the Get fails. */
static inline uint32_t rt_job_size(const char *nspace, uint32_t otherwise)
{
    pmix_proc_t job;
    pmix_value_t *v = NULL;
    uint32_t n = otherwise;
    PMIX_LOAD_PROCID(&job, nspace, PMIX_RANK_WILDCARD);
    if (PMIX_SUCCESS == PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &v) && v) {
        n = v->data.uint32;
        PMIX_VALUE_RELEASE(v);
    }
    return n;
}

#endif
