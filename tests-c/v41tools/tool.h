/* What the v41tools programs (qtool.c, jctl.c, evtool.c) share: attaching as a tool to a
 * running job's server by its pid. Built against Debian's OpenPMIx 4.2.2 headers and
 * against ours (mk/v41tools.mk); the check is counted with the file's own (check.h). */
#ifndef PMIX_TESTS_V41TOOLS_TOOL_H
#define PMIX_TESTS_V41TOOLS_TOOL_H

#include <stdbool.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_tool.h>

#include "../check.h"

/* PMIx_tool_init with PMIX_SERVER_PIDINFO = spid and, when `name` is not NULL, the name
 * name.0 (PMIX_TOOL_NSPACE, PMIX_TOOL_RANK); one check: whether it succeeded. */
static bool tool_attach(pmix_proc_t *me, pid_t spid, const char *name)
{
    pmix_info_t info[3];
    size_t ninfo = NULL != name ? 3 : 1;
    pmix_rank_t zero = 0;
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_PIDINFO, &spid, PMIX_PID);
    if (NULL != name) {
        PMIX_INFO_LOAD(&info[1], PMIX_TOOL_NSPACE, name, PMIX_STRING);
        PMIX_INFO_LOAD(&info[2], PMIX_TOOL_RANK, &zero, PMIX_PROC_RANK);
    }
    pmix_status_t rc = PMIx_tool_init(me, info, ninfo);
    CHECK_RC(rc, PMIX_SUCCESS, "PMIx_tool_init by the server's pid");
    for (size_t i = 0; i < ninfo; i++) {
        PMIX_INFO_DESTRUCT(&info[i]);
    }
    return PMIX_SUCCESS == rc;
}

#endif
