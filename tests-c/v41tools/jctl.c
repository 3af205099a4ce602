/* jctl: a tool that attaches to a running job's server by its pid and asks it for job
 * control, as a debugger or a resource manager's front end does. Built twice
 * (mk/v41tools.mk): against Debian's OpenPMIx 4.2.2 (run as it is, or with the Open MPI 5
 * wheel's OpenPMIx 5.0.11 preloaded: the references) and against our library.
 *
 *   jctl PID NSPACE RANK ACTION WANT [nb]
 *
 * RANK is a rank of NSPACE or "all" (the wildcard); ACTION is "kill"
 * (PMIX_JOB_CTRL_KILL), "term" (PMIX_JOB_CTRL_TERMINATE) or "signal"
 * (PMIX_JOB_CTRL_SIGNAL = SIGTERM); WANT the status the call must return (a number, so
 * that a server answering NOT_SUPPORTED is checked too). With "nb", PMIx_Job_control_nb
 * and its callback's status instead of the blocking call.
 *
 * Checks: PMIx_tool_init with PMIX_SERVER_PIDINFO = PID succeeds; the status of the job
 * control is WANT (printed as "jctl: job control status N"); when WANT is 0 and the
 * server's proc table gives the target's pid (PMIX_QUERY_PROC_TABLE of NSPACE), that
 * process is gone within 10 s ("jctl: rank R (pid P) is gone"); PMIx_tool_finalize
 * succeeds. Prints one ok/FAIL line per check and "...jctl.c: N checks, M failed"; the
 * exit status is the verdict. */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "tool.h"

/* The pid of `rank` in a proc table among `info` (flat, or inside PMIX_QUERY_RESULTS
 * arrays as PRRTE answers); 0 when not there. */
static pid_t pid_in(const pmix_info_t *info, size_t n, pmix_rank_t rank)
{
    pid_t pid = 0;
    for (size_t i = 0; i < n && 0 == pid; i++) {
        const pmix_value_t *v = &info[i].value;
        if (PMIX_DATA_ARRAY != v->type || NULL == v->data.darray) {
            continue;
        }
        const pmix_data_array_t *da = v->data.darray;
        if (0 == strncmp(info[i].key, PMIX_QUERY_RESULTS, PMIX_MAX_KEYLEN) &&
            PMIX_INFO == da->type) {
            pid = pid_in((const pmix_info_t *)da->array, da->size, rank);
        } else if (0 == strncmp(info[i].key, PMIX_QUERY_PROC_TABLE, PMIX_MAX_KEYLEN) &&
                   PMIX_PROC_INFO == da->type) {
            const pmix_proc_info_t *pi = (const pmix_proc_info_t *)da->array;
            for (size_t k = 0; k < da->size; k++) {
                if (pi[k].proc.rank == rank) {
                    pid = pi[k].pid;
                }
            }
        }
    }
    return pid;
}

/* The pid of `rank` of `ns` in the server's proc table (0: not there). */
static pid_t pid_of(const char *ns, pmix_rank_t rank)
{
    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    q.keys = (char **)calloc(2, sizeof(char *));
    q.keys[0] = strdup(PMIX_QUERY_PROC_TABLE);
    PMIX_QUERY_QUALIFIERS_CREATE(&q, 1);
    PMIX_INFO_LOAD(&q.qualifiers[0], PMIX_NSPACE, ns, PMIX_STRING);
    pmix_info_t *res = NULL;
    size_t nres = 0;
    pid_t pid = 0;
    if (PMIX_SUCCESS == PMIx_Query_info(&q, 1, &res, &nres)) {
        pid = pid_in(res, nres, rank);
    }
    if (NULL != res) {
        PMIX_INFO_FREE(res, nres);
    }
    PMIX_QUERY_DESTRUCT(&q);
    printf("jctl: rank %u of %s has pid %d in the server's proc table\n", rank, ns, (int)pid);
    return pid;
}

static volatile int nb_done = 0;
static volatile pmix_status_t nb_status = PMIX_ERROR;

static void ctl_done(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                     pmix_release_cbfunc_t release, void *release_cbdata)
{
    (void)info;
    (void)ninfo;
    (void)cbdata;
    nb_status = status;
    nb_done = 1;
    if (NULL != release) {
        release(release_cbdata);
    }
}

/* Run the job control: its status (the callback's with `nb`). */
static pmix_status_t control(const pmix_proc_t *target, const pmix_info_t *dir, bool nb)
{
    if (!nb) {
        pmix_info_t *res = NULL;
        size_t nres = 0;
        pmix_status_t rc = PMIx_Job_control(target, 1, dir, 1, &res, &nres);
        if (NULL != res) {
            PMIX_INFO_FREE(res, nres);
        }
        return rc;
    }
    pmix_status_t rc = PMIx_Job_control_nb(target, 1, dir, 1, ctl_done, NULL);
    if (PMIX_SUCCESS != rc) {
        return rc;
    }
    for (int i = 0; i < 2000 && !nb_done; i++) {
        usleep(10000);
    }
    return nb_done ? nb_status : PMIX_ERR_TIMEOUT;
}

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: jctl PID NSPACE RANK|all kill|term|signal WANT [nb]\n");
        return 2;
    }
    pid_t spid = (pid_t)atoi(argv[1]);
    const char *ns = argv[2];
    bool all = 0 == strcmp(argv[3], "all");
    pmix_rank_t rank = all ? PMIX_RANK_WILDCARD : (pmix_rank_t)atoi(argv[3]);
    const char *action = argv[4];
    int want = atoi(argv[5]);
    bool nb = argc > 6 && 0 == strcmp(argv[6], "nb");

    pmix_proc_t me;
    if (!tool_attach(&me, spid, NULL)) {
        CHECK_DONE();
    }
    pid_t victim = all ? 0 : pid_of(ns, rank);

    pmix_info_t dir;
    bool yes = true;
    int sig = SIGTERM;
    if (0 == strcmp(action, "kill")) {
        PMIX_INFO_LOAD(&dir, PMIX_JOB_CTRL_KILL, &yes, PMIX_BOOL);
    } else if (0 == strcmp(action, "term")) {
        PMIX_INFO_LOAD(&dir, PMIX_JOB_CTRL_TERMINATE, &yes, PMIX_BOOL);
    } else {
        PMIX_INFO_LOAD(&dir, PMIX_JOB_CTRL_SIGNAL, &sig, PMIX_INT);
    }
    pmix_proc_t target;
    PMIX_LOAD_PROCID(&target, ns, rank);
    pmix_status_t rc = control(&target, &dir, nb);
    printf("jctl: job control status %d (%s)\n", (int)rc, PMIx_Error_string(rc));
    CHECK_RC(rc, want, nb ? "PMIx_Job_control_nb's callback" : "PMIx_Job_control");
    PMIX_INFO_DESTRUCT(&dir);

    if (PMIX_SUCCESS == want && victim > 0) {
        bool gone = false;
        for (int i = 0; i < 1000 && !gone; i++) {
            gone = 0 != kill(victim, 0) && ESRCH == errno;
            if (!gone) {
                usleep(10000);
            }
        }
        CHECK(gone, "jctl: rank %u (pid %d) is gone", rank, (int)victim);
    }
    CHECK_RC(PMIx_tool_finalize(), PMIX_SUCCESS, "PMIx_tool_finalize");
    CHECK_DONE();
}
