/* log: PMIx_Log from every node reaches pmixrun's own output (its front end serves the
 * log upcall for every node's server): each rank logs "mn-log rank R node NODE" to
 * PMIX_LOG_STDERR, or to PMIX_LOG_STDOUT when given "stdout"; run.sh checks the lines.
 * A request naming no channel pmixrun has is refused on every node.
 * Run: pmixrun --nodes K -n N log [stdout] */
#include "mn.h"

int main(int argc, char **argv)
{
    pmix_proc_t me;
    uint32_t n = mn_init(&me);
    if (n == 0) {
        CHECK_DONE();
    }
    const char *chan = argc > 1 && 0 == strcmp(argv[1], "stdout") ? PMIX_LOG_STDOUT
                                                                   : PMIX_LOG_STDERR;
    char *host = getenv("PMIX_HOSTNAME");
    char line[128];
    snprintf(line, sizeof line, "mn-log rank %u node %s", me.rank, host ? host : "?");
    pmix_info_t info;
    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, chan, line, PMIX_STRING);
    CHECK_RC(PMIx_Log(&info, 1, NULL, 0), PMIX_SUCCESS, "PMIx_Log");
    PMIX_INFO_DESTRUCT(&info);
    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, PMIX_LOG_SYSLOG, line, PMIX_STRING);
    pmix_status_t rc = PMIx_Log(&info, 1, NULL, 0);
    CHECK(rc != PMIX_SUCCESS, "PMIx_Log to syslog is refused (got %s)", PMIx_Error_string(rc));
    PMIX_INFO_DESTRUCT(&info);
    CHECK_RC(mn_fence(false), PMIX_SUCCESS, "final Fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
