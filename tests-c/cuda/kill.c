/* kill: a member dies mid-barrier. The last rank takes part in one barrier, then kills
 * itself with SIGKILL while the others wait in a second one. Every survivor must see
 * its request complete with a positive (fatal) code, check_async_error non-zero on
 * that object and on a second, idle object, and no hang.
 * Run: pmixrun -n N kill   (N >= 2; pmixrun then exits 137 because of the victim).
 * Each survivor prints "survivor R: async error seen" when all its checks passed. */
#include <pmix_cuda.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cuda_util.h"

int main(void)
{
    pmix_proc_t me;
    /* The launcher sends SIGTERM to the survivors once the victim is gone; let them
     * finish their checks (they exit on their own right after). */
    signal(SIGTERM, SIG_IGN);
    int irc = PMIx_Init(&me, NULL, 0);
    CHECK_RC(irc, PMIX_SUCCESS, "PMIx_Init");
    if (irc != PMIX_SUCCESS) {
        CHECK_DONE();
    }
    uint32_t n = job_size(&me);
    CHECK(n >= 2, "job size %u >= 2", n);
    void *obj = NULL, *idle = NULL;
    const CUhostCommunicationsVtable *vt = NULL;
    CHECK_RC(pmix_cuda_comms_create(NULL, 0, &obj, &vt), PMIX_SUCCESS, "create");
    CHECK_RC(pmix_cuda_comms_create(NULL, 0, &idle, &vt), PMIX_SUCCESS, "create (idle)");
    if (!vt || n < 2) {
        CHECK_DONE();
    }
    void *r = NULL;
    CHECK_RC(vt->barrier(obj, 0, &r), 0, "first barrier");
    CHECK_RC(wait_req(vt, obj, &r, 20), 0, "first barrier completes");
    if (me.rank == n - 1) {
        pause_us(300000); /* the others are inside the second barrier by now */
        printf("victim %u: dying\n", me.rank);
        fflush(stdout);
        raise(SIGKILL);
    }
    double t0 = now_s();
    CHECK_RC(vt->barrier(obj, 0, &r), 0, "second barrier issued");
    int rc = wait_req(vt, obj, &r, 20);
    double waited = now_s() - t0;
    CHECK(rc > 0, "the barrier failed with a fatal code (%d = -PMIX_ERR_PROC_TERM_WO_SYNC? %s)",
          rc, rc == -PMIX_ERR_PROC_TERM_WO_SYNC ? "yes" : "no");
    CHECK(r == NULL, "the failed request was freed");
    CHECK(waited < 10, "no hang (%.2f s)", waited);
    CHECK(vt->check_async_error(obj) != 0, "async error on the object");
    t0 = now_s();
    while (vt->check_async_error(idle) == 0 && now_s() - t0 < 5) {
        pause_us(1000);
    }
    CHECK(vt->check_async_error(idle) != 0, "async error on the idle object");
    CHECK_RC(vt->barrier(obj, 0, &r), 0, "a later barrier is accepted");
    CHECK(wait_req(vt, obj, &r, 5) > 0, "and fails at once");
    if (check_failures == 0) {
        printf("survivor %u: async error seen\n", me.rank);
    }
    vt->release(obj);
    vt->release(idle);
    PMIx_Finalize(NULL, 0);
    CHECK_DONE();
}
