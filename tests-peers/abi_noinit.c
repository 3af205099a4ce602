/* abi_noinit: PMIx_Query_info of the ABI levels before PMIx_Init (as OpenPMIx master's
 * examples/abi_no_init.c does).
 * Run: pmixrun -n 1 abi_noinit (or with no launcher at all)
 * Before init, a query of PMIX_QUERY_STABLE_ABI_VERSION and one of
 * PMIX_QUERY_PROVISIONAL_ABI_VERSION succeed with one string result each, named by
 * the key; a query of anything else is still PMIX_ERR_INIT. Init then works. */
#include <pmix.h>
#include <string.h>
#include "../tests-c/check.h"

int main(void)
{
    pmix_query_t *q;
    pmix_info_t *res = NULL;
    size_t nres = 0;
    pmix_status_t rc;
    PMIX_QUERY_CREATE(q, 2);
    PMIX_ARGV_APPEND(rc, q[0].keys, PMIX_QUERY_STABLE_ABI_VERSION);
    PMIX_ARGV_APPEND(rc, q[1].keys, PMIX_QUERY_PROVISIONAL_ABI_VERSION);
    CHECK_RC(rc, PMIX_SUCCESS, "argv");
    CHECK_RC(PMIx_Query_info(q, 2, &res, &nres), PMIX_SUCCESS, "ABI query before init");
    CHECK(nres == 2, "two results (%zu)", nres);
    for (size_t i = 0; i < nres; i++) {
        bool abi = PMIX_CHECK_KEY(&res[i], PMIX_QUERY_STABLE_ABI_VERSION) ||
                   PMIX_CHECK_KEY(&res[i], PMIX_QUERY_PROVISIONAL_ABI_VERSION);
        CHECK(abi && res[i].value.type == PMIX_STRING && res[i].value.data.string != NULL &&
                  strchr(res[i].value.data.string, '.') != NULL,
              "result %zu is %s = %s", i, res[i].key,
              res[i].value.type == PMIX_STRING ? res[i].value.data.string : "(not a string)");
    }
    if (res != NULL) {
        PMIX_INFO_FREE(res, nres);
    }
    PMIX_QUERY_FREE(q, 2);

    PMIX_QUERY_CREATE(q, 1);
    PMIX_ARGV_APPEND(rc, q[0].keys, PMIX_QUERY_NAMESPACES);
    CHECK_RC(rc, PMIX_SUCCESS, "argv");
    res = NULL;
    nres = 0;
    CHECK_RC(PMIx_Query_info(q, 1, &res, &nres), PMIX_ERR_INIT,
             "any other query before init");
    CHECK(res == NULL && nres == 0, "with no results");
    PMIX_QUERY_FREE(q, 1);

    pmix_proc_t me;
    CHECK_RC(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS, "init afterwards");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "finalize");
    CHECK_DONE();
}
