/* tool_noserver: the tool API without a server (run with PMIX_SERVER_TMPDIR and
 * PMIX_SYSTEM_TMPDIR naming an empty directory and no PMIX_SERVER_URI* variables).
 *  - before PMIx_tool_init: finalize/get_servers/set_server/disconnect are
 *    PMIX_ERR_INIT, is_connected is false;
 *  - bad arguments: NULL proc, PMIX_TOOL_NSPACE without PMIX_TOOL_RANK (and the
 *    reverse), a non-string PMIX_TOOL_NSPACE: PMIX_ERR_BAD_PARAM;
 *  - no server to be found (nothing named; a pid; a URI whose socket does not exist;
 *    PMIX_CONNECT_TO_SYSTEM): PMIX_ERR_UNREACH;
 *  - PMIX_TOOL_CONNECT_OPTIONAL: success, self-assigned <host>:<pid> rank 0, unconnected;
 *  - PMIX_TOOL_DO_NOT_CONNECT with a chosen identity: that identity, unconnected, own
 *    job data (job size 1), reference-counted init/finalize, set_server UNREACH,
 *    disconnect NOT_FOUND, attach to a missing server UNREACH. */
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_tool.h>

#include "check.h"

int main(void)
{
    pmix_proc_t me, srv;
    pmix_proc_t *servers = NULL;
    size_t n = 7;
    PMIX_LOAD_PROCID(&srv, "some-server", 0);

    CHECK_RC(PMIx_tool_finalize(), PMIX_ERR_INIT, "finalize before init");
    CHECK(!PMIx_tool_is_connected(), "not connected before init");
    CHECK_RC(PMIx_tool_get_servers(&servers, &n), PMIX_ERR_INIT, "get_servers before init");
    CHECK_RC(PMIx_tool_get_servers(NULL, &n), PMIX_ERR_BAD_PARAM, "get_servers(NULL, ...)");
    CHECK_RC(PMIx_tool_set_server(&srv, NULL, 0), PMIX_ERR_INIT, "set_server before init");
    CHECK_RC(PMIx_tool_disconnect(&srv), PMIX_ERR_INIT, "disconnect before init");

    pmix_info_t info[3];
    CHECK_RC(PMIx_tool_init(NULL, NULL, 0), PMIX_ERR_BAD_PARAM, "init(NULL proc)");
    PMIX_INFO_LOAD(&info[0], PMIX_TOOL_NSPACE, "mytool", PMIX_STRING);
    CHECK_RC(PMIx_tool_init(&me, info, 1), PMIX_ERR_BAD_PARAM, "TOOL_NSPACE without TOOL_RANK");
    PMIX_INFO_DESTRUCT(&info[0]);
    pmix_rank_t rank = 3;
    PMIX_INFO_LOAD(&info[0], PMIX_TOOL_RANK, &rank, PMIX_PROC_RANK);
    CHECK_RC(PMIx_tool_init(&me, info, 1), PMIX_ERR_BAD_PARAM, "TOOL_RANK without TOOL_NSPACE");
    uint32_t bogus = 5;
    PMIX_INFO_LOAD(&info[1], PMIX_TOOL_NSPACE, &bogus, PMIX_UINT32);
    CHECK_RC(PMIx_tool_init(&me, info, 2), PMIX_ERR_BAD_PARAM, "a non-string TOOL_NSPACE");
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);

    CHECK_RC(PMIx_tool_init(&me, NULL, 0), PMIX_ERR_UNREACH, "no server anywhere");
    pid_t pid = 1;
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
    CHECK_RC(PMIx_tool_init(&me, info, 1), PMIX_ERR_UNREACH, "a pid with no server");
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_URI, "x.0;unix:/nonexistent/pmix/sock", PMIX_STRING);
    CHECK_RC(PMIx_tool_init(&me, info, 1), PMIX_ERR_UNREACH, "a URI nobody listens on");
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_LOAD(&info[0], PMIX_CONNECT_TO_SYSTEM, NULL, PMIX_BOOL);
    CHECK_RC(PMIx_tool_init(&me, info, 1), PMIX_ERR_UNREACH, "no system server");
    PMIX_INFO_DESTRUCT(&info[0]);
    CHECK(!PMIx_tool_is_connected(), "still not initialized");

    /* Optional connection. */
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
    PMIX_INFO_LOAD(&info[1], PMIX_TOOL_CONNECT_OPTIONAL, NULL, PMIX_BOOL);
    CHECK_RC(PMIx_tool_init(&me, info, 2), PMIX_SUCCESS, "optional connection");
    char want[PMIX_MAX_NSLEN + 1];
    char host[200] = "";
    gethostname(host, sizeof host - 1);
    snprintf(want, sizeof want, "%s:%d", host, (int)getpid());
    CHECK(0 == strcmp(me.nspace, want) && me.rank == 0, "self-assigned %s.%u (want %s.0)",
          me.nspace, me.rank, want);
    CHECK(!PMIx_tool_is_connected(), "not connected");
    CHECK_RC(PMIx_tool_get_servers(&servers, &n), PMIX_ERR_UNREACH, "get_servers unconnected");
    CHECK(n == 0 && servers == NULL, "no servers returned");
    CHECK_RC(PMIx_tool_finalize(), PMIX_SUCCESS, "finalize");
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);

    /* Do not connect, with a chosen identity. */
    PMIX_INFO_LOAD(&info[0], PMIX_TOOL_NSPACE, "mytool", PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_TOOL_RANK, &rank, PMIX_PROC_RANK);
    PMIX_INFO_LOAD(&info[2], PMIX_TOOL_DO_NOT_CONNECT, NULL, PMIX_BOOL);
    CHECK_RC(PMIx_tool_init(&me, info, 3), PMIX_SUCCESS, "DO_NOT_CONNECT");
    CHECK(0 == strcmp(me.nspace, "mytool") && me.rank == 3, "identity %s.%u", me.nspace, me.rank);
    CHECK(!PMIx_tool_is_connected(), "not connected");
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, "mytool", PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    CHECK_RC(PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v), PMIX_SUCCESS, "own job size");
    uint32_t size = 0;
    if (v) {
        PMIx_Value_get_number(v, &size, PMIX_UINT32);
        PMIX_VALUE_RELEASE(v);
    }
    CHECK(size == 1, "job size %u", size);
    pmix_proc_t again;
    CHECK_RC(PMIx_tool_init(&again, NULL, 0), PMIX_SUCCESS, "init again (counted)");
    CHECK(PMIX_CHECK_PROCID(&again, &me), "same identity");
    CHECK_RC(PMIx_tool_set_server(&srv, NULL, 0), PMIX_ERR_UNREACH, "set_server unconnected");
    CHECK_RC(PMIx_tool_disconnect(&srv), PMIX_ERR_NOT_FOUND, "disconnect unconnected");
    CHECK_RC(PMIx_tool_disconnect(NULL), PMIX_ERR_BAD_PARAM, "disconnect(NULL)");
    pmix_info_t a;
    PMIX_INFO_LOAD(&a, PMIX_SERVER_URI, "x.0;unix:/nonexistent/pmix/sock", PMIX_STRING);
    CHECK_RC(PMIx_tool_attach_to_server(NULL, NULL, &a, 1), PMIX_ERR_UNREACH,
             "attach to a missing server");
    CHECK_RC(PMIx_tool_connect_to_server(NULL, &a, 0), PMIX_ERR_BAD_PARAM,
             "connect_to_server without directives");
    PMIX_INFO_DESTRUCT(&a);
    CHECK(!PMIx_tool_is_connected(), "still not connected");
    CHECK_RC(PMIx_tool_finalize(), PMIX_SUCCESS, "finalize (1 of 2)");
    CHECK_RC(PMIx_tool_finalize(), PMIX_SUCCESS, "finalize (2 of 2)");
    CHECK_RC(PMIx_tool_finalize(), PMIX_ERR_INIT, "finalize once too often");
    for (int i = 0; i < 3; i++) PMIX_INFO_DESTRUCT(&info[i]);
    CHECK_DONE();
}
