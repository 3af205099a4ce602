/* publish: PMIx_Publish / PMIx_Lookup / PMIx_Unpublish under pmixrun (its data store).
 * Run: pmixrun -n N publish   (N >= 3)
 *  - bad arguments: NULL info, NULL data, NULL keys -> PMIX_ERR_BAD_PARAM;
 *  - a published value is found by every rank, with its publisher; a missing key is
 *    PMIX_ERR_NOT_FOUND at once; a key published twice on one range is
 *    PMIX_ERR_DUPLICATE_KEY;
 *  - several keys: the blocking form fills what it found and leaves the rest UNDEF;
 *    Lookup_nb reports PMIX_ERR_PARTIAL_SUCCESS with the found data only;
 *  - PMIX_RANGE_NAMESPACE data is seen within the namespace;
 *  - PMIX_WAIT: a lookup started before the publish completes when it happens; with
 *    PMIX_TIMEOUT a never-published key times out;
 *  - PMIX_PERSIST_FIRST_READ data is gone after one lookup; PMIX_PERSIST_PROC data goes
 *    when its publisher finalizes;
 *  - Unpublish removes the data, after which the key can be published again;
 *  - a blocking Publish inside a callback returns PMIX_ERR_WOULD_BLOCK. */
#include "dyn.h"

static pmix_proc_t me;
static pmix_status_t inner_rc = PMIX_SUCCESS;

struct lookup_result {
    struct waiter w;
    size_t n;
    int value;
    pmix_rank_t from;
};

static void lookup_cb(pmix_status_t status, pmix_pdata_t data[], size_t ndata, void *cbdata)
{
    struct lookup_result *r = cbdata;
    r->n = ndata;
    if (ndata > 0 && PMIX_INT == data[0].value.type) {
        r->value = data[0].value.data.integer;
        r->from = data[0].proc.rank;
    }
    waiter_done(&r->w, status);
}

static void publish_inside(pmix_status_t status, void *cbdata)
{
    pmix_info_t i;
    int v = 1;
    PMIX_INFO_LOAD(&i, "inside.key", &v, PMIX_INT);
    inner_rc = PMIx_Publish(&i, 1);
    PMIX_INFO_DESTRUCT(&i);
    op_done(status, cbdata);
}

static pmix_status_t publish_int(const char *key, int v, const pmix_info_t *extra, size_t nextra)
{
    pmix_info_t info[4];
    PMIX_INFO_LOAD(&info[0], key, &v, PMIX_INT);
    for (size_t i = 0; i < nextra && i < 3; i++) {
        PMIX_INFO_XFER(&info[i + 1], &extra[i]);
    }
    pmix_status_t rc = PMIx_Publish(info, 1 + nextra);
    for (size_t i = 0; i < 1 + nextra; i++) {
        PMIX_INFO_DESTRUCT(&info[i]);
    }
    return rc;
}

/* Blocking lookup of one key: status, value, publisher. */
static pmix_status_t lookup_int(const char *key, int *v, pmix_rank_t *from,
                                const pmix_info_t *info, size_t ninfo)
{
    pmix_pdata_t d;
    PMIX_PDATA_CONSTRUCT(&d);
    PMIX_LOAD_KEY(d.key, key);
    pmix_status_t rc = PMIx_Lookup(&d, 1, info, ninfo);
    if (PMIX_SUCCESS == rc && PMIX_INT == d.value.type) {
        *v = d.value.data.integer;
        *from = d.proc.rank;
    }
    PMIX_PDATA_DESTRUCT(&d);
    return rc;
}

static void barrier(void)
{
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "barrier");
}

int main(void)
{
    CHECK_RC(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS, "PMIx_Init");
    if (check_failures) {
        CHECK_DONE();
    }
    int v = -1;
    pmix_rank_t from = 99;
    struct waiter w;

    /* Bad arguments. */
    CHECK_RC(PMIx_Publish(NULL, 0), PMIX_ERR_BAD_PARAM, "Publish(NULL)");
    CHECK_RC(PMIx_Lookup(NULL, 0, NULL, 0), PMIX_ERR_BAD_PARAM, "Lookup(NULL)");
    CHECK_RC(PMIx_Lookup_nb(NULL, NULL, 0, lookup_cb, NULL), PMIX_ERR_BAD_PARAM,
             "Lookup_nb(NULL keys)");

    /* Publish, duplicates, lookup everywhere. */
    if (0 == me.rank) {
        CHECK_RC(publish_int("pub.a", 42, NULL, 0), PMIX_SUCCESS, "publish pub.a");
        pmix_info_t ns;
        pmix_data_range_t range = PMIX_RANGE_NAMESPACE;
        PMIX_INFO_LOAD(&ns, PMIX_RANGE, &range, PMIX_DATA_RANGE);
        CHECK_RC(publish_int("pub.ns", 7, &ns, 1), PMIX_SUCCESS, "publish on the namespace");
        PMIX_INFO_DESTRUCT(&ns);
        pmix_info_t once;
        pmix_persistence_t p = PMIX_PERSIST_FIRST_READ;
        PMIX_INFO_LOAD(&once, PMIX_PERSISTENCE, &p, PMIX_PERSIST);
        CHECK_RC(publish_int("pub.once", 5, &once, 1), PMIX_SUCCESS, "publish first-read");
        PMIX_INFO_DESTRUCT(&once);
    }
    barrier();
    if (1 == me.rank) {
        CHECK_RC(publish_int("pub.a", 43, NULL, 0), PMIX_ERR_DUPLICATE_KEY,
                 "publishing pub.a again on the same range");
        pmix_info_t proc;
        pmix_persistence_t p = PMIX_PERSIST_PROC;
        PMIX_INFO_LOAD(&proc, PMIX_PERSISTENCE, &p, PMIX_PERSIST);
        CHECK_RC(publish_int("pub.proc", 11, &proc, 1), PMIX_SUCCESS, "publish proc-persistent");
        PMIX_INFO_DESTRUCT(&proc);
    }
    CHECK_RC(lookup_int("pub.a", &v, &from, NULL, 0), PMIX_SUCCESS, "lookup pub.a");
    CHECK(42 == v && 0 == from, "pub.a = %d from rank %u", v, from);
    CHECK_RC(lookup_int("pub.ns", &v, &from, NULL, 0), PMIX_SUCCESS, "lookup pub.ns");
    CHECK(7 == v, "namespace-range value seen in the namespace (%d)", v);
    double t0 = now_s();
    CHECK_RC(lookup_int("pub.missing", &v, &from, NULL, 0), PMIX_ERR_NOT_FOUND,
             "a missing key, without PMIX_WAIT");
    CHECK(now_s() - t0 < 2.0, "answered at once");
    barrier();

    /* First read: exactly one rank gets it. */
    if (1 == me.rank) {
        CHECK_RC(lookup_int("pub.once", &v, &from, NULL, 0), PMIX_SUCCESS, "first read");
    }
    barrier();
    if (2 == me.rank) {
        CHECK_RC(lookup_int("pub.once", &v, &from, NULL, 0), PMIX_ERR_NOT_FOUND,
                 "gone after the first read");
    }

    /* Several keys. */
    pmix_pdata_t two[2];
    PMIX_PDATA_CONSTRUCT(&two[0]);
    PMIX_PDATA_CONSTRUCT(&two[1]);
    PMIX_LOAD_KEY(two[0].key, "pub.missing");
    PMIX_LOAD_KEY(two[1].key, "pub.a");
    CHECK_RC(PMIx_Lookup(two, 2, NULL, 0), PMIX_SUCCESS, "lookup of a found and a missing key");
    CHECK(PMIX_UNDEF == two[0].value.type, "the missing one stays UNDEF");
    CHECK(PMIX_INT == two[1].value.type && 42 == two[1].value.data.integer,
          "the found one is filled");
    PMIX_PDATA_DESTRUCT(&two[0]);
    PMIX_PDATA_DESTRUCT(&two[1]);
    struct lookup_result lr;
    waiter_init(&lr.w);
    lr.n = 99;
    char *keys[] = {"pub.a", "pub.missing", NULL};
    CHECK_RC(PMIx_Lookup_nb(keys, NULL, 0, lookup_cb, &lr), PMIX_SUCCESS, "Lookup_nb");
    CHECK(waiter_wait(&lr.w), "Lookup_nb called back");
    CHECK_RC(lr.w.status, PMIX_ERR_PARTIAL_SUCCESS, "partial success");
    CHECK(1 == lr.n && 42 == lr.value, "only the found datum (%zu)", lr.n);
    barrier();

    /* PMIX_WAIT: rank 2 asks first, rank 0 publishes later. */
    pmix_info_t wait;
    int all = 0;
    PMIX_INFO_LOAD(&wait, PMIX_WAIT, &all, PMIX_INT);
    waiter_init(&lr.w);
    lr.n = 0;
    char *late[] = {"pub.late", NULL};
    if (2 == me.rank) {
        CHECK_RC(PMIx_Lookup_nb(late, &wait, 1, lookup_cb, &lr), PMIX_SUCCESS,
                 "waiting Lookup_nb");
        sleep_ms(300);
        CHECK(0 == lr.w.calls, "still waiting before the publish");
    }
    barrier();
    if (0 == me.rank) {
        CHECK_RC(publish_int("pub.late", 77, NULL, 0), PMIX_SUCCESS, "late publish");
    }
    if (2 == me.rank) {
        CHECK(waiter_wait(&lr.w), "the waiting lookup completed");
        CHECK(PMIX_SUCCESS == lr.w.status && 77 == lr.value, "with the late value (%d)",
              lr.value);
    }
    if (1 == me.rank) {
        pmix_info_t wt[2];
        int secs = 1;
        PMIX_INFO_LOAD(&wt[0], PMIX_WAIT, &all, PMIX_INT);
        PMIX_INFO_LOAD(&wt[1], PMIX_TIMEOUT, &secs, PMIX_INT);
        t0 = now_s();
        CHECK_RC(lookup_int("pub.never", &v, &from, wt, 2), PMIX_ERR_TIMEOUT,
                 "waiting for a key nobody publishes");
        double took = now_s() - t0;
        CHECK(took >= 0.8 && took < 5.0, "after %.2f s", took);
    }
    PMIX_INFO_DESTRUCT(&wait);
    barrier();

    /* Unpublish, then publish again. */
    if (0 == me.rank) {
        char *gone[] = {"pub.a", NULL};
        CHECK_RC(PMIx_Unpublish(gone, NULL, 0), PMIX_SUCCESS, "unpublish pub.a");
    }
    barrier();
    CHECK_RC(lookup_int("pub.a", &v, &from, NULL, 0), PMIX_ERR_NOT_FOUND, "pub.a is gone");
    barrier();
    if (1 == me.rank) {
        waiter_init(&w);
        pmix_info_t again;
        int x = 44;
        PMIX_INFO_LOAD(&again, "pub.a", &x, PMIX_INT);
        CHECK_RC(PMIx_Publish_nb(&again, 1, publish_inside, &w), PMIX_SUCCESS,
                 "publish pub.a again");
        CHECK(waiter_wait(&w) && PMIX_SUCCESS == w.status, "Publish_nb completed");
        CHECK_RC(inner_rc, PMIX_ERR_WOULD_BLOCK, "blocking Publish inside a callback");
        PMIX_INFO_DESTRUCT(&again);
    }
    barrier();
    CHECK_RC(lookup_int("pub.a", &v, &from, NULL, 0), PMIX_SUCCESS, "pub.a is back");
    CHECK(44 == v && 1 == from, "with rank 1's value (%d from %u)", v, from);
    barrier();

    /* Rank 1 leaves: its proc-persistent datum goes with it. */
    if (1 == me.rank) {
        CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "rank 1 finalizes");
        CHECK_DONE();
    }
    if (0 == me.rank) {
        pmix_status_t rc = PMIX_SUCCESS;
        for (int i = 0; i < 50 && PMIX_SUCCESS == rc; i++) {
            rc = lookup_int("pub.proc", &v, &from, NULL, 0);
            if (PMIX_SUCCESS == rc) {
                sleep_ms(100);
            }
        }
        CHECK_RC(rc, PMIX_ERR_NOT_FOUND, "pub.proc went with its publisher");
    }
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
