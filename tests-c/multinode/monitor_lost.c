/* monitor_lost: monitors of ranks on a node whose daemon is lost end with an error, not
 * a hang. Run as rank 0 of pmixrun --nodes 2 -n 4 (ranks 2, 3 on node 1), beside a rank 2
 * that stops node 1's daemon (SIGSTOP) and kills it (SIGKILL) on cue, through files in
 * the directory $MONITOR_LOST_DIR (see tests-c/multinode/run.sh):
 *  1. a periodic monitor of rank 3 runs (its first answer comes); file "periodic";
 *  2. once the daemon is stopped (file "stopped"), a monitor of rank 2 is asked (it
 *     cannot be answered); file "asked"; then the daemon is killed;
 *  3. the waiting monitor's callback gets PMIX_ERR_UNREACH, and a PMIX_ERR_UNREACH event
 *     names the periodic monitor's id.
 * The lost node fails the job (pmixrun exits 1): rank 0 ignores SIGTERM to report first. */
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mn.h"

static volatile int answered = 0, unreach_events = 0;
static volatile pmix_status_t answer = PMIX_SUCCESS;

static void on_answer(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                      pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    (void)info, (void)ninfo, (void)cbdata;
    answer = status;
    answered = 1;
    if (release_fn) {
        release_fn(release_cbdata);
    }
}

static void on_unreach(size_t id, pmix_status_t status, const pmix_proc_t *source,
                       pmix_info_t info[], size_t ninfo, pmix_info_t results[],
                       size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc,
                       void *cbdata)
{
    (void)id, (void)status, (void)source, (void)results, (void)nresults;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_MONITOR_ID) && PMIX_STRING == info[i].value.type
            && 0 == strcmp(info[i].value.data.string, "per")) {
            unreach_events++;
        }
    }
    if (cbfunc) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

static void touch(const char *dir, const char *name)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    CHECK(f != NULL, "create %s", p);
    if (f) {
        fclose(f);
    }
}

static bool wait_file(const char *dir, const char *name, int secs)
{
    char p[512];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    for (int i = 0; i < secs * 100; i++) {
        if (0 == stat(p, &st)) {
            return true;
        }
        usleep(10000);
    }
    return false;
}

/* A usage monitor of `rank` (every second under `id` when id is not NULL). */
static pmix_status_t ask(const char *ns, pmix_rank_t rank, const char *id)
{
    pmix_info_t monitor, dir[3];
    size_t nd = 0;
    pmix_data_array_t none = {.type = PMIX_STRING, .size = 0, .array = NULL};
    PMIX_INFO_LOAD(&monitor, PMIX_MONITOR_PROC_RESOURCE_USAGE, &none, PMIX_DATA_ARRAY);
    pmix_proc_t target;
    PMIX_LOAD_PROCID(&target, ns, rank);
    pmix_data_array_t arr = {.type = PMIX_PROC, .size = 1, .array = &target};
    PMIX_INFO_LOAD(&dir[nd++], PMIX_MONITOR_TARGET_PROCS, &arr, PMIX_DATA_ARRAY);
    uint32_t rate = 1;
    if (id) {
        PMIX_INFO_LOAD(&dir[nd++], PMIX_MONITOR_ID, id, PMIX_STRING);
        PMIX_INFO_LOAD(&dir[nd++], PMIX_MONITOR_RESOURCE_RATE, &rate, PMIX_UINT32);
    }
    answered = 0;
    pmix_status_t rc = PMIx_Process_monitor_nb(&monitor, PMIX_MONITOR_RESUSAGE_UPDATE, dir,
                                               nd, on_answer, NULL);
    return rc;
}

static bool wait_answer(int secs)
{
    for (int i = 0; i < secs * 100 && !answered; i++) {
        usleep(10000);
    }
    return answered;
}

int main(void)
{
    signal(SIGTERM, SIG_IGN);
    const char *dir = getenv("MONITOR_LOST_DIR");
    pmix_proc_t me;
    uint32_t n = mn_init(&me);
    if (n != 4 || !dir || me.rank != 0) {
        CHECK(n == 4 && dir && me.rank == 0,
              "run as rank 0 of --nodes 2 -n 4 with MONITOR_LOST_DIR (%u ranks)", n);
        CHECK_DONE();
    }
    pmix_status_t code = PMIX_ERR_UNREACH;
    CHECK(PMIx_Register_event_handler(&code, 1, NULL, 0, on_unreach, NULL, NULL) >= 0,
          "register for PMIX_ERR_UNREACH");
    CHECK_RC(ask(me.nspace, 3, "per"), PMIX_SUCCESS, "periodic monitor of rank 3");
    CHECK(wait_answer(10) && PMIX_SUCCESS == answer, "its first answer: %s",
          PMIx_Error_string(answer));
    touch(dir, "periodic");
    CHECK(wait_file(dir, "stopped", 20), "node 1's daemon stopped");
    CHECK_RC(ask(me.nspace, 2, NULL), PMIX_SUCCESS, "monitor of rank 2 (node 1, stopped)");
    touch(dir, "asked");
    CHECK(wait_answer(20), "the waiting monitor is answered when node 1 is lost");
    CHECK_RC(answer, PMIX_ERR_UNREACH, "its status");
    for (int i = 0; i < 500 && 0 == unreach_events; i++) {
        usleep(10000);
    }
    CHECK(unreach_events == 1, "one PMIX_ERR_UNREACH event names the periodic monitor (%d)",
          unreach_events);
    printf("%s: %d checks, %d failed\n", __FILE__, check_count, check_failures);
    fflush(stdout);
    _exit(check_failures ? 1 : 0);
}
