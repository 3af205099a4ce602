/* liveness: heartbeat and file monitors (PMIx_Process_monitor with PMIX_MONITOR_HEARTBEAT
 * and PMIX_MONITOR_FILE) as OpenPMIx's sensors serve them: the watched process's server
 * raises the alert with the watched process as its source, to its namespace, never to
 * the source itself. Run under pmixrun -n 2 (one node) or --nodes 2 -n 2 (the alerts
 * cross nodes). Rank 0 observes; the last rank W is watched:
 *  - W asks for a heartbeat watch (1 s, one drop, no status: PMIX_MONITOR_HEARTBEAT_ALERT)
 *    and never beats: rank 0 gets exactly one alert naming W (it is not repeated while W
 *    stays silent);
 *  - W asks for a file watch of a file it never touches (modification, 1 s, one drop, no
 *    status: PMIX_MONITOR_FILE_ALERT): rank 0 gets exactly one alert naming W;
 *  - W's watches that must stay quiet raise QUIET: a heartbeat watch with 100000 drops,
 *    a file watch of a file W keeps growing (size; 3 drops, so a loaded machine's
 *    scheduling stall of a second is no alert), a file watch cancelled by its id;
 *  - a file watch without a check time or without anything to watch is BAD_PARAM;
 *  - rank 0 beats under its own watch (2 drops): nobody is alerted about it; W gets no
 *    alert. */
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include "mn.h"

#define QUIET (PMIX_EXTERNAL_ERR_BASE - 2)

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int n_hb, n_file, n_quiet, n_other;
static pmix_rank_t hb_src = PMIX_RANK_INVALID, file_src = PMIX_RANK_INVALID;
static pmix_rank_t hb_affected = PMIX_RANK_INVALID;

static void on_alert(size_t id, pmix_status_t status, const pmix_proc_t *source,
                     pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id, (void)results, (void)nresults;
    pmix_rank_t src = source ? source->rank : PMIX_RANK_INVALID;
    pthread_mutex_lock(&mu);
    if (PMIX_MONITOR_HEARTBEAT_ALERT == status) {
        n_hb++;
        hb_src = src;
        for (size_t i = 0; i < ninfo; i++) {
            if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC)
                && PMIX_PROC == info[i].value.type) {
                hb_affected = info[i].value.data.proc->rank;
            }
        }
    } else if (PMIX_MONITOR_FILE_ALERT == status) {
        n_file++;
        file_src = src;
    } else if (QUIET == status) {
        n_quiet++;
    } else {
        n_other++;
    }
    pthread_mutex_unlock(&mu);
    if (cbfunc) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

static int count(int *c)
{
    pthread_mutex_lock(&mu);
    int v = *c;
    pthread_mutex_unlock(&mu);
    return v;
}

static pmix_status_t monitor(pmix_info_t *mon, pmix_status_t code, pmix_info_t *dirs,
                             size_t nd)
{
    pmix_info_t *res = NULL;
    size_t nres = 0;
    pmix_status_t rc = PMIx_Process_monitor(mon, code, dirs, nd, &res, &nres);
    if (res) {
        PMIX_INFO_FREE(res, nres);
    }
    return rc;
}

static pmix_status_t heartbeat_watch(const char *id, pmix_status_t code, uint32_t drops)
{
    pmix_info_t mon, dirs[3];
    uint32_t secs = 1;
    PMIX_INFO_LOAD(&mon, PMIX_MONITOR_HEARTBEAT, NULL, PMIX_POINTER);
    PMIX_INFO_LOAD(&dirs[0], PMIX_MONITOR_ID, id, PMIX_STRING);
    PMIX_INFO_LOAD(&dirs[1], PMIX_MONITOR_HEARTBEAT_TIME, &secs, PMIX_UINT32);
    PMIX_INFO_LOAD(&dirs[2], PMIX_MONITOR_HEARTBEAT_DROPS, &drops, PMIX_UINT32);
    pmix_status_t rc = monitor(&mon, code, dirs, 3);
    PMIX_INFO_DESTRUCT(&mon);
    for (int i = 0; i < 3; i++) {
        PMIX_INFO_DESTRUCT(&dirs[i]);
    }
    return rc;
}

/* A file watch of `path`: `what` (a PMIX_MONITOR_FILE_* flag, or NULL for none), every
 * `secs` s (0: no check time), `drops` unchanged looks. */
static pmix_status_t file_watch(const char *path, const char *id, pmix_status_t code,
                                const char *what, uint32_t secs, uint32_t drops)
{
    pmix_info_t mon, dirs[4];
    size_t nd = 0;
    bool yes = true;
    PMIX_INFO_LOAD(&mon, PMIX_MONITOR_FILE, path, PMIX_STRING);
    PMIX_INFO_LOAD(&dirs[nd++], PMIX_MONITOR_ID, id, PMIX_STRING);
    if (what) {
        PMIX_INFO_LOAD(&dirs[nd++], what, &yes, PMIX_BOOL);
    }
    if (secs) {
        PMIX_INFO_LOAD(&dirs[nd++], PMIX_MONITOR_FILE_CHECK_TIME, &secs, PMIX_UINT32);
    }
    PMIX_INFO_LOAD(&dirs[nd++], PMIX_MONITOR_FILE_DROPS, &drops, PMIX_UINT32);
    pmix_status_t rc = monitor(&mon, code, dirs, nd);
    PMIX_INFO_DESTRUCT(&mon);
    for (size_t i = 0; i < nd; i++) {
        PMIX_INFO_DESTRUCT(&dirs[i]);
    }
    return rc;
}

static pmix_status_t cancel(const char *id)
{
    pmix_info_t mon;
    PMIX_INFO_LOAD(&mon, PMIX_MONITOR_CANCEL, id, PMIX_STRING);
    pmix_status_t rc = monitor(&mon, PMIX_SUCCESS, NULL, 0);
    PMIX_INFO_DESTRUCT(&mon);
    return rc;
}

static int make_file(char *path, size_t sz, const char *tag)
{
    snprintf(path, sz, "/tmp/liveness-%s-%ld-XXXXXX", tag, (long)getpid());
    int fd = mkstemp(path);
    CHECK(fd >= 0, "create %s", path);
    if (fd >= 0 && write(fd, "x\n", 2) != 2) {
        CHECK(0, "write %s", path);
    }
    return fd;
}

int main(void)
{
    pmix_proc_t me;
    uint32_t n = mn_init(&me);
    if (n < 2) {
        CHECK(n >= 2, "run with at least 2 ranks (got %u)", n);
        CHECK_DONE();
    }
    pmix_rank_t w = n - 1;
    pmix_status_t codes[3] = {PMIX_MONITOR_HEARTBEAT_ALERT, PMIX_MONITOR_FILE_ALERT, QUIET};
    CHECK(PMIx_Register_event_handler(codes, 3, NULL, 0, on_alert, NULL, NULL) >= 0,
          "register the alert handler");
    CHECK_RC(mn_fence(false), PMIX_SUCCESS, "Fence (every handler installed)");

    char stale[128] = "", grows[128] = "", gone[128] = "";
    int gfd = -1;
    if (me.rank == w) {
        int fd = make_file(stale, sizeof stale, "stale");
        close(fd);
        gfd = make_file(grows, sizeof grows, "grows");
        fd = make_file(gone, sizeof gone, "gone");
        close(fd);
        CHECK_RC(heartbeat_watch("hb", PMIX_SUCCESS, 1), PMIX_SUCCESS, "heartbeat watch");
        CHECK_RC(heartbeat_watch("hb-capped", QUIET, 100000), PMIX_SUCCESS,
                 "heartbeat watch with 100000 drops");
        CHECK_RC(file_watch(stale, "f", PMIX_SUCCESS, PMIX_MONITOR_FILE_MODIFY, 1, 1),
                 PMIX_SUCCESS, "file watch (modification)");
        CHECK_RC(file_watch(grows, "f-grows", QUIET, PMIX_MONITOR_FILE_SIZE, 1, 3),
                 PMIX_SUCCESS, "file watch of a growing file (size)");
        CHECK_RC(file_watch(gone, "f-cancel", QUIET, PMIX_MONITOR_FILE_MODIFY, 1, 0),
                 PMIX_SUCCESS, "file watch to cancel");
        CHECK_RC(cancel("f-cancel"), PMIX_SUCCESS, "PMIX_MONITOR_CANCEL f-cancel");
        CHECK_RC(file_watch(stale, "f-bad", QUIET, PMIX_MONITOR_FILE_MODIFY, 0, 1),
                 PMIX_ERR_BAD_PARAM, "a file watch without a check time");
        CHECK_RC(file_watch(stale, "f-bad", QUIET, NULL, 1, 1), PMIX_ERR_BAD_PARAM,
                 "a file watch of nothing");
    } else if (me.rank == 0) {
        CHECK_RC(heartbeat_watch("hb0", PMIX_SUCCESS, 2), PMIX_SUCCESS,
                 "heartbeat watch of the observer");
    }
    /* 4.5 s: the silent watches trip at 2 s; rank 0 beats, W grows its file. */
    for (int i = 0; i < 45; i++) {
        if (me.rank == 0) {
            PMIx_Heartbeat();
        } else if (me.rank == w && gfd >= 0 && write(gfd, "y\n", 2) != 2) {
            CHECK(0, "grow %s", grows);
        }
        usleep(100000);
    }
    if (me.rank == 0) {
        for (int i = 0; i < 50 && (count(&n_hb) == 0 || count(&n_file) == 0); i++) {
            usleep(100000);
        }
        CHECK(count(&n_hb) == 1, "one heartbeat alert (%d)", count(&n_hb));
        CHECK(hb_src == w && hb_affected == w, "it names rank %u (source %u, affected %u)", w,
              hb_src, hb_affected);
        CHECK(count(&n_file) == 1, "one file alert (%d)", count(&n_file));
        CHECK(file_src == w, "it names rank %u (source %u)", w, file_src);
    }
    CHECK(count(&n_quiet) == 0, "no alert from the watches that must stay quiet (%d)",
          count(&n_quiet));
    CHECK(count(&n_other) == 0, "no other event (%d)", count(&n_other));
    if (me.rank == w) {
        CHECK(count(&n_hb) == 0 && count(&n_file) == 0,
              "the watched rank hears no alert about itself (%d, %d)", count(&n_hb),
              count(&n_file));
        if (gfd >= 0) {
            close(gfd);
        }
        unlink(stale);
        unlink(grows);
        unlink(gone);
    }
    CHECK_RC(mn_fence(false), PMIX_SUCCESS, "final Fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
