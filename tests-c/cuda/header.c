/* header: pmix_cuda.h as a C program sees it (layout, the assumed enum table) and the
 * object of a singleton (a process started without a launcher is a job of one).
 * Run without a PMIx server in the environment: env -i ./header */
#include <pmix_cuda.h>
#include <stddef.h>
#include <string.h>

#include "check.h"
#include "cuda_util.h"

static const CUcommsReductionOp ops[] = {
    CU_COMMS_REDUCTION_OP_SUM, CU_COMMS_REDUCTION_OP_MIN, CU_COMMS_REDUCTION_OP_MAX,
    CU_COMMS_REDUCTION_OP_BAND, CU_COMMS_REDUCTION_OP_BOR, CU_COMMS_REDUCTION_OP_BXOR,
};
#define NOPS (sizeof ops / sizeof ops[0])

int main(void)
{
    /* The page's member order: each member after the previous one, ten slots. */
    size_t off[] = {
        offsetof(CUhostCommunicationsVtable, version),
        offsetof(CUhostCommunicationsVtable, resize),
        offsetof(CUhostCommunicationsVtable, get_comm_id),
        offsetof(CUhostCommunicationsVtable, barrier),
        offsetof(CUhostCommunicationsVtable, allreduce_uint64),
        offsetof(CUhostCommunicationsVtable, test),
        offsetof(CUhostCommunicationsVtable, testany),
        offsetof(CUhostCommunicationsVtable, check_async_error),
        offsetof(CUhostCommunicationsVtable, retain),
        offsetof(CUhostCommunicationsVtable, release),
    };
    int ordered = off[0] == 0 && off[1] >= sizeof(int);
    for (size_t i = 2; i < sizeof off / sizeof off[0]; i++) {
        ordered &= off[i] == off[i - 1] + sizeof(void *);
    }
    CHECK(ordered, "members in the page's order, one pointer apart");
    CHECK(sizeof(CUhostCommunicationsVtable) == off[1] + 9 * sizeof(void *),
          "sizeof vtable %zu", sizeof(CUhostCommunicationsVtable));
    CHECK(sizeof(cuuint64_t) == 8, "cuuint64_t is 64 bits");
    CHECK(CU_COMMS_SUCCESS == 0 && CU_COMMS_ERROR_INVALID_VALUE < 0 &&
              CU_COMMS_ERROR_OUT_OF_MEMORY < 0 && CU_COMMS_ERROR_NOT_SUPPORTED < 0,
          "statuses: 0 and negatives");
    int distinct = 1;
    for (size_t i = 0; i < NOPS; i++) {
        for (size_t j = i + 1; j < NOPS; j++) {
            distinct &= ops[i] != ops[j];
        }
    }
    CHECK(distinct, "reduction operations distinct");

    void *obj = NULL;
    const CUhostCommunicationsVtable *vt = NULL;
    CHECK_RC(pmix_cuda_comms_create(NULL, 0, &obj, &vt), PMIX_ERR_INIT, "create before Init");
    CHECK(obj == NULL && vt == NULL, "nothing written on failure");

    pmix_proc_t me;
    int irc = PMIx_Init(&me, NULL, 0);
    CHECK_RC(irc, PMIX_ERR_UNREACH, "PMIx_Init (singleton: UNREACH, and usable)");
    if (irc != PMIX_ERR_UNREACH) {
        CHECK_DONE();
    }
    CHECK_RC(pmix_cuda_comms_create(NULL, 0, NULL, &vt), PMIX_ERR_BAD_PARAM, "NULL object");
    CHECK_RC(pmix_cuda_comms_create(NULL, 0, &obj, NULL), PMIX_ERR_BAD_PARAM, "NULL vtable");
    CHECK_RC(pmix_cuda_comms_create(NULL, 2, &obj, &vt), PMIX_ERR_BAD_PARAM,
             "NULL procs, nprocs 2");
    pmix_proc_t other;
    PMIX_LOAD_PROCID(&other, "not-my-namespace", 0);
    CHECK_RC(pmix_cuda_comms_create(&other, 1, &obj, &vt), PMIX_ERR_NOT_A_MEMBER,
             "a set without me");

    CHECK_RC(pmix_cuda_comms_create(NULL, 0, &obj, &vt), PMIX_SUCCESS, "create (own namespace)");
    if (vt == NULL) {
        CHECK_DONE();
    }
    CHECK(vt->version == 1, "version %d", vt->version);
    CHECK_RC(vt->resize(obj, 2), 0, "resize 2");
    /* Every operation, alone: the result is our own contribution. */
    static cuuint64_t send[1000], recv[1000];
    for (int i = 0; i < 1000; i++) {
        send[i] = value_of(me.rank, i);
    }
    for (size_t k = 0; k < NOPS; k++) {
        void *req = NULL;
        memset(recv, 0, sizeof recv);
        CHECK_RC(vt->allreduce_uint64(obj, 1, send, recv, 1000, ops[k], &req), 0, "allreduce");
        CHECK_RC(wait_req(vt, obj, &req, 10), 0, "allreduce completes");
        CHECK(req == NULL && memcmp(send, recv, sizeof send) == 0, "op %d: own values", ops[k]);
    }
    void *reqs[2] = {NULL, NULL};
    CHECK_RC(vt->barrier(obj, 0, &reqs[1]), 0, "barrier");
    int idx = -2;
    double t0 = now_s();
    do {
        CHECK_RC(vt->testany(obj, 2, reqs, &idx), 0, "testany");
    } while (idx == -1 && now_s() - t0 < 10);
    CHECK(idx == 1 && reqs[1] == NULL, "testany found index %d", idx);
    CHECK_RC(vt->check_async_error(obj), 0, "no async error");
    vt->release(obj);
    /* The handle is gone: statuses, never a crash. */
    void *req = NULL;
    CHECK_RC(vt->barrier(obj, 0, &req), CU_COMMS_ERROR_INVALID_VALUE, "barrier on released");
    CHECK(vt->check_async_error(obj) != 0, "async error on released object");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
