/* Hostile but non-NULL arguments to the server and client exports while a module-less
 * server is initialised (it also hosts its own client): over-long and unterminated
 * namespaces and keys ending at an inaccessible page, wildcard/invalid/undefined ranks,
 * negative counts, info arrays with values of unknown type, Get of keys nobody put. */
#include <stdint.h>
#include "misuse.h"
#include <pmix_server.h>

int main(void)
{
    struct hostile h = hostile_inputs();
    pmix_status_t rc;
    pmix_proc_t p, *bad = (pmix_proc_t *)guarded(sizeof(pmix_proc_t), 'n', 0);
    pmix_info_t info;
    pmix_value_t val, *got = NULL;
    char **env = NULL;
    uint32_t u32 = 1;
    pmix_nspace_t ns_neg, ns_badinfo, ns_badkey, ns_nullinfo, ns_unknown, ns_job;

    PMIx_Load_nspace(ns_neg, "ns-neg");
    PMIx_Load_nspace(ns_badinfo, "ns-badinfo");
    PMIx_Load_nspace(ns_badkey, "ns-badkey");
    PMIx_Load_nspace(ns_nullinfo, "ns-null-info");
    PMIx_Load_nspace(ns_unknown, "never-registered");
    PMIx_Load_nspace(ns_job, "job");

    rc = PMIx_server_init(NULL, NULL, 0);
    CHECK_RC(rc, PMIX_SUCCESS, "PMIx_server_init with no module");

    /* namespaces */
    rc = PMIx_server_register_nspace(h.ns300, 1, NULL, 0, NULL, NULL);
    CHECK_ERR(rc, "register_nspace of a 299-byte namespace");
    rc = PMIx_server_register_nspace(h.ns_nonul, 1, NULL, 0, NULL, NULL);
    CHECK_ERR(rc, "register_nspace of an unterminated namespace");
    rc = PMIx_server_register_nspace(h.empty, 1, NULL, 0, NULL, NULL);
    /* accepted today (reported: the empty namespace is PMIx's "invalid" one) */
    CHECK(1, "register_nspace of \"\" returned %d", rc);
    rc = PMIx_server_register_nspace(ns_neg, -5, NULL, 0, NULL, NULL);
    CHECK(1, "register_nspace with -5 local procs returned %d", rc);
    PMIx_Info_construct(&info);
    PMIx_Load_key(info.key, PMIX_JOB_SIZE);
    info.value.type = 9999;
    rc = PMIx_server_register_nspace(ns_badinfo, 1, &info, 1, NULL, NULL);
    CHECK_ERR(rc, "register_nspace with an info of type 9999");
    memset(info.key, 'k', sizeof(info.key));
    PMIx_Value_load(&info.value, &u32, PMIX_UINT32);
    rc = PMIx_server_register_nspace(ns_badkey, 1, &info, 1, NULL, NULL);
    CHECK_ERR(rc, "register_nspace with an unterminated info key");
    PMIx_Info_destruct(&info);
    rc = PMIx_server_register_nspace(ns_nullinfo, 1, NULL, 3, NULL, NULL);
    CHECK(1, "register_nspace with NULL info and ninfo 3 returned %d", rc);
    SURVIVES(PMIx_server_deregister_nspace(h.ns_nonul, NULL, NULL), "deregister_nspace of an unterminated namespace");
    SURVIVES(PMIx_server_deregister_nspace(ns_unknown, NULL, NULL), "deregister_nspace of an unknown namespace");

    /* clients */
    rc = PMIx_server_register_nspace(ns_job, 2, NULL, 0, NULL, NULL);
    CHECK_RC(rc, PMIX_SUCCESS, "register_nspace job");
    PMIx_Load_procid(&p, "job", PMIX_RANK_WILDCARD);
    rc = PMIx_server_register_client(&p, 1000, 1000, NULL, NULL, NULL);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "register_client of a wildcard rank");
    p.rank = PMIX_RANK_INVALID;
    rc = PMIx_server_register_client(&p, 1000, 1000, NULL, NULL, NULL);
    CHECK_ERR(rc, "register_client of rank INVALID");
    bad->rank = 0; /* the namespace field (256 bytes) has no NUL, the rank follows */
    rc = PMIx_server_register_client(bad, 1000, 1000, NULL, NULL, NULL);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "register_client with an unterminated namespace");
    PMIx_Load_procid(&p, "job", 0);
    rc = PMIx_server_register_client(&p, 1000, 1000, NULL, NULL, NULL);
    CHECK_RC(rc, PMIX_SUCCESS, "register_client job:0");
    rc = PMIx_server_setup_fork(bad, &env);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "setup_fork with an unterminated namespace");
    PMIx_Load_procid(&p, "job", PMIX_RANK_WILDCARD);
    rc = PMIx_server_setup_fork(&p, &env);
    CHECK_ERR(rc, "setup_fork of a wildcard rank");
    PMIx_Load_procid(&p, "job", 0);
    rc = PMIx_server_setup_fork(&p, &env);
    CHECK(PMIX_SUCCESS == rc && NULL != env, "setup_fork job:0");
    PMIx_Argv_free(env);
    SURVIVES(PMIx_server_deregister_client(bad, NULL, NULL), "deregister_client with an unterminated namespace");
    PMIx_Load_procid(&p, "nobody", 7);
    SURVIVES(PMIx_server_deregister_client(&p, NULL, NULL), "deregister_client of an unknown proc");
    rc = PMIx_server_dmodex_request(bad, NULL, NULL);
    CHECK_ERR(rc, "dmodex_request with an unterminated namespace and NULL callback");

    /* the server's own client: keys and procs */
    PMIx_Value_load(&val, &u32, PMIX_UINT32);
    rc = PMIx_Put(PMIX_GLOBAL, h.key600, &val);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Put of a 599-byte key");
    rc = PMIx_Put(PMIX_GLOBAL, h.key_nonul, &val);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Put of an unterminated key");
    rc = PMIx_Put(200, "k", &val);
    CHECK(1, "Put with scope 200 returned %d", rc);
    val.type = 9999;
    rc = PMIx_Put(PMIX_GLOBAL, "k", &val);
    CHECK_ERR(rc, "Put of a value of type 9999");
    rc = PMIx_Get(bad, "k", NULL, 0, &got);
    CHECK(rc < 0 && NULL == got, "Get from a proc with an unterminated namespace (%d)", rc);
    PMIx_Load_procid(&p, "job", 0);
    rc = PMIx_Get(&p, h.key_nonul, NULL, 0, &got);
    CHECK(rc < 0 && NULL == got, "Get of an unterminated key (%d)", rc);
    rc = PMIx_Get(&p, "nobody-put-this", NULL, 0, &got);
    CHECK(rc < 0 && NULL == got, "Get of a key nobody put (%d)", rc);
    rc = PMIx_Store_internal(bad, "k", &val);
    CHECK_ERR(rc, "Store_internal with an unterminated namespace");

    rc = PMIx_server_finalize();
    CHECK_RC(rc, PMIX_SUCCESS, "PMIx_server_finalize");
    CHECK_DONE();
}
