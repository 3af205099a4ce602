/* hchost: the client calls a server only relays to its host's module slots
 * (credentials, allocation, monitoring, session control, fabric, resource
 * blocks), through a C host, without
 * pmixrun. The host forks 2 clients of itself.
 *
 *   hchost null   every one of those slots (and `fabric`) is NULL: each call, blocking and
 *                 non-blocking, fails with PMIX_ERR_NOT_SUPPORTED; a PMIX_SEND_HEARTBEAT
 *                 monitor and PMIx_Heartbeat still succeed (they never reach the host)
 *   hchost host   the slots are implemented here, with the 32-slot module
 *                 (PMIX_SERVER_MODULE_V7): each slot sees the client's identity and
 *                 arguments, and the client gets the host's answers back
 *   hchost v4     the slots are implemented but the module is declared with 28 slots:
 *                 everything works except session control and resource blocks (slots
 *                 31 and 32), NOT_SUPPORTED
 *
 * In every mode the host registers attributes for one function
 * (PMIx_Register_attributes), which its own and its clients' attribute-support queries
 * report; bad arguments give PMIX_ERR_BAD_PARAM, and a blocking call made from a
 * callback (on the progress thread) gives PMIX_ERR_WOULD_BLOCK. */
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "check.h"
#include "host.h"

#define NSPACE "hchost-job"


static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static int n_getcred, n_valid, n_alloc, n_monitor, n_session, n_fabric, n_resblk, bad_args;

static void count(int *x, bool args_ok)
{
    pthread_mutex_lock(&mtx);
    (*x)++;
    if (!args_ok) {
        bad_args++;
    }
    pthread_mutex_unlock(&mtx);
}

static bool has_key(const pmix_info_t *info, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++) {
        if (PMIX_CHECK_KEY(&info[i], key)) {
            return true;
        }
    }
    return false;
}

static bool our_client(const pmix_proc_t *p)
{
    return p && 0 == strncmp(p->nspace, NSPACE, PMIX_MAX_NSLEN) && p->rank < 2;
}

static pmix_status_t h_finalized(const pmix_proc_t *p, void *obj, pmix_op_cbfunc_t cb, void *cbd)
{
    (void)p;
    (void)obj;
    if (cb) {
        cb(PMIX_SUCCESS, cbd);
    }
    return PMIX_SUCCESS;
}

/* The credential names the rank it was issued to. */
static pmix_status_t h_getcred(const pmix_proc_t *p, const pmix_info_t directives[],
                               size_t ndirs, pmix_credential_cbfunc_t cb, void *cbd)
{
    count(&n_getcred, our_client(p) && has_key(directives, ndirs, "hchost.dir"));
    char buf[64];
    int len = snprintf(buf, sizeof buf, "hchost-cred-%u", p->rank);
    pmix_byte_object_t bo = {.bytes = buf, .size = (size_t)len};
    pmix_info_t info;
    PMIX_INFO_LOAD(&info, PMIX_CRED_TYPE, "hchost", PMIX_STRING);
    cb(PMIX_SUCCESS, &bo, &info, 1, cbd);
    PMIX_INFO_DESTRUCT(&info);
    return PMIX_SUCCESS;
}

/* Valid if it is the credential of the rank presenting it. */
static pmix_status_t h_validate(const pmix_proc_t *p, const pmix_byte_object_t *cred,
                                const pmix_info_t directives[], size_t ndirs,
                                pmix_validation_cbfunc_t cb, void *cbd)
{
    (void)directives;
    (void)ndirs;
    count(&n_valid, our_client(p) && cred);
    char want[64];
    int len = snprintf(want, sizeof want, "hchost-cred-%u", p->rank);
    if (!cred || cred->size != (size_t)len || 0 != memcmp(cred->bytes, want, (size_t)len)) {
        cb(PMIX_ERR_INVALID_CRED, NULL, 0, cbd);
        return PMIX_SUCCESS;
    }
    pmix_info_t info;
    uint32_t uid = (uint32_t)getuid();
    PMIX_INFO_LOAD(&info, PMIX_USERID, &uid, PMIX_UINT32);
    cb(PMIX_SUCCESS, &info, 1, cbd);
    PMIX_INFO_DESTRUCT(&info);
    return PMIX_SUCCESS;
}

/* Answers with one info `key` = `val`. */
static void answer(pmix_info_cbfunc_t cb, void *cbd, const char *key, uint32_t val)
{
    pmix_info_t info;
    PMIX_INFO_LOAD(&info, key, &val, PMIX_UINT32);
    cb(PMIX_SUCCESS, &info, 1, cbd, NULL, NULL);
    PMIX_INFO_DESTRUCT(&info);
}

static pmix_status_t h_alloc(const pmix_proc_t *p, pmix_alloc_directive_t directive,
                             const pmix_info_t data[], size_t ndata, pmix_info_cbfunc_t cb,
                             void *cbd)
{
    count(&n_alloc, our_client(p) && PMIX_ALLOC_EXTEND == directive &&
                        has_key(data, ndata, PMIX_ALLOC_NUM_NODES));
    answer(cb, cbd, "hchost.alloc", 100 + p->rank);
    return PMIX_SUCCESS;
}

static pmix_status_t h_monitor(const pmix_proc_t *p, const pmix_info_t *monitor,
                               pmix_status_t error, const pmix_info_t directives[],
                               size_t ndirs, pmix_info_cbfunc_t cb, void *cbd)
{
    count(&n_monitor, our_client(p) && monitor &&
                          PMIX_CHECK_KEY(monitor, PMIX_MONITOR_HEARTBEAT) && -7070 == error &&
                          has_key(directives, ndirs, PMIX_MONITOR_HEARTBEAT_TIME));
    answer(cb, cbd, "hchost.monitor", 200 + p->rank);
    return PMIX_SUCCESS;
}

/* Synchronous answer: PMIX_OPERATION_SUCCEEDED, no callback (no results then). */
static pmix_status_t h_session(const pmix_proc_t *p, uint32_t sessionID,
                               const pmix_info_t directives[], size_t ndirs,
                               pmix_info_cbfunc_t cb, void *cbd)
{
    count(&n_session, our_client(p) && 42 == sessionID &&
                          has_key(directives, ndirs, PMIX_SESSION_PAUSE));
    if (p->rank == 1) {
        return PMIX_OPERATION_SUCCEEDED;
    }
    answer(cb, cbd, "hchost.session", 300);
    return PMIX_SUCCESS;
}

/* Register: the directives came along; update: the fabric's index came along. */
static pmix_status_t h_fabric(const pmix_proc_t *p, pmix_fabric_operation_t op,
                              const pmix_info_t directives[], size_t ndirs,
                              pmix_info_cbfunc_t cb, void *cbd)
{
    bool ok = our_client(p);
    if (PMIX_FABRIC_REQUEST_INFO == op) {
        ok = ok && has_key(directives, ndirs, "hchost.dir");
        answer(cb, cbd, "hchost.fabric", 400 + p->rank);
    } else {
        ok = ok && PMIX_FABRIC_UPDATE_INFO == op && 1 == ndirs &&
             PMIX_CHECK_KEY(&directives[0], PMIX_FABRIC_INDEX) &&
             7 == directives[0].value.data.size;
        answer(cb, cbd, "hchost.fabric", 500 + p->rank);
    }
    count(&n_fabric, ok);
    return PMIX_SUCCESS;
}

/* ------------------------------------------------------------------ client mode */

typedef struct {
    pthread_mutex_t m;
    pthread_cond_t c;
    bool done;
    pmix_status_t st;
    pmix_status_t inner; /* a blocking call made inside the callback */
    size_t n;
    char key[PMIX_MAX_KEYLEN + 1];
    uint32_t val;
    char cred[64];
} waiter_t;

static void w_init(waiter_t *w)
{
    memset(w, 0, sizeof *w);
    pthread_mutex_init(&w->m, NULL);
    pthread_cond_init(&w->c, NULL);
    w->inner = -1;
}

static void w_done(waiter_t *w)
{
    pthread_mutex_lock(&w->m);
    w->done = true;
    pthread_cond_signal(&w->c);
    pthread_mutex_unlock(&w->m);
}

static void w_wait(waiter_t *w)
{
    pthread_mutex_lock(&w->m);
    while (!w->done) {
        pthread_cond_wait(&w->c, &w->m);
    }
    pthread_mutex_unlock(&w->m);
}

static void first_info(waiter_t *w, pmix_info_t *info, size_t n)
{
    w->n = n;
    if (n > 0) {
        PMIX_LOAD_KEY(w->key, info[0].key);
        if (PMIX_UINT32 == info[0].value.type) {
            w->val = info[0].value.data.uint32;
        }
    }
}

static void info_cb(pmix_status_t st, pmix_info_t *info, size_t n, void *cbd,
                    pmix_release_cbfunc_t rel, void *relcbd)
{
    waiter_t *w = cbd;
    w->st = st;
    first_info(w, info, n);
    /* A blocking call from the progress thread must refuse, not hang. */
    pmix_byte_object_t bo;
    w->inner = PMIx_Get_credential(NULL, 0, &bo);
    PMIx_Progress(); /* a no-op, also on the progress thread */
    if (rel) {
        rel(relcbd);
    }
    w_done(w);
}

static void cred_cb(pmix_status_t st, pmix_byte_object_t *cred, pmix_info_t *info, size_t n,
                    void *cbd)
{
    waiter_t *w = cbd;
    w->st = st;
    w->n = n;
    if (cred && cred->size < sizeof w->cred) {
        memcpy(w->cred, cred->bytes, cred->size);
    }
    if (n > 0) {
        PMIX_LOAD_KEY(w->key, info[0].key);
    }
    pmix_info_t *res = NULL;
    size_t nres = 0;
    pmix_byte_object_t bo = {.bytes = w->cred, .size = strlen(w->cred)};
    w->inner = PMIx_Validate_credential(&bo, NULL, 0, &res, &nres);
    w_done(w);
}

static void valid_cb(pmix_status_t st, pmix_info_t *info, size_t n, void *cbd)
{
    waiter_t *w = cbd;
    w->st = st;
    w->n = n;
    if (n > 0) {
        PMIX_LOAD_KEY(w->key, info[0].key);
    }
    w_done(w);
}

static pmix_status_t h_resblk(const pmix_proc_t *p, pmix_resource_block_directive_t directive,
                              const char *block, const pmix_resource_unit_t *units,
                              size_t nunits, const pmix_info_t info[], size_t ninfo,
                              pmix_op_cbfunc_t cb, void *cbd)
{
    (void)info;
    (void)ninfo;
    bool ok = our_client(p) && PMIX_RESOURCE_BLOCK_DEFINE == directive && block &&
              0 == strcmp(block, "hchost-blk") && 2 == nunits && 3 == units[0].count &&
              PMIX_DEVTYPE_GPU == units[1].type && 5 == units[1].count;
    count(&n_resblk, ok);
    cb(ok ? PMIX_SUCCESS : PMIX_ERR_BAD_PARAM, cbd);
    return PMIX_SUCCESS;
}

static void op_cb(pmix_status_t st, void *cbd)
{
    waiter_t *w = cbd;
    w->st = st;
    w_done(w);
}

/* What the 32-slot-only calls give in each mode. */
/* Find `key` among the infos of a data array of infos. */
static const pmix_info_t *find_in(const pmix_value_t *v, const char *key)
{
    if (PMIX_DATA_ARRAY != v->type || NULL == v->data.darray ||
        PMIX_INFO != v->data.darray->type) {
        return NULL;
    }
    const pmix_info_t *a = v->data.darray->array;
    for (size_t i = 0; i < v->data.darray->size; i++) {
        if (PMIX_CHECK_KEY(&a[i], key)) {
            return &a[i];
        }
    }
    return NULL;
}

/* The host's registered attributes reach a client's attribute-support query. */
static void query_host_attrs(void)
{
    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    PMIx_Argv_append_nosize(&q.keys, PMIX_QUERY_ATTRIBUTE_SUPPORT);
    PMIx_Argv_append_nosize(&q.keys, "PMIx_Allocation_request");
    q.nqual = 1;
    PMIX_INFO_CREATE(q.qualifiers, 1);
    bool t = true;
    PMIX_INFO_LOAD(&q.qualifiers[0], PMIX_HOST_ATTRIBUTES, &t, PMIX_BOOL);
    pmix_info_t *res = NULL;
    size_t nres = 0;
    CHECK_RC(PMIx_Query_info(&q, 1, &res, &nres), PMIX_SUCCESS, "Query host attribute support");
    const pmix_info_t *sup = nres == 1 ? find_in(&res[0].value, PMIX_QUERY_ATTRIBUTE_SUPPORT) : NULL;
    const pmix_info_t *fn = sup ? find_in(&sup->value, "PMIx_Allocation_request") : NULL;
    bool ok = fn && PMIX_DATA_ARRAY == fn->value.type &&
              PMIX_REGATTR == fn->value.data.darray->type && 2 == fn->value.data.darray->size;
    if (ok) {
        pmix_regattr_t *ra = fn->value.data.darray->array;
        ok = 0 == strcmp(ra[0].name, "PMIX_ALLOC_NUM_NODES") &&
             0 == strcmp(ra[0].string, PMIX_ALLOC_NUM_NODES) && PMIX_UINT64 == ra[0].type &&
             0 == strcmp(ra[1].name, "HCHOST_CUSTOM");
    }
    CHECK(ok, "the host's attributes for PMIx_Allocation_request");
    PMIX_INFO_FREE(res, nres);
    PMIX_QUERY_DESTRUCT(&q);

    PMIX_QUERY_CONSTRUCT(&q);
    PMIx_Argv_append_nosize(&q.keys, PMIX_QUERY_ATTRIBUTE_SUPPORT);
    q.nqual = 1;
    PMIX_INFO_CREATE(q.qualifiers, 1);
    PMIX_INFO_LOAD(&q.qualifiers[0], PMIX_HOST_FUNCTIONS, &t, PMIX_BOOL);
    CHECK_RC(PMIx_Query_info(&q, 1, &res, &nres), PMIX_SUCCESS, "Query host functions");
    const pmix_info_t *fns = nres == 1 ? find_in(&res[0].value, PMIX_HOST_FUNCTIONS) : NULL;
    CHECK(fns && PMIX_STRING == fns->value.type &&
              0 == strcmp(fns->value.data.string, "PMIx_Allocation_request"),
          "the host's registered functions");
    PMIX_INFO_FREE(res, nres);
    PMIX_QUERY_DESTRUCT(&q);
}

static pmix_status_t swant_of(bool null, bool v4)
{
    return (null || v4) ? PMIX_ERR_NOT_SUPPORTED : PMIX_SUCCESS;
}

static int client(const char *mode)
{
    bool null = 0 == strcmp(mode, "null");
    bool v4 = 0 == strcmp(mode, "v4");
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    CHECK_RC(rc, PMIX_SUCCESS, "client PMIx_Init");
    if (rc != PMIX_SUCCESS) {
        CHECK_DONE();
    }
    pmix_status_t want = null ? PMIX_ERR_NOT_SUPPORTED : PMIX_SUCCESS;
    pmix_info_t dir;
    PMIX_INFO_LOAD(&dir, "hchost.dir", "x", PMIX_STRING);
    char mine[64];
    snprintf(mine, sizeof mine, "hchost-cred-%u", me.rank);

    /* --- credentials --- */
    pmix_byte_object_t cred = {.bytes = (char *)0x1, .size = 99};
    CHECK_RC(PMIx_Get_credential(&dir, 1, &cred), want, "Get_credential");
    if (null) {
        CHECK(NULL == cred.bytes && 0 == cred.size, "no credential on failure");
    } else {
        CHECK(cred.size == strlen(mine) && 0 == memcmp(cred.bytes, mine, cred.size),
              "the host's credential for this rank");
        PMIX_BYTE_OBJECT_DESTRUCT(&cred);
    }
    CHECK_RC(PMIx_Get_credential(NULL, 0, NULL), PMIX_ERR_BAD_PARAM, "Get_credential(NULL)");

    pmix_info_t *res = NULL;
    size_t nres = 0;
    pmix_byte_object_t mybo = {.bytes = mine, .size = strlen(mine)};
    CHECK_RC(PMIx_Validate_credential(&mybo, NULL, 0, &res, &nres), want,
             "Validate_credential of our own");
    if (!null) {
        CHECK(1 == nres && PMIX_CHECK_KEY(&res[0], PMIX_USERID) &&
                  res[0].value.data.uint32 == (uint32_t)getuid(),
              "the host's validation results");
        PMIX_INFO_FREE(res, nres);
    }
    char other[64];
    snprintf(other, sizeof other, "hchost-cred-%u", 1 - me.rank);
    pmix_byte_object_t otherbo = {.bytes = other, .size = strlen(other)};
    CHECK_RC(PMIx_Validate_credential(&otherbo, NULL, 0, &res, &nres),
             null ? PMIX_ERR_NOT_SUPPORTED : PMIX_ERR_INVALID_CRED,
             "Validate_credential of another rank's credential");
    CHECK(NULL == res && 0 == nres, "no results for a rejected credential");
    CHECK_RC(PMIx_Validate_credential(NULL, NULL, 0, &res, &nres), PMIX_ERR_BAD_PARAM,
             "Validate_credential(NULL)");
    pmix_byte_object_t broken = {.bytes = NULL, .size = 5};
    CHECK_RC(PMIx_Validate_credential(&broken, NULL, 0, &res, &nres), PMIX_ERR_BAD_PARAM,
             "Validate_credential of NULL bytes with a size");

    waiter_t w;
    w_init(&w);
    CHECK_RC(PMIx_Get_credential_nb(&dir, 1, cred_cb, &w), PMIX_SUCCESS, "Get_credential_nb");
    w_wait(&w);
    CHECK_RC(w.st, want, "Get_credential_nb callback status");
    CHECK_RC(w.inner, PMIX_ERR_WOULD_BLOCK, "blocking Validate_credential in a callback");
    if (!null) {
        CHECK(0 == strcmp(w.cred, mine) && 1 == w.n && 0 == strcmp(w.key, PMIX_CRED_TYPE),
              "Get_credential_nb: credential %s and its info", w.cred);
    }
    w_init(&w);
    CHECK_RC(PMIx_Validate_credential_nb(&mybo, NULL, 0, valid_cb, &w), PMIX_SUCCESS,
             "Validate_credential_nb");
    w_wait(&w);
    CHECK_RC(w.st, want, "Validate_credential_nb callback status");
    if (!null) {
        CHECK(1 == w.n && 0 == strcmp(w.key, PMIX_USERID), "Validate_credential_nb results");
    }

    /* --- allocation --- */
    pmix_info_t ainfo;
    uint64_t nn = 2;
    PMIX_INFO_LOAD(&ainfo, PMIX_ALLOC_NUM_NODES, &nn, PMIX_UINT64);
    CHECK_RC(PMIx_Allocation_request(PMIX_ALLOC_EXTEND, &ainfo, 1, &res, &nres), want,
             "Allocation_request");
    if (!null) {
        CHECK(1 == nres && PMIX_CHECK_KEY(&res[0], "hchost.alloc") &&
                  100 + me.rank == res[0].value.data.uint32,
              "the host's allocation results");
        PMIX_INFO_FREE(res, nres);
    }
    CHECK_RC(PMIx_Allocation_request(PMIX_ALLOC_EXTEND, &ainfo, 1, NULL, NULL),
             PMIX_ERR_BAD_PARAM, "Allocation_request without results");
    w_init(&w);
    CHECK_RC(PMIx_Allocation_request_nb(PMIX_ALLOC_EXTEND, &ainfo, 1, info_cb, &w), PMIX_SUCCESS,
             "Allocation_request_nb");
    w_wait(&w);
    CHECK_RC(w.st, want, "Allocation_request_nb callback status");
    CHECK_RC(w.inner, PMIX_ERR_WOULD_BLOCK, "blocking Get_credential in a callback");
    if (!null) {
        CHECK(1 == w.n && 0 == strcmp(w.key, "hchost.alloc") && 100 + me.rank == w.val,
              "Allocation_request_nb results");
    }
    PMIX_INFO_DESTRUCT(&ainfo);

    /* --- monitoring --- */
    pmix_info_t mon, mdir;
    bool t = true;
    uint32_t secs = 5;
    PMIX_INFO_LOAD(&mon, PMIX_MONITOR_HEARTBEAT, &t, PMIX_BOOL);
    PMIX_INFO_LOAD(&mdir, PMIX_MONITOR_HEARTBEAT_TIME, &secs, PMIX_UINT32);
    CHECK_RC(PMIx_Process_monitor(&mon, -7070, &mdir, 1, &res, &nres), want, "Process_monitor");
    if (!null) {
        CHECK(1 == nres && PMIX_CHECK_KEY(&res[0], "hchost.monitor") &&
                  200 + me.rank == res[0].value.data.uint32,
              "the host's monitor results");
        PMIX_INFO_FREE(res, nres);
    }
    CHECK_RC(PMIx_Process_monitor(NULL, -7070, NULL, 0, &res, &nres), PMIX_ERR_BAD_PARAM,
             "Process_monitor(NULL)");
    w_init(&w);
    CHECK_RC(PMIx_Process_monitor_nb(&mon, -7070, &mdir, 1, info_cb, &w), PMIX_SUCCESS,
             "Process_monitor_nb");
    w_wait(&w);
    CHECK_RC(w.st, want, "Process_monitor_nb callback status");
    if (!null) {
        CHECK(1 == w.n && 200 + me.rank == w.val, "Process_monitor_nb results");
    }
    PMIX_INFO_DESTRUCT(&mon);
    PMIX_INFO_LOAD(&mon, PMIX_SEND_HEARTBEAT, &t, PMIX_BOOL);
    CHECK_RC(PMIx_Process_monitor(&mon, 0, NULL, 0, &res, &nres), PMIX_SUCCESS,
             "a SEND_HEARTBEAT monitor (never reaches the host)");
    CHECK(NULL == res && 0 == nres, "no results for a heartbeat");
    PMIX_INFO_DESTRUCT(&mon);
    PMIX_INFO_DESTRUCT(&mdir);
    PMIx_Heartbeat();
    PMIx_Heartbeat();

    /* --- fabric --- */
    pmix_fabric_t fab;
    PMIX_FABRIC_CONSTRUCT(&fab);
    CHECK_RC(PMIx_Fabric_register(&fab, &dir, 1), want, "Fabric_register");
    if (!null) {
        CHECK(1 == fab.ninfo && PMIX_CHECK_KEY(&fab.info[0], "hchost.fabric") &&
                  400 + me.rank == fab.info[0].value.data.uint32,
              "the host's fabric description");
    }
    fab.index = 7;
    CHECK_RC(PMIx_Fabric_update(&fab), want, "Fabric_update");
    if (!null) {
        CHECK(1 == fab.ninfo && 500 + me.rank == fab.info[0].value.data.uint32,
              "the updated description replaced the old one");
    }
    w_init(&w);
    CHECK_RC(PMIx_Fabric_register_nb(&fab, &dir, 1, op_cb, &w), PMIX_SUCCESS,
             "Fabric_register_nb");
    w_wait(&w);
    CHECK_RC(w.st, want, "Fabric_register_nb callback status");
    if (!null) {
        CHECK(1 == fab.ninfo && 400 + me.rank == fab.info[0].value.data.uint32,
              "Fabric_register_nb filled the fabric before its callback");
    }
    CHECK_RC(PMIx_Fabric_register_nb(&fab, &dir, 1, NULL, NULL), PMIX_ERR_BAD_PARAM,
             "Fabric_register_nb without a callback");
    CHECK_RC(PMIx_Fabric_register(NULL, NULL, 0), PMIX_ERR_BAD_PARAM, "Fabric_register(NULL)");
    CHECK_RC(PMIx_Fabric_deregister(&fab), PMIX_SUCCESS, "Fabric_deregister");
    CHECK(NULL == fab.info && 0 == fab.ninfo, "deregistration released the description");

    /* --- resource blocks (slot 32) --- */
    pmix_resource_unit_t units[2] = {{.type = PMIX_DEVTYPE_CORE, .count = 3},
                                     {.type = PMIX_DEVTYPE_GPU, .count = 5}};
    CHECK_RC(PMIx_Resource_block(PMIX_RESOURCE_BLOCK_DEFINE, "hchost-blk", units, 2, NULL, 0),
             swant_of(null, v4), "Resource_block");
    w_init(&w);
    CHECK_RC(PMIx_Resource_block_nb(PMIX_RESOURCE_BLOCK_DEFINE, "hchost-blk", units, 2, NULL, 0,
                                    op_cb, &w),
             PMIX_SUCCESS, "Resource_block_nb");
    w_wait(&w);
    CHECK_RC(w.st, swant_of(null, v4), "Resource_block_nb callback status");
    CHECK_RC(PMIx_Resource_block(PMIX_RESOURCE_BLOCK_DEFINE, "hchost-blk", NULL, 2, NULL, 0),
             PMIX_ERR_BAD_PARAM, "Resource_block with NULL units");

    /* --- session control --- */
    pmix_status_t swant = swant_of(null, v4);
    pmix_info_t sdir;
    PMIX_INFO_LOAD(&sdir, PMIX_SESSION_PAUSE, &t, PMIX_BOOL);
    w_init(&w);
    CHECK_RC(PMIx_Session_control(42, &sdir, 1, info_cb, &w), PMIX_SUCCESS,
             "Session_control with a callback");
    w_wait(&w);
    CHECK_RC(w.st, swant, "Session_control callback status");
    if (PMIX_SUCCESS == swant) {
        /* rank 1's host answers synchronously, without results */
        CHECK(me.rank == 0 ? (1 == w.n && 300 == w.val) : 0 == w.n,
              "Session_control results (%zu)", w.n);
    }
    CHECK_RC(PMIx_Session_control(42, &sdir, 1, NULL, NULL),
             PMIX_SUCCESS == swant ? PMIX_OPERATION_SUCCEEDED : swant,
             "Session_control without a callback");
    PMIX_INFO_DESTRUCT(&sdir);
    PMIX_INFO_DESTRUCT(&dir);

    query_host_attrs();

    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "Fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "Finalize");
    CHECK_DONE();
}

/* ------------------------------------------------------------------ host mode */

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "host";
    bool null = 0 == strcmp(mode, "null");
    bool v4 = 0 == strcmp(mode, "v4");
    if (argc > 2 && 0 == strcmp(argv[2], "client")) {
        return client(mode);
    }
    pmix_server_module_t module;
    memset(&module, 0, sizeof module);
    module.client_finalized = h_finalized;
    if (!null) {
        module.get_credential = h_getcred;
        module.validate_credential = h_validate;
        module.allocate = h_alloc;
        module.monitor = h_monitor;
        module.session_control = h_session;
        module.fabric = h_fabric;
        module.resource_block = h_resblk;
    }
    pmix_info_t sinfo;
    bool full = !v4;
    PMIX_INFO_LOAD(&sinfo, PMIX_SERVER_MODULE_V7, &full, PMIX_BOOL);
    pmix_status_t rc = PMIx_server_init(&module, &sinfo, 1);
    PMIX_INFO_DESTRUCT(&sinfo);
    CHECK_RC(rc, PMIX_SUCCESS, "PMIx_server_init");
    char *attrs[] = {"PMIX_ALLOC_NUM_NODES", "HCHOST_CUSTOM", NULL};
    CHECK_RC(PMIx_Register_attributes("PMIx_Allocation_request", attrs), PMIX_SUCCESS,
             "Register_attributes");
    CHECK_RC(PMIx_Register_attributes("PMIx_Allocation_request", NULL),
             PMIX_ERR_REPEAT_ATTR_REGISTRATION, "Register_attributes again");
    CHECK_RC(PMIx_Register_attributes(NULL, attrs), PMIX_ERR_BAD_PARAM,
             "Register_attributes(NULL)");
    query_host_attrs(); /* the server process's own query */

    const int n = 2;
    host_register_nspace(NSPACE, n);
    pid_t pids[2];
    for (int i = 0; i < n; i++) {
        char *args[] = {argv[0], (char *)mode, "client", NULL};
        pids[i] = host_start_client(NSPACE, (pmix_rank_t)i, args);
    }
    int failed = host_wait_clients(pids, n);
    CHECK(0 == failed, "every client passed (%d failed)", failed);
    pthread_mutex_lock(&mtx);
    if (null) {
        CHECK(0 == n_getcred + n_valid + n_alloc + n_monitor + n_session + n_fabric + n_resblk,
              "no upcalls");
    } else {
        /* per client: 2 get, 3 validate (own, other's, nb), 2 allocate, 2 monitor,
         * 2 session (none with a 28-slot module); heartbeats never reach the host */
        CHECK(4 == n_getcred && 6 == n_valid && 4 == n_alloc && 4 == n_monitor,
              "credential/allocate/monitor upcalls (%d %d %d %d)", n_getcred, n_valid, n_alloc,
              n_monitor);
        CHECK((v4 ? 0 : 4) == n_session && (v4 ? 0 : 4) == n_resblk,
              "session_control and resource_block upcalls (%d %d)", n_session, n_resblk);
        CHECK(6 == n_fabric, "fabric upcalls: register, update, register_nb (%d)", n_fabric);
        CHECK(0 == bad_args, "every upcall saw the client and its arguments (%d did not)",
              bad_args);
    }
    pthread_mutex_unlock(&mtx);
    rc = PMIx_server_finalize();
    CHECK_RC(rc, PMIX_SUCCESS, "PMIx_server_finalize");
    CHECK_DONE();
}
