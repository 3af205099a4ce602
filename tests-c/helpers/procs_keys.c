/* Keys, namespaces and proc ids: load/check/xfer/invalid/valid and multicluster. */
#include <pmix.h>
#include <string.h>
#include "check.h"

int main(void)
{
    pmix_key_t key;
    pmix_nspace_t ns, cluster, nspace, target;
    pmix_proc_t a, b, *procs;
    pmix_info_t info;
    char longkey[700];

    memset(longkey, 'x', sizeof(longkey) - 1);
    longkey[sizeof(longkey) - 1] = '\0';
    PMIX_LOAD_KEY(key, longkey);
    CHECK(PMIX_MAX_KEYLEN == strlen(key), "PMIX_LOAD_KEY truncates to %d", PMIX_MAX_KEYLEN);
    PMIX_INFO_LOAD(&info, "pmix.test", NULL, PMIX_UNDEF);
    CHECK(PMIX_CHECK_KEY(&info, "pmix.test") && !PMIX_CHECK_KEY(&info, "pmix.tes"), "PMIX_CHECK_KEY");
    CHECK(PMIX_CHECK_RESERVED_KEY("pmix.foo") && !PMIX_CHECK_RESERVED_KEY("mine"), "reserved prefix");
    PMIX_INFO_DESTRUCT(&info);

    PMIX_LOAD_NSPACE(ns, "job-1");
    CHECK(0 == strcmp(ns, "job-1"), "load nspace");
    CHECK(PMIX_CHECK_NSPACE(ns, "job-1") && !PMIX_CHECK_NSPACE(ns, "job-2"), "check nspace");
    CHECK(PMIX_CHECK_NSPACE(ns, ""), "empty nspace matches anything");
    CHECK(PMIX_NSPACE_INVALID("") && PMIX_NSPACE_INVALID(NULL) && !PMIX_NSPACE_INVALID(ns), "nspace invalid");

    PMIX_LOAD_PROCID(&a, "job-1", 4);
    PMIX_XFER_PROCID(&b, &a);
    CHECK(PMIX_CHECK_PROCID(&a, &b), "xfer'd proc matches");
    b.rank = PMIX_RANK_WILDCARD;
    CHECK(PMIX_CHECK_PROCID(&a, &b) && PMIX_CHECK_RANK(7, PMIX_RANK_WILDCARD), "wildcard matches");
    b.rank = 5;
    CHECK(!PMIX_CHECK_PROCID(&a, &b), "different rank");
    CHECK(PMIx_Rank_valid(5) && !PMIx_Rank_valid(PMIX_RANK_UNDEF) && !PMIx_Rank_valid(PMIX_RANK_WILDCARD), "rank valid");
    b.rank = PMIX_RANK_INVALID;
    CHECK(PMIX_PROCID_INVALID(&b) && !PMIX_PROCID_INVALID(&a) && PMIX_PROCID_INVALID(NULL), "procid invalid");

    PMIX_PROC_CREATE(procs, 3);
    CHECK(NULL != procs && PMIX_RANK_UNDEF == procs[2].rank && '\0' == procs[2].nspace[0], "proc create constructs");
    PMIX_PROC_LOAD(&procs[1], "job-9", 9);
    CHECK(0 == strcmp(procs[1].nspace, "job-9") && 9 == procs[1].rank, "PMIX_PROC_LOAD");
    PMIX_PROC_FREE(procs, 3);
    CHECK(NULL == procs, "PMIX_PROC_FREE NULLs");

    PMIX_LOAD_NSPACE(cluster, "clusterA");
    PMIX_LOAD_NSPACE(nspace, "job-7");
    PMIX_MULTICLUSTER_NSPACE_CONSTRUCT(target, cluster, nspace);
    CHECK(0 == strcmp(target, "clusterA:job-7"), "multicluster construct: %s", target);
    memset(cluster, 'z', sizeof(cluster));
    memset(nspace, 'z', sizeof(nspace));
    PMIX_MULTICLUSTER_NSPACE_PARSE(target, cluster, nspace);
    CHECK(0 == strcmp(cluster, "clusterA") && 0 == strcmp(nspace, "job-7"), "multicluster parse");
    PMIX_LOAD_NSPACE(target, "plain");
    PMIX_MULTICLUSTER_NSPACE_PARSE(target, cluster, nspace);
    CHECK(0 == strcmp(cluster, "plain") && 0 == strcmp(nspace, ""), "parse without separator");
    CHECK_DONE();
}
