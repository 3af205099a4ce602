/* The Put, Commit and collecting fence that the v41host ranks (client.c, built on ours;
 * jobinfo.c, built against Debian's OpenPMIx 4.2.2) do before reading their peers' keys.
 * Three checks, counted with the file's own (check.h). */
#ifndef PMIX_TESTS_V41HOST_PUTFENCE_H
#define PMIX_TESTS_V41HOST_PUTFENCE_H

#include <pmix.h>

#include "../check.h"

/* Put `key` = x (a uint32, PMIX_GLOBAL), Commit, then a fence with PMIX_COLLECT_DATA. */
static void put_and_fence(const char *key, uint32_t x)
{
    pmix_value_t val;
    PMIX_VALUE_LOAD(&val, &x, PMIX_UINT32);
    CHECK_RC(PMIx_Put(PMIX_GLOBAL, key, &val), PMIX_SUCCESS, "Put");
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit");
    pmix_info_t coll;
    bool yes = true;
    PMIX_INFO_LOAD(&coll, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    CHECK_RC(PMIx_Fence(NULL, 0, &coll, 1), PMIX_SUCCESS, "collecting fence");
}

#endif
