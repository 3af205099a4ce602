/* pmixrun_cred: pmixrun's credential service, run under `pmixrun -n 3`.
 *
 * Each rank gets a credential and validates it: the results name the caller's uid, gid,
 * pid and process, as the kernel and the server know them. Rank 0 publishes its
 * credential through the key-value store; the other ranks validate it and learn it was
 * issued to rank 0 with rank 0's pid. An altered credential, a foreign one and a request
 * for another mechanism are refused. pmixrun has no allocation, session
 * control, fabric or resource-block service: those calls give PMIX_ERR_NOT_SUPPORTED, while heartbeats succeed. */
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#include "check.h"

typedef struct {
    bool uid, gid, pid, proc, type;
    pid_t pidval;
    pmix_proc_t procval;
} claims_t;

static claims_t read_claims(const pmix_info_t *res, size_t n)
{
    claims_t c;
    memset(&c, 0, sizeof c);
    for (size_t i = 0; i < n; i++) {
        const pmix_info_t *r = &res[i];
        if (PMIX_CHECK_KEY(r, PMIX_USERID)) {
            c.uid = r->value.data.uint32 == (uint32_t)getuid();
        } else if (PMIX_CHECK_KEY(r, PMIX_GRPID)) {
            c.gid = r->value.data.uint32 == (uint32_t)getgid();
        } else if (PMIX_CHECK_KEY(r, PMIX_PROC_PID) && PMIX_PID == r->value.type) {
            c.pid = true;
            c.pidval = r->value.data.pid;
        } else if (PMIX_CHECK_KEY(r, PMIX_PROCID) && PMIX_PROC == r->value.type) {
            c.proc = true;
            c.procval = *r->value.data.proc;
        } else if (PMIX_CHECK_KEY(r, PMIX_CRED_TYPE)) {
            c.type = 0 == strcmp(r->value.data.string, "pmixrun");
        }
    }
    return c;
}

int main(void)
{
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    CHECK_RC(rc, PMIX_SUCCESS, "PMIx_Init");
    if (rc != PMIX_SUCCESS) {
        CHECK_DONE();
    }
    pmix_byte_object_t cred;
    CHECK_RC(PMIx_Get_credential(NULL, 0, &cred), PMIX_SUCCESS, "Get_credential");
    CHECK(cred.size > 16 && NULL != cred.bytes, "a credential of %zu bytes", cred.size);

    pmix_info_t *res = NULL;
    size_t nres = 0;
    CHECK_RC(PMIx_Validate_credential(&cred, NULL, 0, &res, &nres), PMIX_SUCCESS,
             "Validate_credential of our own");
    claims_t c = read_claims(res, nres);
    CHECK(c.uid && c.gid && c.type, "uid, gid and mechanism are ours");
    CHECK(c.pid && c.pidval == getpid(), "the pid is ours (%d)", (int)c.pidval);
    CHECK(c.proc && PMIX_CHECK_PROCID(&c.procval, &me), "the process is us");
    PMIX_INFO_FREE(res, nres);

    /* altered: every byte matters */
    for (size_t i = 0; i < cred.size; i += 7) {
        cred.bytes[i] ^= 0x20;
        rc = PMIx_Validate_credential(&cred, NULL, 0, &res, &nres);
        cred.bytes[i] ^= 0x20;
        if (PMIX_ERR_INVALID_CRED != rc) {
            CHECK_RC(rc, PMIX_ERR_INVALID_CRED, "an altered credential");
            break;
        }
    }
    CHECK(NULL == res && 0 == nres, "altered credentials are refused without results");
    char forged[] = "PXRC\001 not issued by pmixrun at all";
    pmix_byte_object_t fbo = {.bytes = forged, .size = sizeof forged};
    CHECK_RC(PMIx_Validate_credential(&fbo, NULL, 0, &res, &nres), PMIX_ERR_INVALID_CRED,
             "a forged credential");
    pmix_info_t munge;
    PMIX_INFO_LOAD(&munge, PMIX_CRED_TYPE, "munge", PMIX_STRING);
    pmix_byte_object_t other;
    CHECK_RC(PMIx_Get_credential(&munge, 1, &other), PMIX_ERR_NOT_SUPPORTED,
             "a credential of another mechanism");
    PMIX_INFO_DESTRUCT(&munge);

    /* rank 0's credential, checked by the others */
    if (0 == me.rank) {
        pmix_value_t v;
        PMIX_VALUE_LOAD(&v, &cred, PMIX_BYTE_OBJECT);
        CHECK_RC(PMIx_Put(PMIX_GLOBAL, "cred.test", &v), PMIX_SUCCESS, "Put credential");
        PMIX_VALUE_DESTRUCT(&v);
        CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit");
    }
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "Fence");
    if (0 != me.rank) {
        pmix_proc_t r0;
        PMIX_LOAD_PROCID(&r0, me.nspace, 0);
        pmix_value_t *v = NULL;
        CHECK_RC(PMIx_Get(&r0, "cred.test", NULL, 0, &v), PMIX_SUCCESS, "Get rank 0's credential");
        if (v && PMIX_BYTE_OBJECT == v->type) {
            CHECK_RC(PMIx_Validate_credential(&v->data.bo, NULL, 0, &res, &nres), PMIX_SUCCESS,
                     "Validate rank 0's credential");
            c = read_claims(res, nres);
            CHECK(c.proc && PMIX_CHECK_PROCID(&c.procval, &r0), "it was issued to rank 0");
            CHECK(c.pid && c.pidval != getpid(), "with rank 0's pid, not ours");
            PMIX_INFO_FREE(res, nres);
        }
        PMIX_VALUE_RELEASE(v);
    }
    PMIX_BYTE_OBJECT_DESTRUCT(&cred);

    /* what pmixrun does not provide */
    pmix_info_t info;
    uint64_t nn = 1;
    PMIX_INFO_LOAD(&info, PMIX_ALLOC_NUM_NODES, &nn, PMIX_UINT64);
    CHECK_RC(PMIx_Allocation_request(PMIX_ALLOC_NEW, &info, 1, &res, &nres),
             PMIX_ERR_NOT_SUPPORTED, "Allocation_request under pmixrun");
    PMIX_INFO_DESTRUCT(&info);
    bool t = true;
    PMIX_INFO_LOAD(&info, PMIX_MONITOR_HEARTBEAT, &t, PMIX_BOOL);
    /* pmixrun's server watches heartbeats itself (pmixrun_monitor.c), and a watch
     * needs its period */
    CHECK_RC(PMIx_Process_monitor(&info, -1, NULL, 0, &res, &nres), PMIX_ERR_BAD_PARAM,
             "heartbeat monitor without PMIX_MONITOR_HEARTBEAT_TIME under pmixrun");
    PMIX_INFO_DESTRUCT(&info);
    PMIX_INFO_LOAD(&info, PMIX_SEND_HEARTBEAT, &t, PMIX_BOOL);
    CHECK_RC(PMIx_Process_monitor(&info, -1, NULL, 0, &res, &nres), PMIX_SUCCESS,
             "a heartbeat through Process_monitor");
    PMIX_INFO_DESTRUCT(&info);
    PMIx_Heartbeat();
    CHECK_RC(PMIx_Session_control(1, NULL, 0, NULL, NULL), PMIX_ERR_NOT_SUPPORTED,
             "Session_control under pmixrun");
    pmix_fabric_t fab;
    PMIX_FABRIC_CONSTRUCT(&fab);
    CHECK_RC(PMIx_Fabric_register(&fab, NULL, 0), PMIX_ERR_NOT_SUPPORTED,
             "Fabric_register under pmixrun");
    CHECK_RC(PMIx_Resource_block(PMIX_RESOURCE_BLOCK_DELETE, "blk", NULL, 0, NULL, 0),
             PMIX_ERR_NOT_SUPPORTED, "Resource_block under pmixrun");

    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "final Fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "Finalize");
    CHECK_DONE();
}
