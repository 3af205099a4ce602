/* What several C test hosts do the same way: register a one-node namespace on this
 * machine, start clients of it (register_client, setup_fork, fork + exec with the
 * environment the server made) and wait for them. Include after check.h. */
#ifndef PMIX_TESTS_HOST_H
#define PMIX_TESTS_HOST_H

#include <stdint.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

extern char **environ;

/* Register `nspace` with ranks 0..n-1 all on this host (PMIX_JOB_SIZE, PMIX_NODE_MAP,
 * PMIX_PROC_MAP built with PMIx_generate_regex/ppn). */
static inline void host_register_nspace(const char *nspace, uint32_t n)
{
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    char ranks[1024] = "";
    for (uint32_t r = 0, len = 0; r < n && len + 12 < sizeof ranks; r++) {
        len += (uint32_t)snprintf(ranks + len, sizeof ranks - len, r ? ",%u" : "%u", r);
    }
    char *nmap = NULL, *pmap = NULL;
    CHECK_RC(PMIx_generate_regex(host, &nmap), PMIX_SUCCESS, "generate_regex");
    CHECK_RC(PMIx_generate_ppn(ranks, &pmap), PMIX_SUCCESS, "generate_ppn");
    pmix_info_t info[3];
    PMIX_INFO_LOAD(&info[0], PMIX_JOB_SIZE, &n, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[1], PMIX_NODE_MAP, nmap, PMIX_STRING);
    PMIX_INFO_LOAD(&info[2], PMIX_PROC_MAP, pmap, PMIX_STRING);
    free(nmap);
    free(pmap);
    pmix_nspace_t ns;
    PMIX_LOAD_NSPACE(ns, nspace);
    CHECK_RC(PMIx_server_register_nspace(ns, (int)n, info, 3, NULL, NULL), PMIX_SUCCESS,
             "register_nspace");
    for (int i = 0; i < 3; i++) {
        PMIX_INFO_DESTRUCT(&info[i]);
    }
}

/* Register rank `rank` of `nspace` as a client of ours and start `args[0]` with `args`
 * as that client. Returns its pid (-1 if fork failed). */
static inline pid_t host_start_client(const char *nspace, pmix_rank_t rank, char *const args[])
{
    pmix_proc_t p;
    char **env = NULL;
    PMIX_LOAD_PROCID(&p, nspace, rank);
    CHECK_RC(PMIx_server_register_client(&p, getuid(), getgid(), NULL, NULL, NULL),
             PMIX_SUCCESS, "register_client");
    for (char **e = environ; *e; e++) {
        PMIx_Argv_append_nosize(&env, *e);
    }
    CHECK_RC(PMIx_server_setup_fork(&p, &env), PMIX_SUCCESS, "setup_fork");
    pid_t pid = fork();
    if (0 == pid) {
        execve(args[0], args, env);
        _exit(127);
    }
    PMIx_Argv_free(env);
    return pid;
}

/* Wait for `n` clients; the number that did not exit with status 0. */
static inline int host_wait_clients(const pid_t *pids, int n)
{
    int failed = 0;
    for (int i = 0; i < n; i++) {
        int st = 0;
        if (pids[i] <= 0 || waitpid(pids[i], &st, 0) != pids[i] || !WIFEXITED(st) ||
            0 != WEXITSTATUS(st)) {
            failed++;
        }
    }
    return failed;
}

#endif
