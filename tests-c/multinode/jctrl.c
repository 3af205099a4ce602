/* jctrl: PMIx_Job_control from a rank on another node than its target (the front end
 * serves every node's job_control upcall): the last rank sends SIGUSR1 to rank 0 with
 * PMIX_JOB_CTRL_SIGNAL, which rank 0 must receive; a directive pmixrun does not serve
 * is refused with PMIX_ERR_NOT_SUPPORTED.
 * Run: pmixrun --nodes K -n N jctrl */
#include <signal.h>
#include <unistd.h>

#include "mn.h"

static volatile sig_atomic_t got = 0;

static void on_usr1(int sig)
{
    (void)sig;
    got = 1;
}

int main(void)
{
    signal(SIGUSR1, on_usr1);
    pmix_proc_t me;
    uint32_t n = mn_init(&me);
    if (n < 2) {
        CHECK(n >= 2, "at least 2 ranks");
        CHECK_DONE();
    }
    CHECK_RC(mn_fence(false), PMIX_SUCCESS, "Fence (every handler installed)");
    if (me.rank == n - 1) {
        pmix_proc_t target;
        PMIX_LOAD_PROCID(&target, me.nspace, 0);
        pmix_info_t info;
        int sig = SIGUSR1;
        PMIX_INFO_LOAD(&info, PMIX_JOB_CTRL_SIGNAL, &sig, PMIX_INT);
        CHECK_RC(PMIx_Job_control(&target, 1, &info, 1, NULL, NULL), PMIX_SUCCESS,
                 "PMIx_Job_control(SIGNAL SIGUSR1) of rank 0");
        PMIX_INFO_DESTRUCT(&info);
        bool yes = true;
        PMIX_INFO_LOAD(&info, PMIX_JOB_CTRL_PAUSE, &yes, PMIX_BOOL);
        CHECK_RC(PMIx_Job_control(&target, 1, &info, 1, NULL, NULL), PMIX_ERR_NOT_SUPPORTED,
                 "PMIx_Job_control(PAUSE) is not served");
        PMIX_INFO_DESTRUCT(&info);
    }
    if (me.rank == 0) {
        for (int i = 0; i < 1000 && !got; i++) {
            usleep(10000);
        }
        CHECK(got, "rank 0 received SIGUSR1 from rank %u", n - 1);
    }
    CHECK_RC(mn_fence(false), PMIX_SUCCESS, "final Fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
