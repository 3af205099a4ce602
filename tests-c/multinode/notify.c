/* notify: an event a process raises for its namespace (PMIX_RANGE_NAMESPACE) reaches
 * the processes on every node, relayed by the hosts between the servers.
 * Run: pmixrun --nodes K -n N notify */
#include <stdatomic.h>
#include <unistd.h>

#include "mn.h"

#define MY_EVENT (PMIX_EXTERNAL_ERR_BASE - 7)

static atomic_int got = 0;
static atomic_uint from = 0;

static void handler(size_t id, pmix_status_t status, const pmix_proc_t *source,
                    pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)info;
    (void)ninfo;
    (void)results;
    (void)nresults;
    if (status == MY_EVENT) {
        atomic_store(&from, source ? source->rank : 9999);
        atomic_store(&got, 1);
    }
    if (cbfunc) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

int main(void)
{
    pmix_proc_t me;
    uint32_t n = mn_init(&me);
    if (n < 2) {
        CHECK(n >= 2, "at least 2 ranks");
        CHECK_DONE();
    }
    pmix_status_t code = MY_EVENT;
    pmix_status_t ref = PMIx_Register_event_handler(&code, 1, NULL, 0, handler, NULL, NULL);
    CHECK(ref >= 0, "PMIx_Register_event_handler: %d", ref);
    CHECK_RC(mn_fence(false), PMIX_SUCCESS, "Fence (every handler registered)");
    pmix_rank_t sender = n - 1;
    if (me.rank == sender) {
        CHECK_RC(PMIx_Notify_event(MY_EVENT, &me, PMIX_RANGE_NAMESPACE, NULL, 0, NULL, NULL),
                 PMIX_SUCCESS, "PMIx_Notify_event");
    } else {
        for (int i = 0; i < 1000 && !atomic_load(&got); i++) {
            usleep(10000);
        }
        CHECK(atomic_load(&got), "rank %u received the event of rank %u", me.rank, sender);
        CHECK(atomic_load(&from) == sender, "its source is rank %u (got %u)", sender,
              atomic_load(&from));
    }
    CHECK_RC(mn_fence(false), PMIX_SUCCESS, "final Fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
