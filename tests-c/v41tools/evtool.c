/* evtool: events to and from a tool attached to a running job's server by its pid.
 * Built twice (mk/v41tools.mk): against Debian's OpenPMIx 4.2.2 and against our library.
 *
 *   evtool PID listen CODE READY   register a handler for CODE, create the file READY,
 *                                  wait up to 10 s for the event
 *   evtool PID notify CODE RANGE   PMIx_Notify_event(CODE, range RANGE: a number)
 *
 * Checks: PMIx_tool_init with PMIX_SERVER_PIDINFO = PID succeeds; "listen": the handler
 * registers and sees CODE ("evtool: event N from NSPACE.RANK"); "notify": the call
 * succeeds; PMIx_tool_finalize succeeds. Prints one ok/FAIL line per check and
 * "...evtool.c: N checks, M failed"; the exit status is the verdict. */
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "tool.h"

static volatile int seen = 0;

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *source,
                     pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)info;
    (void)ninfo;
    (void)results;
    (void)nresults;
    printf("evtool: event %d from %s.%u\n", (int)status, source ? source->nspace : "-",
           source ? source->rank : 0);
    fflush(stdout);
    seen = 1;
    if (NULL != cbfunc) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

static void listen_for(pmix_status_t code, const char *ready)
{
    pmix_status_t rc = PMIx_Register_event_handler(&code, 1, NULL, 0, on_event, NULL, NULL);
    CHECK(rc >= 0, "PMIx_Register_event_handler for %d: %d", (int)code, (int)rc);
    if (rc < 0) {
        return;
    }
    FILE *f = fopen(ready, "w");
    if (NULL != f) {
        fclose(f);
    }
    for (int i = 0; i < 1000 && !seen; i++) {
        usleep(10000);
    }
    CHECK(seen, "the tool's handler saw event %d", (int)code);
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: evtool PID listen CODE READY | evtool PID notify CODE RANGE\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    pid_t spid = (pid_t)atoi(argv[1]);
    bool listen = 0 == strcmp(argv[2], "listen");
    pmix_status_t code = (pmix_status_t)atoi(argv[3]);

    pmix_proc_t me;
    if (!tool_attach(&me, spid, NULL)) {
        CHECK_DONE();
    }
    if (listen) {
        listen_for(code, argv[4]);
    } else {
        pmix_data_range_t range = (pmix_data_range_t)atoi(argv[4]);
        CHECK_RC(PMIx_Notify_event(code, &me, range, NULL, 0, NULL, NULL), PMIX_SUCCESS,
                 "PMIx_Notify_event");
        /* let the notification leave before the connection closes */
        usleep(300000);
    }
    CHECK_RC(PMIx_tool_finalize(), PMIX_SUCCESS, "PMIx_tool_finalize");
    CHECK_DONE();
}
