/* comms: every method of the PMIx-backed CUhostCommunicationsVtable under pmixrun.
 * Run: pmixrun -n N comms   (any N >= 1)
 *  - version, resize (grow, idempotent, never shrinks, bad sizes), get_comm_id;
 *  - barrier and allreduce_uint64 for every operation with 1 and 1000 elements, checked
 *    against values computed here; in place; zero elements; bad arguments;
 *  - communicators 1 and 2 used in opposite orders by even and odd ranks;
 *  - 120 requests outstanding at once, collected with testany;
 *  - test/testany report "not yet" while a peer lags, and NULL handles;
 *  - retain/release; an object released with an operation outstanding still takes part;
 *  - a second object over an explicit list and one over a subset, independent of the first;
 *  - check_async_error stays 0. */
#include <pmix_cuda.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cuda_util.h"

#define BIG 1000
static const CUcommsReductionOp ops[] = {
    CU_COMMS_REDUCTION_OP_SUM, CU_COMMS_REDUCTION_OP_MIN, CU_COMMS_REDUCTION_OP_MAX,
    CU_COMMS_REDUCTION_OP_BAND, CU_COMMS_REDUCTION_OP_BOR, CU_COMMS_REDUCTION_OP_BXOR,
};
#define NOPS (int)(sizeof ops / sizeof ops[0])

static pmix_proc_t me;
static uint32_t n;
static uint32_t *all; /* 0..n-1 */

/* Check recv[0..count) against the reduction of the members' values. */
static bool right(CUcommsReductionOp op, const uint32_t *ranks, uint32_t nr,
                  const cuuint64_t *recv, int count)
{
    for (int i = 0; i < count; i++) {
        if (recv[i] != expected_at(op, ranks, nr, i)) {
            printf("  index %d: got %llu want %llu\n", i, (unsigned long long)recv[i],
                   (unsigned long long)expected_at(op, ranks, nr, i));
            return false;
        }
    }
    return true;
}

static void fill(cuuint64_t *buf, int count)
{
    for (int i = 0; i < count; i++) {
        buf[i] = value_of(me.rank, i);
    }
}

/* A blocking barrier on comm 0 of obj, used to line the ranks up. */
static void sync_all(const CUhostCommunicationsVtable *vt, void *obj)
{
    void *r = NULL;
    CHECK_RC(vt->barrier(obj, 0, &r), 0, "sync barrier");
    CHECK_RC(wait_req(vt, obj, &r, 20), 0, "sync barrier completes");
}

int main(void)
{
    int irc = PMIx_Init(&me, NULL, 0);
    CHECK_RC(irc, PMIX_SUCCESS, "PMIx_Init");
    if (irc != PMIX_SUCCESS) {
        CHECK_DONE();
    }
    n = job_size(&me);
    CHECK(n >= 1, "job size %u", n);
    all = calloc(n, sizeof *all);
    for (uint32_t r = 0; r < n; r++) {
        all[r] = r;
    }

    void *obj = NULL;
    const CUhostCommunicationsVtable *vt = NULL;
    CHECK_RC(pmix_cuda_comms_create(NULL, 0, &obj, &vt), PMIX_SUCCESS, "create (namespace)");
    if (!vt) {
        CHECK_DONE();
    }
    CHECK(vt->version == 1, "version 1");

    /* resize and get_comm_id */
    cuuint64_t id0 = 0, id[3], again;
    CHECK_RC(vt->get_comm_id(obj, 0, &id0), 0, "get_comm_id 0 of a fresh object");
    CHECK_RC(vt->get_comm_id(obj, 1, &again), CU_COMMS_ERROR_INVALID_VALUE,
             "communicator 1 before resize");
    CHECK_RC(vt->resize(obj, 3), 0, "resize 3");
    CHECK_RC(vt->resize(obj, 3), 0, "resize 3 again (idempotent)");
    CHECK_RC(vt->resize(obj, 1), 0, "resize 1 (never shrinks)");
    CHECK_RC(vt->resize(obj, 0), 0, "resize 0");
    CHECK_RC(vt->resize(obj, -1), CU_COMMS_ERROR_INVALID_VALUE, "resize -1");
    CHECK_RC(vt->resize(obj, 1 << 30), CU_COMMS_ERROR_OUT_OF_MEMORY, "resize 2^30");
    for (int c = 0; c < 3; c++) {
        CHECK_RC(vt->get_comm_id(obj, c, &id[c]), 0, "get_comm_id");
        CHECK_RC(vt->get_comm_id(obj, c, &again), 0, "get_comm_id again");
        CHECK(again == id[c], "comm %d id stable", c);
    }
    CHECK(id[0] == id0, "comm 0 id unchanged by resize");
    CHECK(id[0] != id[1] && id[1] != id[2] && id[0] != id[2], "comm ids distinct");
    CHECK_RC(vt->get_comm_id(obj, 3, &again), CU_COMMS_ERROR_INVALID_VALUE, "comm 3");
    CHECK_RC(vt->get_comm_id(obj, -1, &again), CU_COMMS_ERROR_INVALID_VALUE, "comm -1");
    CHECK_RC(vt->get_comm_id(obj, 0, NULL), CU_COMMS_ERROR_INVALID_VALUE, "NULL id_out");

    /* barrier on every communicator */
    for (int c = 0; c < 3; c++) {
        void *r = NULL;
        CHECK_RC(vt->barrier(obj, c, &r), 0, "barrier issued");
        CHECK(r != NULL, "barrier request");
        CHECK_RC(wait_req(vt, obj, &r, 20), 0, "barrier completes");
        CHECK(r == NULL, "request freed and cleared");
    }

    /* every operation, 1 and 1000 elements */
    static cuuint64_t send[BIG], recv[BIG];
    fill(send, BIG);
    for (int k = 0; k < NOPS; k++) {
        for (int count = 1; count <= BIG; count += BIG - 1) {
            void *r = NULL;
            memset(recv, 0, sizeof recv);
            CHECK_RC(vt->allreduce_uint64(obj, 1, send, recv, count, ops[k], &r), 0,
                     "allreduce issued");
            CHECK_RC(wait_req(vt, obj, &r, 20), 0, "allreduce completes");
            CHECK(right(ops[k], all, n, recv, count), "op %d, %d element(s): right result",
                  ops[k], count);
        }
    }
    /* in place, and zero elements */
    {
        static cuuint64_t buf[BIG];
        fill(buf, BIG);
        void *r = NULL;
        CHECK_RC(vt->allreduce_uint64(obj, 2, buf, buf, BIG, CU_COMMS_REDUCTION_OP_SUM, &r), 0,
                 "in-place allreduce");
        CHECK_RC(wait_req(vt, obj, &r, 20), 0, "in-place allreduce completes");
        CHECK(right(CU_COMMS_REDUCTION_OP_SUM, all, n, buf, BIG), "in-place result");
        CHECK_RC(vt->allreduce_uint64(obj, 2, NULL, NULL, 0, CU_COMMS_REDUCTION_OP_MAX, &r), 0,
                 "zero-element allreduce");
        CHECK_RC(wait_req(vt, obj, &r, 20), 0, "zero-element allreduce completes");
    }
    /* bad arguments create no request (so nothing to match on the other ranks) */
    {
        void *r = NULL;
        CHECK_RC(vt->allreduce_uint64(obj, 0, send, recv, 1, (CUcommsReductionOp)977, &r),
                 CU_COMMS_ERROR_NOT_SUPPORTED, "unknown op");
        CHECK_RC(vt->allreduce_uint64(obj, 0, send, recv, -1, CU_COMMS_REDUCTION_OP_SUM, &r),
                 CU_COMMS_ERROR_INVALID_VALUE, "negative count");
        CHECK_RC(vt->allreduce_uint64(obj, 0, NULL, recv, 1, CU_COMMS_REDUCTION_OP_SUM, &r),
                 CU_COMMS_ERROR_INVALID_VALUE, "NULL sendbuf");
        CHECK_RC(vt->allreduce_uint64(obj, 7, send, recv, 1, CU_COMMS_REDUCTION_OP_SUM, &r),
                 CU_COMMS_ERROR_INVALID_VALUE, "communicator 7");
        CHECK_RC(vt->barrier(obj, 3, &r), CU_COMMS_ERROR_INVALID_VALUE, "barrier on comm 3");
        CHECK_RC(vt->barrier(obj, 0, NULL), CU_COMMS_ERROR_INVALID_VALUE, "NULL request_out");
        void *bogus = (void *)(uintptr_t)0x5a5a5a;
        int flag = 0;
        CHECK_RC(vt->test(obj, &bogus, &flag), CU_COMMS_ERROR_INVALID_VALUE, "bogus request");
        CHECK(r == NULL, "no request handed out");
    }

    /* communicators 1 and 2 in opposite orders; the ops differ per communicator */
    {
        static cuuint64_t r1[BIG], r2[1];
        void *q1 = NULL, *q2 = NULL;
        for (int rep = 0; rep < 5; rep++) {
            memset(r1, 0, sizeof r1);
            r2[0] = 0;
            if (me.rank % 2 == 0) {
                CHECK_RC(vt->allreduce_uint64(obj, 1, send, r1, BIG, CU_COMMS_REDUCTION_OP_SUM, &q1), 0, "comm 1 first");
                CHECK_RC(vt->allreduce_uint64(obj, 2, send, r2, 1, CU_COMMS_REDUCTION_OP_MAX, &q2), 0, "comm 2 second");
            } else {
                CHECK_RC(vt->allreduce_uint64(obj, 2, send, r2, 1, CU_COMMS_REDUCTION_OP_MAX, &q2), 0, "comm 2 first");
                CHECK_RC(vt->allreduce_uint64(obj, 1, send, r1, BIG, CU_COMMS_REDUCTION_OP_SUM, &q1), 0, "comm 1 second");
            }
            /* Wait in the order issued by the other parity too. */
            if (me.rank % 2 == 0) {
                CHECK_RC(wait_req(vt, obj, &q2, 20), 0, "comm 2 completes");
                CHECK_RC(wait_req(vt, obj, &q1, 20), 0, "comm 1 completes");
            } else {
                CHECK_RC(wait_req(vt, obj, &q1, 20), 0, "comm 1 completes");
                CHECK_RC(wait_req(vt, obj, &q2, 20), 0, "comm 2 completes");
            }
            CHECK(right(CU_COMMS_REDUCTION_OP_SUM, all, n, r1, BIG), "comm 1 sum right");
            CHECK(right(CU_COMMS_REDUCTION_OP_MAX, all, n, r2, 1), "comm 2 max right");
        }
    }

    /* many outstanding requests on all three communicators, collected with testany */
    {
#define MANY 120
        static void *reqs[MANY];
        static cuuint64_t res[MANY][4];
        static cuuint64_t in[MANY][4];
        for (int i = 0; i < MANY; i++) {
            int c = i % 3;
            if (i % 4 == 0) {
                CHECK_RC(vt->barrier(obj, c, &reqs[i]), 0, "barrier issued");
            } else {
                for (int j = 0; j < 4; j++) {
                    in[i][j] = value_of(me.rank, i * 4 + j);
                }
                CHECK_RC(vt->allreduce_uint64(obj, c, in[i], res[i], 4, ops[i % NOPS], &reqs[i]),
                         0, "allreduce issued");
            }
        }
        int done = 0, wrong = 0, errors = 0;
        double t0 = now_s();
        while (done < MANY && now_s() - t0 < 30) {
            int idx = -1;
            int rc = vt->testany(obj, MANY, reqs, &idx);
            if (rc != 0) {
                errors++;
            }
            if (idx < 0) {
                sched_yield();
                continue;
            }
            if (reqs[idx] != NULL) {
                wrong++;
            }
            if (idx % 4 != 0) {
                for (int j = 0; j < 4; j++) {
                    if (res[idx][j] != expected_at(ops[idx % NOPS], all, n, idx * 4 + j)) {
                        wrong++;
                    }
                }
            }
            done++;
        }
        CHECK(done == MANY, "%d of %d outstanding requests completed", done, MANY);
        CHECK(errors == 0 && wrong == 0, "all right (%d errors, %d wrong)", errors, wrong);
        int idx = 7;
        CHECK_RC(vt->testany(obj, MANY, reqs, &idx), 0, "testany over cleared handles");
        CHECK(idx == -1, "nothing left: index %d", idx);
        CHECK_RC(vt->testany(obj, 0, NULL, &idx), 0, "testany of nothing");
        CHECK(idx == -1, "empty testany: -1");
    }

    /* test/testany say "not yet" while a peer lags */
    if (n > 1) {
        sync_all(vt, obj);
        void *r = NULL;
        if (me.rank == 0) {
            CHECK_RC(vt->barrier(obj, 2, &r), 0, "barrier while the others wait");
            int flag = 7, idx = 7;
            CHECK_RC(vt->test(obj, &r, &flag), 0, "test");
            CHECK(flag == 0 && r != NULL, "not complete yet");
            CHECK_RC(vt->testany(obj, 1, &r, &idx), 0, "testany");
            CHECK(idx == -1 && r != NULL, "testany: none complete");
        } else {
            pause_us(300000);
            CHECK_RC(vt->barrier(obj, 2, &r), 0, "late barrier");
        }
        CHECK_RC(wait_req(vt, obj, &r, 20), 0, "lagging barrier completes");
    }
    {
        void *nul = NULL;
        int flag = 0;
        CHECK_RC(vt->test(obj, &nul, &flag), 0, "test of a NULL request");
        CHECK(flag == 1, "a NULL request is complete");
        CHECK_RC(vt->test(obj, NULL, &flag), CU_COMMS_ERROR_INVALID_VALUE, "NULL request pointer");
    }

    /* a second object over an explicit list, and one over the first half of the ranks */
    {
        pmix_proc_t *list = calloc(n, sizeof *list);
        for (uint32_t r = 0; r < n; r++) {
            PMIX_LOAD_PROCID(&list[r], me.nspace, n - 1 - r); /* any order */
        }
        void *obj2 = NULL;
        const CUhostCommunicationsVtable *vt2 = NULL;
        CHECK_RC(pmix_cuda_comms_create(list, n, &obj2, &vt2), PMIX_SUCCESS, "create (list)");
        CHECK(vt2 == vt, "one vtable");
        cuuint64_t id2;
        CHECK_RC(vt->get_comm_id(obj2, 0, &id2), 0, "get_comm_id of the second object");
        CHECK(id2 != id[0] && id2 != id[1] && id2 != id[2], "ids distinct across objects");
        uint32_t half = (n + 1) / 2;
        void *sub = NULL;
        bool in_sub = me.rank < half;
        if (in_sub) {
            CHECK_RC(pmix_cuda_comms_create(list + (n - half), half, &sub, &vt2), PMIX_SUCCESS,
                     "create (first half)");
        } else {
            CHECK_RC(pmix_cuda_comms_create(list + (n - half), half, &sub, &vt2),
                     PMIX_ERR_NOT_A_MEMBER, "create of a set without me");
            sub = NULL;
        }
        /* Interleave: obj2 and obj in opposite orders by parity, the subset in between. */
        static cuuint64_t a[BIG], b[BIG], c[1];
        void *qa = NULL, *qb = NULL, *qc = NULL;
        if (me.rank % 2) {
            CHECK_RC(vt->allreduce_uint64(obj2, 0, send, a, BIG, CU_COMMS_REDUCTION_OP_BXOR, &qa), 0, "obj2");
        }
        if (sub) {
            CHECK_RC(vt->allreduce_uint64(sub, 0, send, c, 1, CU_COMMS_REDUCTION_OP_SUM, &qc), 0, "subset");
        }
        CHECK_RC(vt->allreduce_uint64(obj, 0, send, b, BIG, CU_COMMS_REDUCTION_OP_MIN, &qb), 0, "obj");
        if (me.rank % 2 == 0) {
            CHECK_RC(vt->allreduce_uint64(obj2, 0, send, a, BIG, CU_COMMS_REDUCTION_OP_BXOR, &qa), 0, "obj2");
        }
        CHECK_RC(wait_req(vt, obj2, &qa, 20), 0, "obj2 completes");
        CHECK_RC(wait_req(vt, obj, &qb, 20), 0, "obj completes");
        CHECK(right(CU_COMMS_REDUCTION_OP_BXOR, all, n, a, BIG), "obj2 result");
        CHECK(right(CU_COMMS_REDUCTION_OP_MIN, all, n, b, BIG), "obj result");
        if (sub) {
            CHECK_RC(wait_req(vt, sub, &qc, 20), 0, "subset completes");
            CHECK(right(CU_COMMS_REDUCTION_OP_SUM, all, half, c, 1), "subset result");
            CHECK_RC(vt->check_async_error(sub), 0, "subset: no async error");
            vt->release(sub);
        }
        /* retain/release: two references, then one; still usable */
        vt->retain(obj2);
        vt->release(obj2);
        sync_all(vt, obj2);
        /* Odd ranks release obj2 with a barrier outstanding; even ranks must still see it
         * complete (the odd ranks' halves were sent). */
        void *q = NULL;
        CHECK_RC(vt->barrier(obj2, 0, &q), 0, "barrier before release");
        if (me.rank % 2) {
            vt->release(obj2);
            int flag = 0;
            CHECK_RC(vt->test(obj2, &q, &flag), CU_COMMS_ERROR_INVALID_VALUE,
                     "the released handle is gone");
        } else {
            CHECK_RC(wait_req(vt, obj2, &q, 20), 0, "peers' released objects took part");
            CHECK_RC(vt->check_async_error(obj2), 0, "obj2: no async error");
            vt->release(obj2);
        }
        free(list);
    }

    CHECK_RC(vt->check_async_error(obj), 0, "no async error");
    sync_all(vt, obj);
    vt->release(obj);
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    free(all);
    CHECK_DONE();
}
