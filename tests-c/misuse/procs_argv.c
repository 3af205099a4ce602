/* Misuse of the key/namespace/proc helpers and of argv/Setenv: NULL everywhere,
 * namespaces and keys without NUL ending at an inaccessible page (any read past
 * PMIX_MAX_NSLEN/PMIX_MAX_KEYLEN faults), over-length strings, special and invalid
 * ranks, empty and NULL argv vectors, odd delimiters. */
#include <stdint.h>
#include "misuse.h"

extern char **environ;

int main(void)
{
    struct hostile h = hostile_inputs();
    pmix_key_t key;
    pmix_nspace_t ns, cl, nn;
    pmix_proc_t p, q, *pa;
    pmix_status_t rc;
    char **argv = NULL, **env = NULL, *s;
    char *nsnul = guarded(PMIX_MAX_NSLEN + 1, 'c', 0);

    /* keys */
    SURVIVES(PMIx_Load_key(NULL, "k"), "Load_key(NULL dst)");
    PMIx_Load_key(key, NULL);
    CHECK('\0' == key[0], "Load_key(NULL src) leaves it empty");
    PMIx_Load_key(key, h.key_nonul);
    CHECK(PMIX_MAX_KEYLEN == strnlen(key, sizeof(key)), "Load_key of 512 unterminated bytes truncates");
    PMIx_Load_key(key, h.key600);
    CHECK(PMIX_MAX_KEYLEN == strnlen(key, sizeof(key)), "Load_key of 599 bytes truncates");
    CHECK(!PMIx_Check_key(NULL, "k") && !PMIx_Check_key("k", NULL), "Check_key with NULL is false");
    CHECK(PMIx_Check_key(h.key_nonul, h.key512), "Check_key compares only PMIX_MAX_KEYLEN bytes");
    CHECK(!PMIx_Check_reserved_key(NULL), "Check_reserved_key(NULL) is false");
    CHECK(!PMIx_Check_reserved_key(h.key_nonul), "Check_reserved_key of an unterminated key");

    /* namespaces */
    SURVIVES(PMIx_Load_nspace(NULL, "n"), "Load_nspace(NULL dst)");
    PMIx_Load_nspace(ns, h.ns_nonul);
    CHECK(PMIX_MAX_NSLEN == strnlen(ns, sizeof(ns)), "Load_nspace of 256 unterminated bytes truncates");
    PMIx_Load_nspace(ns, h.ns300);
    CHECK(PMIX_MAX_NSLEN == strnlen(ns, sizeof(ns)), "Load_nspace of 299 bytes truncates");
    CHECK(PMIx_Nspace_invalid(NULL) && PMIx_Nspace_invalid(h.empty), "NULL and empty namespaces are invalid");
    CHECK(!PMIx_Nspace_invalid(h.ns_nonul), "an unterminated namespace is read within bounds");
    CHECK(PMIx_Check_nspace(NULL, "x") && PMIx_Check_nspace("x", NULL), "invalid namespaces match anything");
    CHECK(PMIx_Check_nspace(h.ns_nonul, h.ns300), "Check_nspace compares only PMIX_MAX_NSLEN bytes");

    /* multicluster namespaces */
    SURVIVES(PMIx_Multicluster_nspace_construct(NULL, h.ns_nonul, h.ns_nonul), "Multicluster_construct(NULL)");
    PMIx_Multicluster_nspace_construct(ns, h.ns_nonul, nsnul);
    CHECK('\0' == ns[0], "Multicluster_construct of two full namespaces gives an empty result");
    PMIx_Multicluster_nspace_construct(ns, NULL, NULL);
    CHECK(0 == strcmp(ns, ":"), "Multicluster_construct(NULL, NULL) = \"%s\"", ns);
    SURVIVES(PMIx_Multicluster_nspace_parse(h.ns_nonul, NULL, nn), "Multicluster_parse(NULL cluster)");
    SURVIVES(PMIx_Multicluster_nspace_parse(h.ns_nonul, cl, NULL), "Multicluster_parse(NULL nspace)");
    PMIx_Multicluster_nspace_parse(h.ns_nonul, cl, nn);
    CHECK(PMIX_MAX_NSLEN == strnlen(cl, sizeof(cl)) && '\0' == nn[0], "Multicluster_parse of 256 bytes, no ':'");
    PMIx_Multicluster_nspace_parse(NULL, cl, nn);
    CHECK('\0' == cl[0] && '\0' == nn[0], "Multicluster_parse(NULL)");

    /* procs and ranks */
    SURVIVES(PMIx_Load_procid(NULL, "n", 0), "Load_procid(NULL)");
    PMIx_Load_procid(&p, h.ns300, PMIX_RANK_INVALID);
    CHECK(PMIX_MAX_NSLEN == strnlen(p.nspace, sizeof(p.nspace)) && PMIX_RANK_INVALID == p.rank,
          "Load_procid of a 299-byte namespace truncates");
    CHECK(PMIx_Procid_invalid(&p), "rank INVALID makes the proc invalid");
    CHECK(PMIx_Procid_invalid(NULL), "Procid_invalid(NULL)");
    SURVIVES(PMIx_Xfer_procid(NULL, &p), "Xfer_procid(NULL dst)");
    PMIx_Xfer_procid(&q, NULL);
    CHECK('\0' == q.nspace[0] && 0 == q.rank, "Xfer_procid(NULL src) clears");
    PMIx_Xfer_procid(&p, &p);
    CHECK(PMIX_RANK_INVALID == p.rank, "Xfer_procid onto itself");
    CHECK(PMIx_Check_procid(NULL, NULL) && !PMIx_Check_procid(&p, NULL), "Check_procid with NULLs");
    CHECK(PMIx_Check_rank(PMIX_RANK_WILDCARD, 5) && !PMIx_Check_rank(PMIX_RANK_INVALID, 5),
          "Check_rank with special ranks");
    CHECK(!PMIx_Rank_valid(PMIX_RANK_INVALID) && !PMIx_Rank_valid(PMIX_RANK_WILDCARD) &&
              !PMIx_Rank_valid(PMIX_RANK_UNDEF) && !PMIx_Rank_valid(UINT32_MAX) && PMIx_Rank_valid(0),
          "Rank_valid of the special ranks");
    SURVIVES(PMIx_Proc_construct(NULL), "Proc_construct(NULL)");
    SURVIVES(PMIx_Proc_destruct(NULL), "Proc_destruct(NULL)");
    SURVIVES(PMIx_Proc_load(NULL, "n", 1), "Proc_load(NULL)");
    PMIx_Proc_load(&p, NULL, PMIX_RANK_UNDEF);
    CHECK('\0' == p.nspace[0] && PMIX_RANK_UNDEF == p.rank, "Proc_load(NULL nspace)");
    CHECK(NULL == PMIx_Proc_create(0), "Proc_create(0)");
    CHECK(NULL == PMIx_Proc_create(SIZE_MAX), "Proc_create(SIZE_MAX) is NULL");
    SURVIVES(PMIx_Proc_free(NULL, 3), "Proc_free(NULL, 3)");
    pa = PMIx_Proc_create(2);
    CHECK(NULL != pa && PMIX_RANK_UNDEF == pa[1].rank, "Proc_create(2) constructs");
    PMIx_Proc_free(pa, 2);

    /* argv */
    CHECK(0 == PMIx_Argv_count(NULL), "Argv_count(NULL)");
    rc = PMIx_Argv_append_nosize(NULL, "x");
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Argv_append_nosize(NULL)");
    rc = PMIx_Argv_prepend_nosize(&argv, NULL);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Argv_prepend_nosize(NULL arg)");
    rc = PMIx_Argv_append_unique_nosize(NULL, "x");
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Argv_append_unique_nosize(NULL)");
    rc = PMIx_Argv_append_nosize(&argv, h.key600);
    CHECK(PMIX_SUCCESS == rc && 599 == strlen(argv[0]), "Argv_append of a long string");
    rc = PMIx_Argv_append_unique_nosize(&argv, h.key600);
    CHECK(PMIX_SUCCESS == rc && 1 == PMIx_Argv_count(argv), "Argv_append_unique of the same string");
    rc = PMIx_Argv_prepend_nosize(&argv, "");
    CHECK(PMIX_SUCCESS == rc && 2 == PMIx_Argv_count(argv), "Argv_prepend of \"\"");
    SURVIVES(PMIx_Argv_free(NULL), "Argv_free(NULL)");
    CHECK(NULL == PMIx_Argv_split(NULL, ':'), "Argv_split(NULL)");
    CHECK(NULL == PMIx_Argv_split_with_empty(NULL, ':'), "Argv_split_with_empty(NULL)");
    CHECK(NULL == PMIx_Argv_split_inter(NULL, ':', true), "Argv_split_inter(NULL)");
    {
        char **sp = PMIx_Argv_split("a:b", 0); /* NUL delimiter: one field */
        CHECK(1 == PMIx_Argv_count(sp), "Argv_split with delimiter 0");
        PMIx_Argv_free(sp);
        sp = PMIx_Argv_split_with_empty(":::", ':');
        CHECK(3 == PMIx_Argv_count(sp), "split_with_empty of \":::\" (%d fields)", PMIx_Argv_count(sp));
        PMIx_Argv_free(sp);
        sp = PMIx_Argv_split("abc", 0x161); /* delimiter wider than a char */
        CHECK(NULL != sp, "Argv_split with delimiter 0x161");
        PMIx_Argv_free(sp);
    }
    s = PMIx_Argv_join(NULL, ',');
    CHECK(NULL != s && '\0' == s[0], "Argv_join(NULL)");
    free(s);
    s = PMIx_Argv_join(argv, 0);
    CHECK(NULL != s, "Argv_join with delimiter 0");
    free(s);
    CHECK(NULL == PMIx_Argv_copy(NULL), "Argv_copy(NULL)");
    PMIx_Argv_free(argv);

    /* Setenv */
    rc = PMIx_Setenv(NULL, "v", true, &env);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Setenv(NULL name)");
    rc = PMIx_Setenv("N", "v", true, NULL);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Setenv(NULL env)");
    rc = PMIx_Setenv(h.key600, h.key600, true, &env);
    CHECK(PMIX_SUCCESS == rc && 1 == PMIx_Argv_count(env), "Setenv of long strings into a private env");
    rc = PMIx_Setenv("", NULL, true, &env);
    CHECK_RC(rc, PMIX_SUCCESS, "Setenv of an empty name");
    PMIx_Argv_free(env);
    rc = PMIx_Setenv("BAD=NAME", "v", true, &environ);
    CHECK(rc < 0 && NULL == getenv("BAD"), "Setenv of a name with '=' into environ fails (%d)", rc);

    CHECK_DONE();
}
