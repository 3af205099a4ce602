/* spawnlost: a job spawned on a node that is then lost (run by pmixrun --nodes K
 * --enable-recovery -n K spawnlost, one rank per node).
 * The last rank (alone on the last node) spawns 2 copies of this program ("child"); pmixrun
 * runs them on that node. Every parent rank and both children connect over the two jobs.
 * Rank 0 (on node 0) reads the children's pids, then enters a fence with the child job
 * that the children never join; the last rank kills its node's daemon meanwhile. Then on
 * rank 0:
 *   - the fence fails with PMIX_ERR_PROC_TERM_WO_SYNC, well before its PMIX_TIMEOUT (the
 *     children were lost with the node: nobody may wait for them);
 *   - a new fence with the child job fails at once, as one with the lost parent rank does;
 *   - both children's processes are gone within 10 s (pmixrun kills every process of
 *     every job on a lost node, not only the ranks of the job on its command line);
 *   - it heard PMIX_ERR_PROC_TERM_WO_SYNC for the lost parent rank.
 * The other parents (3 nodes and more) only connect and finalize. The children never end
 * by themselves (they wait 120 s, then exit 3): only pmixrun's kill ends them in time.
 * pmixrun's status is 1 (the node's failure, tolerated by --enable-recovery). */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "mn.h"
#include "seen.h"

#define TIMEOUT_S 20

static pmix_proc_t lost_parent;

static void on_term(size_t id, pmix_status_t status, const pmix_proc_t *source,
                    pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id, (void)status, (void)info, (void)ninfo, (void)results, (void)nresults;
    if (source && PMIX_CHECK_PROCID(source, &lost_parent)) {
        seen_raise();
    }
    if (cbfunc) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static pmix_status_t connect_jobs(const char *a, const char *b)
{
    pmix_proc_t procs[2];
    PMIX_LOAD_PROCID(&procs[0], a, PMIX_RANK_WILDCARD);
    PMIX_LOAD_PROCID(&procs[1], b, PMIX_RANK_WILDCARD);
    return PMIx_Connect(procs, 2, NULL, 0);
}

/* A fence over rank 0 of `ns0` and the whole job `ns1`, with a PMIX_TIMEOUT. */
static pmix_status_t fence_with(const char *ns0, const char *ns1)
{
    pmix_proc_t procs[2];
    PMIX_LOAD_PROCID(&procs[0], ns0, 0);
    PMIX_LOAD_PROCID(&procs[1], ns1, PMIX_RANK_WILDCARD);
    pmix_info_t info;
    int to = TIMEOUT_S;
    PMIX_INFO_LOAD(&info, PMIX_TIMEOUT, &to, PMIX_INT);
    pmix_status_t rc = PMIx_Fence(procs, 2, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    return rc;
}

/* Our node's daemon's pid ends its rendezvous directory's name: .../<nspace>.<pid>/sock. */
static void kill_my_daemon(void)
{
    char uri[4096];
    const char *u = getenv("PMIX_RS_SERVER_URI");
    snprintf(uri, sizeof uri, "%s", u ? u : "");
    char *slash = strrchr(uri, '/');
    if (slash) {
        *slash = '\0';
    }
    char *dot = strrchr(uri, '.');
    long pid = dot ? strtol(dot + 1, NULL, 10) : 0;
    if (pid > 1) {
        kill((pid_t)pid, SIGKILL);
    }
}

static int child(pmix_proc_t *me)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(me, PMIX_PARENT_ID, NULL, 0, &v);
    CHECK(rc == PMIX_SUCCESS && v && v->type == PMIX_PROC, "PMIX_PARENT_ID (rc %s)",
          PMIx_Error_string(rc));
    if (rc != PMIX_SUCCESS || !v || v->type != PMIX_PROC) {
        CHECK_DONE();
    }
    char parent_ns[PMIX_MAX_NSLEN + 1];
    snprintf(parent_ns, sizeof parent_ns, "%s", v->data.proc->nspace);
    PMIX_VALUE_RELEASE(v);
    CHECK_RC(connect_jobs(parent_ns, me->nspace), PMIX_SUCCESS,
             "PMIx_Connect with the parent job (child)");
    /* Only pmixrun's kill may end us in time. */
    sleep(120);
    return 3;
}

/* Rank 0: the fence that waits for the children when the node is lost, and what follows. */
static void observer(const char *myns, const char *cns, pid_t pids[2])
{
    double t0 = now();
    pmix_status_t rc = fence_with(myns, cns);
    double took = now() - t0;
    CHECK_RC(rc, PMIX_ERR_PROC_TERM_WO_SYNC, "fence with the child job lost with its node");
    CHECK(took < TIMEOUT_S / 2, "the fence with the lost child job ended after %.1f s (timeout %d s)",
          took, TIMEOUT_S);
    t0 = now();
    rc = fence_with(myns, cns);
    took = now() - t0;
    CHECK_RC(rc, PMIX_ERR_PROC_TERM_WO_SYNC, "a new fence with the lost child job");
    CHECK(took < 2, "the new fence with the lost child job ended after %.1f s", took);
    for (int c = 0; c < 2; c++) {
        int gone = 0;
        for (int i = 0; i < 100 && !gone; i++) {
            gone = kill(pids[c], 0) != 0 && errno == ESRCH;
            if (!gone) {
                usleep(100000);
            }
        }
        CHECK(gone, "child %d (pid %d) of the lost node is gone", c, (int)pids[c]);
    }
    CHECK(seen_wait(10), "rank 0 heard of the end of the parent rank lost with its node");
}

int main(int argc, char **argv)
{
    pmix_proc_t me;
    uint32_t n = mn_init(&me);
    if (n == 0) {
        CHECK_DONE();
    }
    if (argc > 1 && 0 == strcmp(argv[1], "child")) {
        return child(&me);
    }
    CHECK(n >= 2, "at least 2 parent ranks");
    PMIX_LOAD_PROCID(&lost_parent, me.nspace, n - 1);
    pmix_status_t code = PMIX_ERR_PROC_TERM_WO_SYNC;
    pmix_status_t reg = PMIx_Register_event_handler(&code, 1, NULL, 0, on_term, NULL, NULL);
    CHECK(reg >= 0, "register a PMIX_ERR_PROC_TERM_WO_SYNC handler: %d", reg);
    char ns[PMIX_MAX_NSLEN + 1] = {0};
    if (me.rank == n - 1) {
        CHECK_RC(mn_spawn_children(argv[0], 2, ns), PMIX_SUCCESS, "PMIx_Spawn");
        CHECK_RC(mn_put_string(PMIX_GLOBAL, "sl-child-ns", ns), PMIX_SUCCESS, "PMIx_Put");
    }
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "PMIx_Commit");
    CHECK_RC(mn_fence(true), PMIX_SUCCESS, "collecting Fence (the child namespace)");
    pmix_value_t *v = NULL;
    CHECK_RC(mn_get(me.nspace, n - 1, "sl-child-ns", NULL, NULL, 0, &v), PMIX_SUCCESS,
             "Get of the child namespace");
    if (!v || v->type != PMIX_STRING || !v->data.string) {
        CHECK(false, "the child namespace is a string");
        CHECK_DONE();
    }
    snprintf(ns, sizeof ns, "%s", v->data.string);
    PMIX_VALUE_RELEASE(v);
    CHECK_RC(connect_jobs(me.nspace, ns), PMIX_SUCCESS, "PMIx_Connect with the child job");
    pid_t pids[2] = {0, 0};
    if (me.rank == 0) {
        for (pmix_rank_t r = 0; r < 2; r++) {
            v = NULL;
            pmix_status_t rc = mn_get(ns, r, PMIX_PROC_PID, NULL, NULL, 0, &v);
            CHECK(rc == PMIX_SUCCESS && v && v->type == PMIX_PID,
                  "the pid of child %u (rc %s)", r, PMIx_Error_string(rc));
            if (v && v->type == PMIX_PID) {
                pids[r] = v->data.pid;
            }
            if (v) {
                PMIX_VALUE_RELEASE(v);
            }
        }
    }
    if (me.rank == n - 1) {
        /* Let rank 0 enter its fence with the children, then lose the node; pmixrun then
         * kills us with it. */
        sleep(2);
        kill_my_daemon();
        sleep(30);
        _exit(0);
    }
    if (me.rank == 0 && pids[0] > 0 && pids[1] > 0) {
        observer(me.nspace, ns, pids);
    }
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
