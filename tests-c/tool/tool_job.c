/* tool_job: PMIx tools attaching to a running job. Run: pmixrun -n 2 tool_job MODE TOOL
 * where TOOL is the tool_attach binary.
 *
 *   pid      rank 0 starts TOOL, which finds the server by pmixrun's pid (the rank's
 *            parent), queries, gets, pulls output and finalizes (see tool_attach.c);
 *            after the tool says it is pulling, both ranks print a marker line;
 *            then a second tool attaches and exits without finalizing, and the job
 *            still ends normally (exit status 0)
 *   uri      the same, the tool connecting to the URI in rank 0's environment
 *   refused  (under pmixrun --no-tools) the tool is refused
 *
 * The tool runs with PMIX_NAMESPACE, PMIX_RANK and PMIX_SERVER_URI* removed from its
 * environment, as a process not started by the server. */
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

#include "check.h"

#define WAIT_S 60

static pmix_proc_t me;

/* Start the tool; returns its pid, *rfd the read end of its ready pipe. */
static pid_t start_tool(const char *tool, const char *mode, const char *target, int *rfd,
                        const char *extra)
{
    int p[2];
    if (pipe(p) != 0) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        const char *vars[] = {"PMIX_NAMESPACE", "PMIX_RANK", "PMIX_SERVER_URI41",
                              "PMIX_SERVER_URI4", "PMIX_SERVER_URI3", "PMIX_SERVER_URI21",
                              "PMIX_SERVER_URI2", "PMIX_RS_SERVER_URI"};
        for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) unsetenv(vars[i]);
        char fdarg[16];
        snprintf(fdarg, sizeof fdarg, "%d", p[1]);
        execl(tool, tool, mode, target, me.nspace, extra ? extra : fdarg, (char *)NULL);
        _exit(127);
    }
    close(p[1]);
    *rfd = p[0];
    return pid;
}

/* Wait for the tool to exit (WAIT_S); its exit status, or -1 (then it is killed). */
static int reap(pid_t pid)
{
    int st = 0;
    for (int i = 0; i < WAIT_S * 10; i++) {
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid) return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        usleep(100000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    return -1;
}

/* Wait for the tool's 'R' on fd (WAIT_S); true if it came. */
static int ready(int fd)
{
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    char c = 0;
    if (poll(&pfd, 1, WAIT_S * 1000) != 1) return 0;
    return read(fd, &c, 1) == 1 && c == 'R';
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: tool_job pid|uri|refused TOOL\n");
        return 2;
    }
    const char *mode = argv[1], *tool = argv[2];
    CHECK_RC(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS, "PMIx_Init");
    if (check_failures) CHECK_DONE();
    char ppid[32];
    snprintf(ppid, sizeof ppid, "%d", (int)getppid());
    const char *uri = getenv("PMIX_RS_SERVER_URI");
    CHECK(uri != NULL, "the rank has its server's URI");
    if (!uri) CHECK_DONE();
    int rfd = -1;

    if (0 == strcmp(mode, "refused")) {
        if (me.rank == 0) {
            pid_t t = start_tool(tool, "refused", uri, &rfd, ppid);
            CHECK(t > 0, "started the tool");
            CHECK_RC(reap(t), 0, "the tool saw itself refused (its exit status)");
            close(rfd);
        }
        CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "fence");
        CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
        CHECK_DONE();
    }

    const char *target = 0 == strcmp(mode, "uri") ? uri : ppid;
    pid_t t = -1;
    if (me.rank == 0) {
        t = start_tool(tool, mode, target, &rfd, NULL);
        CHECK(t > 0, "started the tool");
        CHECK(ready(rfd), "the tool is pulling our output");
    }
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "fence after the tool's pull");
    /* The marker goes to stdout, which pmixrun forwards to the tool. */
    printf("tool-marker-%u\n", me.rank);
    fflush(stdout);
    if (me.rank == 0) {
        CHECK_RC(reap(t), 0, "the tool passed (its exit status)");
        close(rfd);
        /* A tool that leaves without finalizing does not fail the job. */
        t = start_tool(tool, "vanish", ppid, &rfd, NULL);
        CHECK(t > 0, "started the vanishing tool");
        CHECK_RC(reap(t), 0, "the vanishing tool attached");
        close(rfd);
    }
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "fence after the tools");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
