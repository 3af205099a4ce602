/* An OpenPMIx client built against Debian's libpmix (4.2.2), served by our v41 server
 * probe (pmix-core/examples/v41_server_probe.rs): Init, a Get of job info, a fence of
 * its one rank, Finalize. Prints PASS or FAIL with the failing call's status. */
#include <pmix.h>
#include <stdio.h>
#include <string.h>

#define CHECK(call)                                                            \
    do {                                                                       \
        pmix_status_t rc_ = (call);                                            \
        if (PMIX_SUCCESS != rc_) {                                             \
            printf("FAIL %s: %s\n", #call, PMIx_Error_string(rc_));            \
            return 1;                                                          \
        }                                                                      \
    } while (0)

int main(void)
{
    pmix_proc_t me, wild;
    pmix_value_t *val = NULL;

    CHECK(PMIx_Init(&me, NULL, 0));
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    CHECK(PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &val));
    if (PMIX_UINT32 != val->type || 1 != val->data.uint32) {
        printf("FAIL job size: type %d\n", (int) val->type);
        return 1;
    }
    PMIX_VALUE_RELEASE(val);
    CHECK(PMIx_Fence(NULL, 0, NULL, 0));
    CHECK(PMIx_Finalize(NULL, 0));
    printf("PASS v41 client %s.%u under our server\n", me.nspace, me.rank);
    return 0;
}
