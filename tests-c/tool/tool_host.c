/* tool_host: tools connecting to a C host's server (the path of a resource manager's
 * daemon), without pmixrun. The host forks tools of itself (this binary in a child mode).
 *
 *   tool_host slot  PMIX_SERVER_TOOL_SUPPORT and a tool_connected slot: the rendezvous
 *                   files pmix.<host>.tool.<pid> and pmix.<host>.tool.<nspace> are in
 *                   PMIX_SERVER_TMPDIR while the server runs and gone after finalize;
 *                   a tool asking for an identity (found by pid) gets the one the slot
 *                   assigns, and the slot saw its PMIX_USERID; a named tool (found by
 *                   the server's nspace) keeps its name and the slot saw PMIX_NSPACE;
 *                   each tool sees one server, the host's
 *   tool_host null  tool support with a NULL slot: a tool asking for an identity is
 *                   refused with PMIX_ERR_NOT_SUPPORTED, a named tool is accepted
 *   tool_host off   no tool support: no rendezvous file, the tool gets PMIX_ERR_UNREACH */
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>
#include <pmix_tool.h>

#include "check.h"

#define SRV_NS "toolhost-srv"
#define WAIT_S 40

static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static int slot_calls, saw_uid, saw_named;

static void tool_connected(pmix_info_t *info, size_t ninfo, pmix_tool_connection_cbfunc_t cbfunc,
                           void *cbdata)
{
    pmix_proc_t id;
    PMIX_LOAD_PROCID(&id, "hosttool", 5);
    bool named = false;
    pthread_mutex_lock(&mtx);
    slot_calls++;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_USERID) && info[i].value.data.uint32 == (uint32_t)geteuid())
            saw_uid++;
        if (PMIX_CHECK_KEY(&info[i], PMIX_NSPACE) && info[i].value.type == PMIX_STRING) {
            PMIX_LOAD_NSPACE(id.nspace, info[i].value.data.string);
            named = true;
        }
        if (PMIX_CHECK_KEY(&info[i], PMIX_RANK)) id.rank = info[i].value.data.rank;
    }
    if (named) saw_named++;
    pthread_mutex_unlock(&mtx);
    cbfunc(PMIX_SUCCESS, &id, cbdata);
}

/* Child: a tool. argv: child-assign|child-named DIR WANT_STATUS */
static int child(const char *mode, const char *dir, int want)
{
    pmix_proc_t me;
    pmix_info_t info[4];
    size_t n = 0;
    PMIX_INFO_LOAD(&info[n], PMIX_SERVER_TMPDIR, dir, PMIX_STRING);
    n++;
    bool named = 0 == strcmp(mode, "child-named");
    if (named) {
        pmix_rank_t r = 2;
        PMIX_INFO_LOAD(&info[n], PMIX_SERVER_NSPACE, SRV_NS, PMIX_STRING);
        n++;
        PMIX_INFO_LOAD(&info[n], PMIX_TOOL_NSPACE, "mine", PMIX_STRING);
        n++;
        PMIX_INFO_LOAD(&info[n], PMIX_TOOL_RANK, &r, PMIX_PROC_RANK);
        n++;
    } else {
        pid_t pid = getppid();
        PMIX_INFO_LOAD(&info[n], PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
        n++;
    }
    CHECK_RC(PMIx_tool_init(&me, info, n), want, mode);
    if (want == PMIX_SUCCESS) {
        if (named)
            CHECK(0 == strcmp(me.nspace, "mine") && me.rank == 2, "named %s.%u", me.nspace, me.rank);
        else
            CHECK(0 == strcmp(me.nspace, "hosttool") && me.rank == 5, "assigned %s.%u", me.nspace,
                  me.rank);
        pmix_proc_t *s = NULL;
        size_t ns = 0;
        CHECK_RC(PMIx_tool_get_servers(&s, &ns), PMIX_SUCCESS, "get_servers");
        CHECK(ns == 1 && 0 == strcmp(s[0].nspace, SRV_NS), "the host's server");
        if (s) PMIX_PROC_FREE(s, ns);
        CHECK_RC(PMIx_tool_finalize(), PMIX_SUCCESS, "finalize");
    }
    for (size_t i = 0; i < n; i++) PMIX_INFO_DESTRUCT(&info[i]);
    CHECK_DONE();
}

static int run_tool(const char *self, const char *mode, const char *dir, int want)
{
    char w[16];
    snprintf(w, sizeof w, "%d", want);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        execl(self, self, mode, dir, w, (char *)NULL);
        _exit(127);
    }
    int st = 0;
    for (int i = 0; i < WAIT_S * 10; i++) {
        if (waitpid(pid, &st, WNOHANG) == pid) return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
        usleep(100000);
    }
    kill(pid, 9);
    waitpid(pid, &st, 0);
    return -1;
}

int main(int argc, char **argv)
{
    if (argc == 4) return child(argv[1], argv[2], atoi(argv[3]));
    if (argc != 2) {
        fprintf(stderr, "usage: tool_host slot|null|off\n");
        return 2;
    }
    const char *mode = argv[1];
    bool slot = 0 == strcmp(mode, "slot"), off = 0 == strcmp(mode, "off");
    char dir[] = "/tmp/pmix-tool-host.XXXXXX";
    CHECK(mkdtemp(dir) != NULL, "tmpdir");
    pmix_server_module_t module;
    memset(&module, 0, sizeof module);
    if (slot) module.tool_connected = tool_connected;
    pmix_info_t info[3];
    bool yes = !off;
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_TMPDIR, dir, PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_SERVER_NSPACE, SRV_NS, PMIX_STRING);
    PMIX_INFO_LOAD(&info[2], PMIX_SERVER_TOOL_SUPPORT, &yes, PMIX_BOOL);
    CHECK_RC(PMIx_server_init(&module, info, 3), PMIX_SUCCESS, "PMIx_server_init");
    char host[200] = "", pidf[512], nsf[512];
    gethostname(host, sizeof host - 1);
    snprintf(pidf, sizeof pidf, "%s/pmix.%s.tool.%d", dir, host, (int)getpid());
    snprintf(nsf, sizeof nsf, "%s/pmix.%s.tool.%s", dir, host, SRV_NS);
    struct stat sb;
    CHECK((stat(pidf, &sb) == 0) == !off, "pid rendezvous file %s", off ? "absent" : "present");
    CHECK((stat(nsf, &sb) == 0) == !off, "nspace rendezvous file %s", off ? "absent" : "present");

    if (off) {
        CHECK_RC(run_tool(argv[0], "child-assign", dir, PMIX_ERR_UNREACH), 0, "tool found nothing");
    } else {
        CHECK_RC(run_tool(argv[0], "child-assign", dir, slot ? PMIX_SUCCESS : PMIX_ERR_NOT_SUPPORTED),
                 0, "tool asking for an identity");
        CHECK_RC(run_tool(argv[0], "child-named", dir, PMIX_SUCCESS), 0, "named tool");
    }
    pthread_mutex_lock(&mtx);
    if (slot) {
        CHECK(slot_calls == 2, "tool_connected called twice (%d)", slot_calls);
        CHECK(saw_uid == 2, "it saw PMIX_USERID (%d)", saw_uid);
        CHECK(saw_named == 1, "it saw the named tool's PMIX_NSPACE (%d)", saw_named);
    }
    pthread_mutex_unlock(&mtx);
    CHECK_RC(PMIx_server_finalize(), PMIX_SUCCESS, "PMIx_server_finalize");
    CHECK(stat(pidf, &sb) != 0 && stat(nsf, &sb) != 0, "rendezvous files removed");
    rmdir(dir);
    for (int i = 0; i < 3; i++) PMIX_INFO_DESTRUCT(&info[i]);
    CHECK_DONE();
}
