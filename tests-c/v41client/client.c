/* Our libpmix as the client of an OpenPMIx server (Debian's mpirun: Open MPI 4.1.4 with
 * OpenPMIx 4.2.2). Run as every rank of `mpirun -np N`, with only the ranks on our
 * library. Checks, one line each (tests-c/check.h):
 *   - this process mapped the libpmix.so.2 named by V41CLIENT_LIB (ours), not Debian's;
 *   - PMIx_Init; job info: job size, local size, our hostname, local peers, our rank;
 *   - Put (a short and a long string: the long one travels compressed) + Commit;
 *   - Fence without data, then with PMIX_COLLECT_DATA; every peer's keys by Get;
 *   - Get of a peer's key with PMIX_GET_REFRESH_CACHE;
 *   - an event handler registered for a code, PMIx_Notify_event, delivery to the
 *     notifier (mpirun forwards a client's event to no other rank);
 *   - Publish/Lookup (rank 0 publishes, all look up after a fence);
 *   - PMIx_Finalize.
 * With V41CLIENT_REFUSE set (and PMIX_GDS_MODULE or PMIX_SECURITY_MODE naming modules we
 * do not implement), only that PMIx_Init fails with PMIX_ERR_NOT_SUPPORTED. */
#define _GNU_SOURCE
#include <pmix.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "maps.h"

#define LONG_LEN 20000
#define EV_CODE (PMIX_EXTERNAL_ERR_BASE - 77)

static pmix_proc_t me;
static volatile int ev_seen = 0;
static volatile int reg_done = 0;
static volatile size_t reg_id = 0;

static uint32_t get_u32(const pmix_proc_t *p, const char *key)
{
    pmix_value_t *v = NULL;
    uint32_t out = UINT32_MAX;
    pmix_status_t rc = PMIx_Get(p, key, NULL, 0, &v);
    CHECK_RC(rc, PMIX_SUCCESS, key);
    if (rc == PMIX_SUCCESS && v != NULL) {
        if (v->type == PMIX_UINT32)
            out = v->data.uint32;
        else if (v->type == PMIX_UINT16)
            out = v->data.uint16;
        else if (v->type == PMIX_PROC_RANK)
            out = v->data.rank;
        PMIX_VALUE_RELEASE(v);
    }
    return out;
}

static char *get_str(const pmix_proc_t *p, const char *key, pmix_info_t *info, size_t n)
{
    pmix_value_t *v = NULL;
    char *out = NULL;
    pmix_status_t rc = PMIx_Get(p, key, info, n, &v);
    CHECK_RC(rc, PMIX_SUCCESS, key);
    if (rc == PMIX_SUCCESS && v != NULL) {
        CHECK(v->type == PMIX_STRING, "%s is a string (type %d)", key, v->type);
        if (v->type == PMIX_STRING && v->data.string != NULL)
            out = strdup(v->data.string);
        PMIX_VALUE_RELEASE(v);
    }
    return out;
}

static void put_str(const char *key, const char *val)
{
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, val, PMIX_STRING);
    CHECK_RC(PMIx_Put(PMIX_GLOBAL, key, &v), PMIX_SUCCESS, key);
    PMIX_VALUE_DESTRUCT(&v);
}

static void fence(int collect)
{
    pmix_info_t info;
    bool yes = true;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    CHECK_RC(PMIx_Fence(NULL, 0, collect ? &info : NULL, collect ? 1 : 0), PMIX_SUCCESS,
             collect ? "fence with PMIX_COLLECT_DATA" : "fence without data");
    PMIX_INFO_DESTRUCT(&info);
}

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *source,
                     pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id; (void)source; (void)info; (void)ninfo; (void)results; (void)nresults;
    if (status == EV_CODE)
        ev_seen++;
    if (cbfunc != NULL)
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void on_reg(pmix_status_t status, size_t id, void *cbdata)
{
    (void)cbdata;
    reg_id = id;
    reg_done = status == PMIX_SUCCESS ? 1 : -1;
}

static int wait_for(volatile int *flag, int want, int secs)
{
    for (int i = 0; i < secs * 100 && *flag < want; i++)
        usleep(10000);
    return *flag >= want;
}

static void events(uint32_t size)
{
    pmix_status_t code = EV_CODE;
    PMIx_Register_event_handler(&code, 1, NULL, 0, on_event, on_reg, NULL);
    CHECK(wait_for(&reg_done, 1, 10), "event handler registered (%d)", reg_done);
    fence(0);
    if (me.rank == 0 && getenv("V41CLIENT_NO_NOTIFY") == NULL) {
        pmix_info_t info;
        bool yes = true;
        PMIX_INFO_LOAD(&info, PMIX_EVENT_NON_DEFAULT, &yes, PMIX_BOOL);
        CHECK_RC(PMIx_Notify_event(EV_CODE, &me, PMIX_RANGE_LOCAL, &info, 1, NULL, NULL),
                 PMIX_SUCCESS, "PMIx_Notify_event");
        PMIX_INFO_DESTRUCT(&info);
    }
    (void)size;
    /* Open MPI 4.1.4's mpirun does not pass a client's event on to the other ranks (its
     * own clients see none either): the notifier's handler is what is checked. */
    if (getenv("V41CLIENT_NO_NOTIFY") == NULL)
        CHECK(wait_for(&ev_seen, 1, 10), "rank %u: event %d delivered (%d)", me.rank, EV_CODE,
              ev_seen);
    PMIx_Deregister_event_handler(reg_id, NULL, NULL);
}

static void publish(void)
{
    if (me.rank == 0 && getenv("V41CLIENT_NO_NOTIFY") == NULL) {
        pmix_info_t info;
        PMIX_INFO_LOAD(&info, "v41client.pub", "published-by-0", PMIX_STRING);
        CHECK_RC(PMIx_Publish(&info, 1), PMIX_SUCCESS, "PMIx_Publish");
        PMIX_INFO_DESTRUCT(&info);
    }
    fence(0);
    pmix_pdata_t pd;
    PMIX_PDATA_CONSTRUCT(&pd);
    PMIX_LOAD_KEY(pd.key, "v41client.pub");
    pmix_status_t rc = PMIx_Lookup(&pd, 1, NULL, 0);
    CHECK_RC(rc, PMIX_SUCCESS, "PMIx_Lookup");
    CHECK(rc == PMIX_SUCCESS && pd.value.type == PMIX_STRING &&
              strcmp(pd.value.data.string, "published-by-0") == 0,
          "lookup found rank 0's value");
    PMIX_PDATA_DESTRUCT(&pd);
    fence(0);
}

static void peers(uint32_t size, const char *longval)
{
    char key[64], want[64];
    for (uint32_t r = 0; r < size; r++) {
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, me.nspace, r);
        snprintf(want, sizeof want, "value-of-%u", r);
        char *got = get_str(&p, "v41client.short", NULL, 0);
        CHECK(got != NULL && strcmp(got, want) == 0, "rank %u's short key: %s", r,
              got ? got : "(null)");
        free(got);
        got = get_str(&p, "v41client.long", NULL, 0);
        CHECK(got != NULL && strlen(got) == LONG_LEN && got[0] == (char)('a' + r % 26) &&
                  strcmp(got + 1, longval + 1) == 0,
              "rank %u's long key (%zu bytes) came back whole", r, got ? strlen(got) : 0);
        free(got);
    }
    /* the next rank's key again, refreshed from the server */
    pmix_proc_t next;
    PMIX_LOAD_PROCID(&next, me.nspace, (me.rank + 1) % size);
    pmix_info_t info;
    bool yes = true;
    PMIX_INFO_LOAD(&info, PMIX_GET_REFRESH_CACHE, &yes, PMIX_BOOL);
    snprintf(want, sizeof want, "value-of-%u", next.rank);
    snprintf(key, sizeof key, "v41client.short");
    char *got = get_str(&next, key, &info, 1);
    CHECK(got != NULL && strcmp(got, want) == 0, "refreshed get of rank %u: %s", next.rank,
          got ? got : "(null)");
    free(got);
    PMIX_INFO_DESTRUCT(&info);
}

int main(void)
{
    check_maps();
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (getenv("V41CLIENT_REFUSE") != NULL) {
        /* the environment offers a gds or security module we do not implement */
        CHECK_RC(rc, PMIX_ERR_NOT_SUPPORTED, "PMIx_Init");
        CHECK_DONE();
    }
    CHECK_RC(rc, PMIX_SUCCESS, "PMIx_Init");
    if (rc != PMIX_SUCCESS)
        CHECK_DONE();
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    uint32_t size = get_u32(&wild, PMIX_JOB_SIZE);
    const char *np = getenv("OMPI_COMM_WORLD_SIZE");
    CHECK(np != NULL && size == (uint32_t)atoi(np), "job size %u (mpirun -np %s)", size,
          np ? np : "?");
    uint32_t lsize = get_u32(&wild, PMIX_LOCAL_SIZE);
    CHECK(lsize == size, "local size %u", lsize);
    char host[256] = "";
    gethostname(host, sizeof host);
    char *h = get_str(&me, PMIX_HOSTNAME, NULL, 0);
    CHECK(h != NULL && strcmp(h, host) == 0, "our hostname %s (want %s)", h ? h : "(null)",
          host);
    free(h);
    char *lp = get_str(&wild, PMIX_LOCAL_PEERS, NULL, 0);
    CHECK(lp != NULL && strchr(lp, '0') != NULL, "local peers %s", lp ? lp : "(null)");
    free(lp);
    uint32_t lrank = get_u32(&me, PMIX_LOCAL_RANK);
    CHECK(lrank == me.rank, "local rank %u", lrank);

    char shortval[64];
    snprintf(shortval, sizeof shortval, "value-of-%u", me.rank);
    put_str("v41client.short", shortval);
    char *longval = malloc(LONG_LEN + 1);
    memset(longval, 'x', LONG_LEN);
    longval[LONG_LEN] = '\0';
    longval[0] = (char)('a' + me.rank % 26);
    put_str("v41client.long", longval);
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "PMIx_Commit");
    fence(0);
    fence(1);
    peers(size, longval);
    free(longval);
    if (getenv("V41CLIENT_NO_EVENTS") == NULL)
        events(size);
    if (getenv("V41CLIENT_NO_PUBLISH") == NULL)
        publish();
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
