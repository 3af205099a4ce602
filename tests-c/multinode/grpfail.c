/* A group construct across nodes that loses a member (run by pmixrun --nodes K
 * --enable-recovery): the victim rank leaves without PMIx_Finalize, and every other
 * member's PMIx_Group_construct over the whole job must end with
 * PMIX_GROUP_CONSTRUCT_ABORT (with PMIX_GROUP_OPTIONAL: form the group of the
 * survivors), on every node, long before its PMIX_TIMEOUT.
 *
 *   grpfail VICTIM during   the others enter the construct first, the victim leaves
 *                           while they wait in it
 *   grpfail VICTIM after    the others hear of the victim's end (the
 *                           PMIX_ERR_PROC_TERM_WO_SYNC event) first, then construct:
 *                           the construct names a member that already ended
 *   grpfail VICTIM optional as `after`, with PMIX_GROUP_OPTIONAL: the group forms
 *                           from the survivors
 *   grpfail VICTIM during-optional
 *                           as `during`, with PMIX_GROUP_OPTIONAL: the group forms
 *                           from the survivors, the same on every node (the nodes
 *                           whose members entered first sent their parts naming the
 *                           victim before anyone knew it was gone)
 *   grpfail VICTIM daemon   as `during`, but the victim (alone on its node) kills its
 *                           node's server instead: the node and its rank are lost
 *                           (pmixrun kills the rank), and the others also hear of the
 *                           rank's end (PMIX_ERR_PROC_TERM_WO_SYNC)
 *
 * Each surviving rank prints its own ok/FAIL lines and a summary; the victim prints
 * nothing after the first fence. pmixrun's status is 1 (the victim's exit without
 * finalizing, tolerated by --enable-recovery). */
#define _GNU_SOURCE
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "mn.h"
#include "seen.h"

#define TIMEOUT_S 20


static void on_term(size_t id, pmix_status_t status, const pmix_proc_t *source,
                    pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id, (void)status, (void)source, (void)info, (void)ninfo, (void)results,
        (void)nresults;
    seen_raise();
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

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: grpfail VICTIM during|after|optional|during-optional|daemon\n");
        return 2;
    }
    uint32_t victim = (uint32_t)atoi(argv[1]);
    const char *mode = argv[2];
    int daemon = strcmp(mode, "daemon") == 0;
    int during_opt = strcmp(mode, "during-optional") == 0;
    int after = strcmp(mode, "during") != 0 && !daemon && !during_opt;
    int optional = strcmp(mode, "optional") == 0 || during_opt;
    pmix_proc_t me;
    uint32_t n = mn_init(&me);
    if (0 == n) {
        CHECK_DONE();
    }
    pmix_status_t code = PMIX_ERR_PROC_TERM_WO_SYNC;
    /* Blocking registration: the handler's reference is the status. */
    pmix_status_t reg = PMIx_Register_event_handler(&code, 1, NULL, 0, on_term, NULL, NULL);
    CHECK(reg >= 0, "register a PMIX_ERR_PROC_TERM_WO_SYNC handler: %d", reg);
    CHECK_RC(mn_fence(false), PMIX_SUCCESS, "fence with every rank alive");
    if (me.rank == victim) {
        if (!after) {
            /* Let the others enter the construct and wait in it. */
            sleep(2);
        }
        if (daemon) {
            /* Our server's pid ends its rendezvous directory's name:
             * .../<nspace>.<pid>/sock. pmixrun then kills us with the node. */
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
            sleep(30);
        }
        _exit(0);
    }
    if (after) {
        CHECK(seen_wait(TIMEOUT_S), "rank %u heard of the victim's end before the construct",
              me.rank);
    }
    pmix_proc_t *procs;
    PMIX_PROC_CREATE(procs, n);
    for (uint32_t r = 0; r < n; r++) {
        PMIX_PROC_LOAD(&procs[r], me.nspace, r);
    }
    pmix_info_t info[2];
    int to = TIMEOUT_S;
    bool yes = true;
    PMIX_INFO_LOAD(&info[0], PMIX_TIMEOUT, &to, PMIX_INT);
    PMIX_INFO_LOAD(&info[1], PMIX_GROUP_OPTIONAL, &yes, PMIX_BOOL);
    pmix_info_t *results = NULL;
    size_t nresults = 0;
    double t0 = now();
    pmix_status_t rc =
        PMIx_Group_construct("mn-grpfail", procs, n, info, optional ? 2 : 1, &results, &nresults);
    double took = now() - t0;
    PMIX_PROC_FREE(procs, n);
    if (optional) {
        CHECK_RC(rc, PMIX_SUCCESS, "optional construct without the ended member");
        size_t members = 0;
        int has_victim = 0;
        for (size_t i = 0; i < nresults; i++) {
            if (PMIX_CHECK_KEY(&results[i], PMIX_GROUP_MEMBERSHIP) &&
                results[i].value.type == PMIX_DATA_ARRAY && results[i].value.data.darray &&
                results[i].value.data.darray->type == PMIX_PROC) {
                pmix_data_array_t *d = results[i].value.data.darray;
                members = d->size;
                const pmix_proc_t *m = (const pmix_proc_t *)d->array;
                for (size_t k = 0; k < d->size; k++) {
                    has_victim |= m[k].rank == victim;
                }
            }
        }
        CHECK(members == n - 1 && !has_victim,
              "rank %u: the group has %zu members (victim among them: %d), want the %u "
              "survivors",
              me.rank, members, has_victim, n - 1);
        CHECK_RC(PMIx_Group_destruct("mn-grpfail", NULL, 0), PMIX_SUCCESS,
                 "destruct of the survivors' group");
    } else {
        CHECK_RC(rc, PMIX_GROUP_CONSTRUCT_ABORT, "construct that lost a member");
    }
    CHECK(took < TIMEOUT_S / 2, "rank %u (%s): the construct ended after %.1f s (timeout %d s)",
          me.rank, mode, took, TIMEOUT_S);
    if (daemon) {
        CHECK(seen_wait(10), "rank %u heard of the end of the victim lost with its node",
              me.rank);
    }
    if (results) {
        PMIX_INFO_FREE(results, nresults);
    }
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
