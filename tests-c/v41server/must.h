/* Fail-fast checks for the tests-c/v41server ranks (mixed.c, jobinfo.c, killget.c), built
 * against Debian's OpenPMIx 4.2.2 or against ours (mk/v41server.mk). Each step of these
 * ranks needs the one before (and their peers wait in the next fence), so the first call
 * that fails ends the rank: "FAIL <call> (<V41S_WHO>rank N): <status>", exit status 1.
 * tests-c/check.h counts its checks and goes on after a failure, which these do not want.
 * A file may define V41S_WHO (e.g. its library and a space) before including this. */
#ifndef PMIX_TESTS_V41SERVER_MUST_H
#define PMIX_TESTS_V41SERVER_MUST_H

#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef V41S_WHO
#    define V41S_WHO ""
#endif

static pmix_proc_t me;

#define CHECK(call)                                                                    \
    do {                                                                               \
        pmix_status_t rc_ = (call);                                                    \
        if (PMIX_SUCCESS != rc_) {                                                     \
            printf("FAIL %s (" V41S_WHO "rank %u): %s\n", #call, me.rank,              \
                   PMIx_Error_string(rc_));                                            \
            fflush(stdout);                                                            \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

/* rank's `key` (PMIX_RANK_WILDCARD: the job's), which must have `type`; the caller
 * releases it (PMIX_VALUE_RELEASE). */
static pmix_value_t *get_typed(pmix_rank_t rank, const char *key, pmix_data_type_t type)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    PMIX_LOAD_PROCID(&p, me.nspace, rank);
    CHECK(PMIx_Get(&p, key, NULL, 0, &v));
    if (type != v->type) {
        printf("FAIL rank %u: %u/%s has type %d\n", me.rank, rank, key, (int) v->type);
        exit(1);
    }
    return v;
}

/* rank's (PMIX_RANK_WILDCARD: the job's) uint32 `key`. */
static uint32_t get_u32(pmix_rank_t rank, const char *key)
{
    pmix_value_t *v = get_typed(rank, key, PMIX_UINT32);
    uint32_t out = v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    return out;
}

#endif
