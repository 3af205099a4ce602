/* opx_host: a tiny PMIx host built against Debian's OpenPMIx 4.2.2 server library, with
 * tool support, to which our tool attaches over OpenPMIx's wire (mk/v41tools.mk).
 *
 *   opx_host TMPDIR TOOL [ARGS...]
 *
 * Initializes an OpenPMIx server (nspace "opxhost", tool support on, its rendezvous
 * files in TMPDIR), registers a job "opxjob" of 2 processes (no process is started:
 * the job exists only as the host's data), then runs TOOL ARGS with "%p" in an argument
 * replaced by its own pid, waits for it and finalizes. Its host module answers tool
 * connections (identities "opxhost-tool1", "opxhost-tool2"..., rank 0: one per tool, so
 * that two tools can send each other events) and queries, as a host does: one flat
 * info per key answered, PMIX_QUERY_NAMESPACES ("opxjob"), PMIX_QUERY_PROC_TABLE
 * (two pmix_proc_info_t of opxjob, pids 1001 and 1002) and PMIX_JOB_SIZE (2, whatever
 * the qualifiers); any other key is NOT_FOUND.
 * The exit status is the tool's (or 1 when the server cannot run, 3 on a timeout). */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#define JOB "opxjob"

static void tool_connected(pmix_info_t *info, size_t ninfo, pmix_tool_connection_cbfunc_t cbfunc,
                           void *cbdata)
{
    (void)info;
    (void)ninfo;
    static int tools = 0;
    char ns[PMIX_MAX_NSLEN + 1];
    snprintf(ns, sizeof ns, "opxhost-tool%d", ++tools);
    pmix_proc_t id;
    PMIX_LOAD_PROCID(&id, ns, 0);
    fprintf(stderr, "opx_host: a tool connected; naming it %s.0\n", ns);
    cbfunc(PMIX_SUCCESS, &id, cbdata);
}

static void release(void *cbdata)
{
    pmix_info_t *res = (pmix_info_t *)cbdata;
    PMIX_INFO_FREE(res, 2);
}

static void proc_table(pmix_info_t *into)
{
    pmix_data_array_t *da = NULL;
    PMIX_DATA_ARRAY_CREATE(da, 2, PMIX_PROC_INFO);
    pmix_proc_info_t *pi = (pmix_proc_info_t *)da->array;
    for (int r = 0; r < 2; r++) {
        PMIX_LOAD_PROCID(&pi[r].proc, JOB, (pmix_rank_t)r);
        pi[r].hostname = strdup("opxnode");
        pi[r].executable_name = strdup("/bin/opx");
        pi[r].pid = 1001 + r;
        pi[r].state = PMIX_PROC_STATE_RUNNING;
    }
    PMIX_INFO_LOAD(into, PMIX_QUERY_PROC_TABLE, da, PMIX_DATA_ARRAY);
    PMIX_DATA_ARRAY_FREE(da);
}

static pmix_status_t query(pmix_proc_t *proct, pmix_query_t *queries, size_t nqueries,
                           pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    (void)proct;
    pmix_info_t *res = NULL;
    size_t n = 0;
    PMIX_INFO_CREATE(res, 2);
    for (size_t q = 0; q < nqueries; q++) {
        for (size_t k = 0; NULL != queries[q].keys && NULL != queries[q].keys[k]; k++) {
            const char *key = queries[q].keys[k];
            fprintf(stderr, "opx_host: query %s\n", key);
            if (n < 2 && 0 == strcmp(key, PMIX_QUERY_NAMESPACES)) {
                PMIX_INFO_LOAD(&res[n], PMIX_QUERY_NAMESPACES, JOB, PMIX_STRING);
                n++;
            } else if (n < 2 && 0 == strcmp(key, PMIX_QUERY_PROC_TABLE)) {
                proc_table(&res[n]);
                n++;
            } else if (n < 2 && 0 == strcmp(key, PMIX_JOB_SIZE)) {
                uint32_t size = 2;
                PMIX_INFO_LOAD(&res[n], PMIX_JOB_SIZE, &size, PMIX_UINT32);
                n++;
            }
        }
    }
    if (0 == n) {
        PMIX_INFO_FREE(res, 2);
        return PMIX_ERR_NOT_FOUND;
    }
    /* the unused entries are empty infos: only the first n are handed on */
    cbfunc(PMIX_SUCCESS, res, n, cbdata, release, res);
    return PMIX_SUCCESS;
}

static void registered(pmix_status_t status, void *cbdata)
{
    *(volatile int *)cbdata = PMIX_SUCCESS == status ? 1 : -1;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: opx_host TMPDIR TOOL [ARGS...]\n");
        return 2;
    }
    pmix_server_module_t module;
    memset(&module, 0, sizeof module);
    module.tool_connected = tool_connected;
    module.query = query;

    pmix_info_t info[4];
    bool yes = true;
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_TOOL_SUPPORT, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[1], PMIX_SERVER_TMPDIR, argv[1], PMIX_STRING);
    PMIX_INFO_LOAD(&info[2], PMIX_SERVER_NSPACE, "opxhost", PMIX_STRING);
    pmix_rank_t zero = 0;
    PMIX_INFO_LOAD(&info[3], PMIX_SERVER_RANK, &zero, PMIX_PROC_RANK);
    pmix_status_t rc = PMIx_server_init(&module, info, 4);
    if (PMIX_SUCCESS != rc) {
        fprintf(stderr, "opx_host: PMIx_server_init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    pmix_info_t job[1];
    uint32_t size = 2;
    PMIX_INFO_LOAD(&job[0], PMIX_JOB_SIZE, &size, PMIX_UINT32);
    volatile int done = 0;
    pmix_nspace_t jobns;
    PMIX_LOAD_NSPACE(jobns, JOB);
    rc = PMIx_server_register_nspace(jobns, 2, job, 1, registered, (void *)&done);
    for (int i = 0; PMIX_SUCCESS == rc && 0 == done && i < 1000; i++) {
        usleep(10000);
    }
    if (PMIX_SUCCESS != rc || 1 != done) {
        fprintf(stderr, "opx_host: register_nspace failed (%d, %d)\n", rc, done);
        PMIx_server_finalize();
        return 1;
    }

    char pid[32];
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    pid_t child = fork();
    if (0 == child) {
        for (int a = 2; a < argc; a++) {
            if (0 == strcmp(argv[a], "%p")) {
                argv[a] = pid;
            }
        }
        execv(argv[2], argv + 2);
        perror("opx_host: exec");
        _exit(127);
    }
    int st = 0;
    int waited = 0;
    while (waitpid(child, &st, WNOHANG) == 0 && waited < 3000) {
        usleep(10000);
        waited++;
    }
    int verdict;
    if (waited >= 3000) {
        fprintf(stderr, "opx_host: the tool did not finish in 30 s\n");
        kill(child, SIGKILL);
        waitpid(child, &st, 0);
        verdict = 3;
    } else {
        verdict = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    }
    PMIx_server_finalize();
    return verdict;
}
