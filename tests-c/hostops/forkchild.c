/* forkchild: PMIx_server_setup_fork called in a forked child, as Slurm's mpi_pmix plugin
 * calls it (slurmstepd forks each task, and the child, before its exec, runs the
 * plugin's task hook, which calls PMIx_server_setup_fork). slurmstepd is multithreaded
 * (our progress thread, Slurm's own threads): a lock of the library held by another
 * thread at the fork stays held forever in the child, which then never reaches its
 * exec (under Slurm: one rank missing, the others waiting in their first fence).
 *
 * Here two threads keep the library busy while the main thread forks: one registers
 * and deregisters a client (work for the progress thread) and calls setup_fork for
 * another namespace, over and over. Each child calls setup_fork for its rank, checks
 * PMIX_RANK in the environment it got, and exits; a child still running 10 s after its
 * fork is a hang (killed, counted, a failure). */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "host.h"

#define NSPACE "forkchild-job"
#define BUSY "forkchild-busy"
#define NRANKS 4
#define FORKS 400

static atomic_bool stop;

static void *busy(void *arg)
{
    (void)arg;
    pmix_proc_t p, q;
    PMIX_LOAD_PROCID(&p, NSPACE, NRANKS - 1);
    PMIX_LOAD_PROCID(&q, BUSY, 0);
    while (!atomic_load(&stop)) {
        char **env = NULL;
        PMIx_server_setup_fork(&q, &env);
        PMIx_Argv_free(env);
        PMIx_server_deregister_client(&p, NULL, NULL);
        PMIx_server_register_client(&p, getuid(), getgid(), NULL, NULL, NULL);
    }
    return NULL;
}

/* The child: setup_fork for `rank`; 0 when it succeeded with PMIX_RANK=rank. */
static int child(pmix_rank_t rank)
{
    pmix_proc_t p;
    char **env = NULL;
    PMIX_LOAD_PROCID(&p, NSPACE, rank);
    if (PMIX_SUCCESS != PMIx_server_setup_fork(&p, &env)) {
        return 1;
    }
    char want[32];
    snprintf(want, sizeof want, "PMIX_RANK=%u", rank);
    for (char **e = env; e && *e; e++) {
        if (0 == strcmp(*e, want)) {
            return 0;
        }
    }
    return 2;
}

/* Wait up to `secs` for `pid`: its exit status, or -1 if it was still running (then
 * killed). */
static int wait_bounded(pid_t pid, int secs)
{
    struct timespec t0, now, nap = {0, 1000000};
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        int st = 0;
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid) {
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - t0.tv_sec >= secs) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            return -1;
        }
        nanosleep(&nap, NULL);
    }
}

int main(void)
{
    pmix_server_module_t module;
    memset(&module, 0, sizeof module);
    CHECK_RC(PMIx_server_init(&module, NULL, 0), PMIX_SUCCESS, "PMIx_server_init");
    host_register_nspace(NSPACE, NRANKS);
    host_register_nspace(BUSY, 1);
    pmix_proc_t p;
    for (pmix_rank_t r = 0; r < NRANKS; r++) {
        PMIX_LOAD_PROCID(&p, NSPACE, r);
        CHECK_RC(PMIx_server_register_client(&p, getuid(), getgid(), NULL, NULL, NULL),
                 PMIX_SUCCESS, "register_client");
    }
    PMIX_LOAD_PROCID(&p, BUSY, 0);
    CHECK_RC(PMIx_server_register_client(&p, getuid(), getgid(), NULL, NULL, NULL),
             PMIX_SUCCESS, "register_client (busy)");

    pthread_t t;
    CHECK(0 == pthread_create(&t, NULL, busy, NULL), "busy thread started");
    int hung = 0, bad = 0;
    for (int i = 0; i < FORKS; i++) {
        pid_t pid = fork();
        if (0 == pid) {
            _exit(child((pmix_rank_t)(i % (NRANKS - 1))));
        }
        if (pid < 0) {
            bad++;
            continue;
        }
        int st = wait_bounded(pid, 10);
        if (st < 0) {
            hung++;
            fprintf(stderr, "forkchild: child %d (pid %d) still in setup_fork after 10 s\n", i,
                    (int)pid);
            if (hung >= 3) {
                break;
            }
        } else if (0 != st) {
            bad++;
        }
    }
    atomic_store(&stop, true);
    pthread_join(t, NULL);
    CHECK(0 == hung, "no forked child hung in PMIx_server_setup_fork (%d did)", hung);
    CHECK(0 == bad, "every forked child got its environment (%d did not)", bad);
    CHECK_RC(PMIx_server_finalize(), PMIX_SUCCESS, "PMIx_server_finalize");
    CHECK_DONE();
}
