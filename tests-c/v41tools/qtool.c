/* qtool: a pps-like tool that attaches to a running job's server by its pid and asks
 * about the job. Built twice (mk/v41tools.mk): against Debian's OpenPMIx 4.2.2 (an
 * OpenPMIx tool attached to pmixrun's v41 listener) and against our library (our tool
 * attached to an OpenPMIx server: the Open MPI 5 wheel's prterun, or a Debian host).
 *
 *   qtool PID NSPACE NPROCS [flat] [noproctable] [named] [jobsize] [events] [iof [nodereg]]
 *         [nogroup]
 *
 * Checks: PMIx_tool_init with PMIX_SERVER_PIDINFO = PID succeeds and the server names
 * the tool (a namespace that is not empty; with "named" the tool names itself
 * "qtool.<pid>", rank 0, with PMIX_TOOL_NSPACE/PMIX_TOOL_RANK and keeps that name); PMIX_QUERY_NAMESPACES holds NSPACE;
 * PMIX_QUERY_PROC_TABLE qualified with PMIX_NSPACE = NSPACE is NPROCS
 * pmix_proc_info_t of NSPACE with ranks 0..NPROCS-1 and a pid each (skipped with
 * "noproctable"); with "jobsize", PMIX_JOB_SIZE qualified with PMIX_NSPACE = NSPACE
 * is NPROCS; with "events", a default event handler registers and deregisters; with
 * "iof", PMIx_IOF_pull of NSPACE's stdout registers, a chunk holding "tick" (the
 * ranks print it: attach.sh with ATTACH_TICKS=1) reaches the handler within 10 s, and
 * PMIx_IOF_deregister of the registration succeeds (not with "nodereg": OpenPMIx
 * 4.2.2's PMIx_IOF_deregister never returns in a tool, under PRRTE's prterun as under
 * pmixrun: it blocks on the library's own lock); with
 * "nogroup", PMIx_Group_destruct of a group the tool never constructed is
 * PMIX_ERR_NOT_FOUND, as OpenPMIx 5's own tool answers it under a 5.x server (which
 * keeps no membership: the 5.x form of the request names the members, and a tool that
 * speaks 4.2's form to it gets the server's unpack error, -19); with
 * "flat", every answer must be flat (one info, of the key
 * asked: what OpenPMIx's own pps reads); PMIx_tool_finalize succeeds. A query answer may come flat (one info
 * per key, as OpenPMIx's libraries pass a server's answer on) or wrapped in
 * PMIX_QUERY_RESULTS arrays (as PRRTE's host code answers): both are read. Prints one
 * ok/FAIL line per check and "...qtool.c: N checks, M failed"; the exit status is the
 * verdict. */
#define _GNU_SOURCE /* memmem */
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "tool.h"

/* The value of `key` among `info` (looking inside PMIX_QUERY_RESULTS arrays). */
static const pmix_value_t *find(const pmix_info_t *info, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++) {
        if (0 == strncmp(info[i].key, key, PMIX_MAX_KEYLEN)) {
            return &info[i].value;
        }
        if (0 == strncmp(info[i].key, PMIX_QUERY_RESULTS, PMIX_MAX_KEYLEN) &&
            PMIX_DATA_ARRAY == info[i].value.type && NULL != info[i].value.data.darray &&
            PMIX_INFO == info[i].value.data.darray->type) {
            const pmix_value_t *v = find((const pmix_info_t *)info[i].value.data.darray->array,
                                         info[i].value.data.darray->size, key);
            if (NULL != v) {
                return v;
            }
        }
    }
    return NULL;
}

/* Run one query of `key` (qualified with PMIX_NSPACE = `ns` when not NULL). */
static pmix_status_t query(const char *key, const char *ns, pmix_info_t **res, size_t *nres)
{
    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    q.keys = (char **)calloc(2, sizeof(char *));
    q.keys[0] = strdup(key);
    if (NULL != ns) {
        PMIX_QUERY_QUALIFIERS_CREATE(&q, 1);
        PMIX_INFO_LOAD(&q.qualifiers[0], PMIX_NSPACE, ns, PMIX_STRING);
    }
    pmix_status_t rc = PMIx_Query_info(&q, 1, res, nres);
    PMIX_QUERY_DESTRUCT(&q);
    return rc;
}

/* With "flat": the answer is one info of `key` itself. */
static bool flat;

static void check_flat(const pmix_info_t *res, size_t nres, const char *key)
{
    if (flat) {
        CHECK(1 == nres && 0 == strncmp(res[0].key, key, PMIX_MAX_KEYLEN),
              "the answer is flat: %zu info(s), the first %s", nres, nres ? res[0].key : "-");
    }
}

/* Query `key` (of `ns` when not NULL), checked (`what`) and, with "flat", its shape: the
 * value of `key` among the answers left in *res (NULL when not there). */
static const pmix_value_t *ask(const char *key, const char *ns, const char *what,
                               pmix_info_t **res, size_t *nres)
{
    CHECK_RC(query(key, ns, res, nres), PMIX_SUCCESS, what);
    check_flat(*res, *nres, key);
    return find(*res, *nres, key);
}

static bool in_list(const char *list, const char *item)
{
    size_t n = strlen(item);
    for (const char *p = list; NULL != p && '\0' != *p;) {
        const char *e = strchr(p, ',');
        size_t len = NULL == e ? strlen(p) : (size_t)(e - p);
        if (len == n && 0 == strncmp(p, item, n)) {
            return true;
        }
        p = NULL == e ? NULL : e + 1;
    }
    return false;
}

static void proc_table(const char *ns, size_t nprocs)
{
    pmix_info_t *res = NULL;
    size_t nres = 0;
    const pmix_value_t *v =
        ask(PMIX_QUERY_PROC_TABLE, ns, "query PMIX_QUERY_PROC_TABLE", &res, &nres);
    bool arr = NULL != v && PMIX_DATA_ARRAY == v->type && NULL != v->data.darray &&
               PMIX_PROC_INFO == v->data.darray->type;
    CHECK(arr, "the proc table is a data array of pmix_proc_info_t");
    if (arr) {
        const pmix_proc_info_t *pi = (const pmix_proc_info_t *)v->data.darray->array;
        size_t n = v->data.darray->size;
        CHECK(n == nprocs, "the proc table has %zu entries (want %zu)", n, nprocs);
        bool seen[64] = {false};
        bool good = true;
        for (size_t i = 0; i < n; i++) {
            good = good && 0 == strncmp(pi[i].proc.nspace, ns, PMIX_MAX_NSLEN) &&
                   pi[i].proc.rank < 64 && pi[i].pid > 0;
            if (pi[i].proc.rank < 64) {
                seen[pi[i].proc.rank] = true;
            }
            printf("  proc %s.%u pid %d host %s exe %s\n", pi[i].proc.nspace, pi[i].proc.rank,
                   (int)pi[i].pid, pi[i].hostname ? pi[i].hostname : "-",
                   pi[i].executable_name ? pi[i].executable_name : "-");
        }
        for (size_t r = 0; r < nprocs && r < 64; r++) {
            good = good && seen[r];
        }
        CHECK(good, "every entry is of %s with a pid, ranks 0..%zu all there", ns, nprocs - 1);
    }
    if (NULL != res) {
        PMIX_INFO_FREE(res, nres);
    }
}

/* With "jobsize": PMIX_JOB_SIZE qualified with PMIX_NSPACE = NSPACE is NPROCS. */
static void job_size(const char *ns, size_t nprocs)
{
    pmix_info_t *res = NULL;
    size_t nres = 0;
    const pmix_value_t *v = ask(PMIX_JOB_SIZE, ns,
                                "query PMIX_JOB_SIZE (qualified by the namespace)", &res, &nres);
    bool u32 = NULL != v && PMIX_UINT32 == v->type;
    CHECK(u32 && v->data.uint32 == nprocs, "the job size is a uint32 %u (want %zu)",
          u32 ? v->data.uint32 : 0, nprocs);
    if (NULL != res) {
        PMIX_INFO_FREE(res, nres);
    }
}

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *source,
                     pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)status;
    (void)source;
    (void)info;
    (void)ninfo;
    (void)results;
    (void)nresults;
    if (NULL != cbfunc) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

/* With "events": a default event handler registers (the server takes the tool's
 * registration) and deregisters. */
static void events(void)
{
    pmix_status_t rc = PMIx_Register_event_handler(NULL, 0, NULL, 0, on_event, NULL, NULL);
    CHECK(rc >= 0, "PMIx_Register_event_handler (default handler): %d", (int)rc);
    if (rc >= 0) {
        CHECK_RC(PMIx_Deregister_event_handler((size_t)rc, NULL, NULL), PMIX_SUCCESS,
                 "PMIx_Deregister_event_handler");
    }
}

/* IOF pull: the registration's status and id, and whether a "tick" arrived. */
static volatile int iof_reg_done = 0, iof_ticked = 0;
static volatile pmix_status_t iof_reg_status = PMIX_ERROR;
static volatile size_t iof_ref = 0;
static void iof_out(size_t h, pmix_iof_channel_t channel, pmix_proc_t *source,
                    pmix_byte_object_t *payload, pmix_info_t info[], size_t ninfo)
{
    (void)h; (void)channel; (void)source; (void)info; (void)ninfo;
    if (NULL != payload && NULL != payload->bytes &&
        NULL != memmem(payload->bytes, payload->size, "tick", 4))
        iof_ticked = 1;
}
static void iof_reg(pmix_status_t st, size_t ref, void *cbdata)
{
    (void)cbdata;
    iof_reg_status = st;
    iof_ref = ref;
    iof_reg_done = 1;
}
static void pull(const char *ns, bool dereg)
{
    pmix_proc_t all;
    PMIX_LOAD_PROCID(&all, ns, PMIX_RANK_WILDCARD);
    pmix_status_t rc =
        PMIx_IOF_pull(&all, 1, NULL, 0, PMIX_FWD_STDOUT_CHANNEL, iof_out, iof_reg, NULL);
    CHECK_RC(rc, PMIX_SUCCESS, "PMIx_IOF_pull of the job's stdout");
    if (PMIX_SUCCESS != rc)
        return;
    for (int i = 0; i < 1000 && !iof_reg_done; i++)
        usleep(10000);
    CHECK(iof_reg_done && PMIX_SUCCESS == iof_reg_status, "the pull registered (%d)",
          iof_reg_status);
    for (int i = 0; i < 1000 && !iof_ticked; i++)
        usleep(10000);
    CHECK(iof_ticked, "a rank's output reached the tool's IOF handler");
    if (dereg)
        CHECK_RC(PMIx_IOF_deregister(iof_ref, NULL, 0, NULL, NULL), PMIX_SUCCESS,
                 "PMIx_IOF_deregister");
}

/* With "nogroup": the destruct of a group never constructed. */
static void nogroup(void)
{
    CHECK_RC(PMIx_Group_destruct("qtool.nogroup", NULL, 0), PMIX_ERR_NOT_FOUND,
             "PMIx_Group_destruct of a group never constructed");
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: qtool PID NSPACE NPROCS [flat] [noproctable] [named] [jobsize] "
                        "[events] [iof [nodereg]] [nogroup]\n");
        return 2;
    }
    pid_t pid = (pid_t)atoi(argv[1]);
    const char *ns = argv[2];
    size_t nprocs = (size_t)atoi(argv[3]);
    bool with_table = true;
    bool named = false;
    bool with_size = false;
    bool with_events = false;
    bool with_iof = false;
    bool dereg = true;
    bool with_nogroup = false;
    for (int a = 4; a < argc; a++) {
        dereg = dereg && 0 != strcmp(argv[a], "nodereg");
        with_nogroup = with_nogroup || 0 == strcmp(argv[a], "nogroup");
        with_iof = with_iof || 0 == strcmp(argv[a], "iof");
        with_events = with_events || 0 == strcmp(argv[a], "events");
        named = named || 0 == strcmp(argv[a], "named");
        with_size = with_size || 0 == strcmp(argv[a], "jobsize");
        with_table = with_table && 0 != strcmp(argv[a], "noproctable");
        flat = flat || 0 == strcmp(argv[a], "flat");
    }

    pmix_proc_t me;
    char myns[PMIX_MAX_NSLEN + 1];
    snprintf(myns, sizeof myns, "qtool.%d", (int)getpid());
    if (!tool_attach(&me, pid, named ? myns : NULL)) {
        CHECK_DONE();
    }
    if (named) {
        CHECK(0 == strncmp(me.nspace, myns, PMIX_MAX_NSLEN) && 0 == me.rank,
              "the tool keeps its own name %s.%u", me.nspace, me.rank);
    } else {
        CHECK('\0' != me.nspace[0], "the tool is named %s.%u", me.nspace, me.rank);
    }

    pmix_info_t *res = NULL;
    size_t nres = 0;
    const pmix_value_t *v =
        ask(PMIX_QUERY_NAMESPACES, NULL, "query PMIX_QUERY_NAMESPACES", &res, &nres);
    bool str = NULL != v && PMIX_STRING == v->type && NULL != v->data.string;
    CHECK(str && in_list(v->data.string, ns), "the namespaces (%s) hold %s",
          str ? v->data.string : "none", ns);
    if (NULL != res) {
        PMIX_INFO_FREE(res, nres);
    }
    if (with_table) {
        proc_table(ns, nprocs);
    }
    if (with_size) {
        job_size(ns, nprocs);
    }
    if (with_events) {
        events();
    }
    if (with_iof) {
        pull(ns, dereg);
    }
    if (with_nogroup) {
        nogroup();
    }
    CHECK_RC(PMIx_tool_finalize(), PMIX_SUCCESS, "PMIx_tool_finalize");
    CHECK_DONE();
}
