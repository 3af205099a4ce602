/* pset_late: a process set the launcher defined reaches a handler registered later
 * (as OpenPMIx master's examples/pset.c relies on).
 * Run: pmixrun -n 2 --pset late.set pset_late
 * Each rank registers a default handler, waits 0.3 s, then registers a handler for
 * PMIX_PROCESS_SET_DEFINE: it is called (after its registration callback) with
 * PMIX_PSET_NAME "late.set" and both ranks in PMIX_PSET_MEMBERS, once (the default
 * handler may have seen it too, if it was registered by the time the definition came).
 * PMIx_Get of PMIX_PSET_NAMES (an array of strings) then names the set. */
#include <pmix.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "../tests-c/check.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int defined = 0, defaults = 0, registered = 0, before_reg = 0;
static size_t nmembers = 0;
static char name[64];

static void on_define(size_t id, pmix_status_t status, const pmix_proc_t *source,
                      pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                      pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id, (void)status, (void)source, (void)results, (void)nresults;
    pthread_mutex_lock(&mu);
    defined++;
    before_reg += registered == 0;
    for (size_t n = 0; n < ninfo; n++) {
        if (PMIX_CHECK_KEY(&info[n], PMIX_PSET_NAME) && info[n].value.type == PMIX_STRING) {
            snprintf(name, sizeof name, "%s", info[n].value.data.string);
        } else if (PMIX_CHECK_KEY(&info[n], PMIX_PSET_MEMBERS) &&
                   info[n].value.type == PMIX_DATA_ARRAY) {
            nmembers = info[n].value.data.darray->size;
        }
    }
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    if (cbfunc != NULL) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

static void on_any(size_t id, pmix_status_t status, const pmix_proc_t *source,
                   pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                   pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id, (void)source, (void)info, (void)ninfo, (void)results, (void)nresults;
    if (status == PMIX_PROCESS_SET_DEFINE) {
        pthread_mutex_lock(&mu);
        defaults++;
        pthread_mutex_unlock(&mu);
    }
    if (cbfunc != NULL) {
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
    }
}

static void reg_done(pmix_status_t status, size_t ref, void *cbdata)
{
    (void)ref, (void)cbdata;
    pthread_mutex_lock(&mu);
    registered = status == PMIX_SUCCESS ? 1 : -1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
}

int main(void)
{
    pmix_proc_t me;
    pmix_status_t code = PMIX_PROCESS_SET_DEFINE;
    CHECK_RC(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS, "init");
    CHECK(PMIx_Register_event_handler(NULL, 0, NULL, 0, on_any, NULL, NULL) >= 0,
          "default handler");
    usleep(300 * 1000);
    PMIx_Register_event_handler(&code, 1, NULL, 0, on_define, reg_done, NULL);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 10;
    pthread_mutex_lock(&mu);
    while ((defined == 0 || registered == 0) &&
           pthread_cond_timedwait(&cv, &mu, &until) == 0) {
    }
    pthread_mutex_unlock(&mu);
    usleep(200 * 1000); /* a second delivery would show now */
    pthread_mutex_lock(&mu);
    CHECK(registered == 1, "registration callback");
    CHECK(defined == 1, "the set's definition reached the late handler once (%d)", defined);
    CHECK(before_reg == 0, "after its registration callback");
    CHECK(strcmp(name, "late.set") == 0, "PMIX_PSET_NAME %s", name);
    CHECK(nmembers == 2, "two members (%zu)", nmembers);
    CHECK(defaults <= 1, "the default handler saw it at most once (%d)", defaults);
    pthread_mutex_unlock(&mu);
    pmix_value_t *val = NULL;
    CHECK_RC(PMIx_Get(&me, PMIX_PSET_NAMES, NULL, 0, &val), PMIX_SUCCESS, "PMIX_PSET_NAMES");
    bool named = false;
    if (val != NULL && val->type == PMIX_DATA_ARRAY && val->data.darray != NULL &&
        val->data.darray->type == PMIX_STRING) {
        char **names = (char **)val->data.darray->array;
        for (size_t i = 0; i < val->data.darray->size; i++) {
            named = named || strcmp(names[i], "late.set") == 0;
        }
    }
    CHECK(named, "an array of names with the set in it");
    if (val != NULL) {
        PMIX_VALUE_RELEASE(val);
    }
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "finalize");
    CHECK_DONE();
}
