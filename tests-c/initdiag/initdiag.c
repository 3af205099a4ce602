/* initdiag: what PMIx_Init and PMIx_tool_init say on stderr when they cannot reach or
 * talk to their server (tests-c/initdiag/run.sh sets up each case and reads stderr).
 *
 *   initdiag client      PMIx_Init twice (the reason is told once per process); prints
 *                        "init: <status name>" for each; finalizes after a success
 *   initdiag wrongrank   the same, after claiming a rank the server does not know
 *   initdiag tool URI    PMIx_tool_init with PMIX_SERVER_URI = URI, twice */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>
#include <pmix_tool.h>

static int client(void)
{
    int bad = 0;
    for (int i = 0; i < 2; i++) {
        pmix_proc_t me;
        pmix_status_t rc = PMIx_Init(&me, NULL, 0);
        printf("init: %s\n", PMIx_Error_string(rc));
        if (PMIX_SUCCESS == rc) {
            bad |= PMIX_SUCCESS != PMIx_Finalize(NULL, 0);
            break;
        }
    }
    fflush(stdout);
    return bad;
}

static int tool(const char *uri)
{
    for (int i = 0; i < 2; i++) {
        pmix_proc_t me;
        pmix_info_t info;
        PMIX_INFO_LOAD(&info, PMIX_SERVER_URI, uri, PMIX_STRING);
        pmix_status_t rc = PMIx_tool_init(&me, &info, 1);
        PMIX_INFO_DESTRUCT(&info);
        printf("tool init: %s\n", PMIx_Error_string(rc));
        if (PMIX_SUCCESS == rc) {
            PMIx_tool_finalize();
            break;
        }
    }
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "client";
    if (0 == strcmp(mode, "tool") && argc > 2) {
        return tool(argv[2]);
    }
    if (0 == strcmp(mode, "wrongrank")) {
        setenv("PMIX_RANK", "99", 1);
    }
    return client();
}
