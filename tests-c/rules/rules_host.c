/* rules_host: the rules only a host can show, with a small C host on the server API that
 * forks its own clients (no pmixrun: the host is what is under test here).
 *
 *   rules_host fabric     rule "PMIX_SWITCH_PEERS in the page's nested form when the host
 *                         registers fabric data": an array of infos, one PMIX_SWITCH_PEERS
 *                         per device, each a 3-info array (device id, switch, peer ranks)
 *   rules_host qualified  rule "qualified values registered by the host are selected by
 *                         the qualifiers a Get names" (job level and per process)
 *   rules_host resources  rules "register_resources records data every job sees" and
 *                         "deregister_resources retracts job-level data from running jobs
 *                         and their clients"; "GET_REFRESH_CACHE with WILDCARD refreshes
 *                         job information" (a resource added while the job runs)
 *   rules_host late       rule "a Get about a namespace the server does not know yet waits
 *                         for its registration"
 *   rules_host exchange   rules "without PMIX_COLLECT_DATA nothing is exchanged" (the host's
 *                         fence upcall gets no data), "with it the participants' data is"
 *                         (and IMMEDIATE finds it afterwards), and the progress-thread rule
 *                         inside a host upcall (WOULD_BLOCK with a diagnostic)
 *
 * Clients and host synchronize over two pipes: a client writes one byte "up" when it
 * reaches a step, the host answers with one byte "down" per client when its side is done. */
#include <errno.h>
#include <sys/wait.h>

#include <pmix_server.h>

#include "rules.h"

#define NSPACE "rules-host-job"
#define LATE_NS "rules-host-late"
#define NCLIENTS 2

extern char **environ;

static int up_rd = -1, up_wr = -1, down_rd = -1, down_wr = -1;

static void step_up(void)
{
    char c = 'u';
    if (write(up_wr, &c, 1) != 1) {
        perror("write up");
    }
}

static void wait_down(void)
{
    char c;
    while (read(down_rd, &c, 1) < 0 && EINTR == errno) {
    }
}

/* Host side: wait for every client to reach the step; then release them. */
static void all_up(void)
{
    char c;
    for (int i = 0; i < NCLIENTS; i++) {
        while (read(up_rd, &c, 1) < 0 && EINTR == errno) {
        }
    }
}

static void release_all(void)
{
    for (int i = 0; i < NCLIENTS; i++) {
        char c = 'd';
        if (write(down_wr, &c, 1) != 1) {
            perror("write down");
        }
    }
}

static pmix_data_array_t *info_array(size_t n)
{
    pmix_data_array_t *da;
    PMIX_DATA_ARRAY_CREATE(da, n, PMIX_INFO);
    return da;
}

static void load_array(pmix_info_t *dst, const char *key, pmix_data_array_t *da)
{
    PMIX_INFO_LOAD(dst, key, da, PMIX_DATA_ARRAY);
    PMIX_DATA_ARRAY_FREE(da);
}

/* A PMIX_QUALIFIED_VALUE info: key = v, qualified by rh.dev = dev. */
static void load_qualified(pmix_info_t *dst, const char *key, int v, const char *dev)
{
    pmix_data_array_t *da = info_array(2);
    pmix_info_t *it = da->array;
    PMIX_INFO_LOAD(&it[0], key, &v, PMIX_INT);
    PMIX_INFO_LOAD(&it[1], "rh.dev", dev, PMIX_STRING);
    PMIX_INFO_SET_QUALIFIER(&it[1]);
    load_array(dst, PMIX_QUALIFIED_VALUE, da);
}

/* ------------------------------------------------------------------ client side */

static pmix_status_t get_qual(const pmix_proc_t *p, const char *key, const char *dev, int *out)
{
    pmix_info_t q;
    PMIX_INFO_CONSTRUCT(&q);
    PMIX_INFO_LOAD(&q, "rh.dev", dev, PMIX_STRING);
    PMIX_INFO_SET_QUALIFIER(&q);
    pmix_status_t rc = get_int(p, key, &q, 1, out);
    PMIX_INFO_DESTRUCT(&q);
    return rc;
}

static void client_fabric(const pmix_proc_t *peer)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(peer, PMIX_SWITCH_PEERS, NULL, 0, &v);
    CHECK_RC(rc, PMIX_SUCCESS, "Get PMIX_SWITCH_PEERS of a peer");
    bool ok = v && v->type == PMIX_DATA_ARRAY && v->data.darray &&
              v->data.darray->type == PMIX_INFO && 2 == v->data.darray->size;
    CHECK(ok, "PMIX_SWITCH_PEERS: an array of infos, one per device (2)");
    if (ok) {
        pmix_info_t *dev = v->data.darray->array;
        for (size_t d = 0; d < 2; d++) {
            pmix_data_array_t *in = dev[d].value.data.darray;
            bool nested = PMIX_CHECK_KEY(&dev[d], PMIX_SWITCH_PEERS) &&
                          dev[d].value.type == PMIX_DATA_ARRAY && in && in->type == PMIX_INFO &&
                          3 == in->size;
            CHECK(nested, "device %zu: a PMIX_SWITCH_PEERS entry holding a 3-info array", d);
            if (!nested) {
                continue;
            }
            pmix_info_t *t = in->array;
            char want_dev[32];
            snprintf(want_dev, sizeof want_dev, "mlx5_%u_%zu", peer->rank, d);
            CHECK(PMIX_CHECK_KEY(&t[0], PMIX_DEVICE_ID) && t[0].value.type == PMIX_STRING &&
                      0 == strcmp(t[0].value.data.string, want_dev),
                  "device %zu: its device id first (%s)", d, want_dev);
            CHECK(PMIX_CHECK_KEY(&t[1], PMIX_FABRIC_SWITCH) && t[1].value.type == PMIX_STRING &&
                      0 == strcmp(t[1].value.data.string, d ? "switch-b" : "switch-a"),
                  "device %zu: the switch second", d);
            CHECK(t[2].value.type == PMIX_STRING && 0 == strcmp(t[2].value.data.string, "0,1"),
                  "device %zu: the comma-delimited peer ranks third", d);
        }
    }
    if (v) {
        PMIX_VALUE_RELEASE(v);
    }
}

static void client_qualified(const pmix_proc_t *peer)
{
    int v = -1;
    CHECK_RC(get_qual(&job, "rh.bw", "b", &v), PMIX_SUCCESS, "job-level qualified value, dev b");
    CHECK(20 == v, "host-registered qualified job value selected by qualifier (%d)", v);
    v = -1;
    CHECK_RC(get_qual(&job, "rh.bw", "a", &v), PMIX_SUCCESS, "job-level qualified value, dev a");
    CHECK(10 == v, "... and the other one (%d)", v);
    CHECK_RC(get_qual(&job, "rh.bw", "z", &v), PMIX_ERR_NOT_FOUND, "no entry for dev z");
    v = -1;
    CHECK_RC(get_qual(peer, "rh.lat", "a", &v), PMIX_SUCCESS, "a peer's registered qualified value");
    CHECK(100 + (int)peer->rank == v, "per-process qualified value (%d)", v);
    v = -1;
    CHECK_RC(get_qual(&me, "rh.lat", "a", &v), PMIX_SUCCESS, "own registered qualified value");
    CHECK(100 + (int)me.rank == v, "own per-process qualified value (%d)", v);
}

static void client_resources(const pmix_proc_t *peer)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(&job, PMIX_CLUSTER_ID, NULL, 0, &v);
    CHECK(PMIX_SUCCESS == rc && v && v->type == PMIX_STRING &&
              0 == strcmp(v->data.string, "rules-cluster"),
          "register_resources: the job sees PMIX_CLUSTER_ID (%s)", PMIx_Error_string(rc));
    if (v) {
        PMIX_VALUE_RELEASE(v);
    }
    v = NULL;
    rc = PMIx_Get(NULL, PMIX_CLUSTER_ID, NULL, 0, &v);
    CHECK(PMIX_SUCCESS == rc && v && v->type == PMIX_STRING &&
              0 == strcmp(v->data.string, "rules-cluster"),
          "... read of the process itself too (%s)", PMIx_Error_string(rc));
    if (v) {
        PMIX_VALUE_RELEASE(v);
    }
    int x = -1;
    CHECK_RC(get_int(&job, "rh.res", NULL, 0, &x), PMIX_SUCCESS, "a custom resource key");
    CHECK_RC(get_int(&job, "rh.mine", NULL, 0, &x), PMIX_SUCCESS, "the job's own value of a key");
    CHECK(1 == x, "the namespace's own value wins over the resource's (%d)", x);
    /* Node-level data of one node: PMIX_NODE_INFO with the node's PMIX_HOSTNAME. */
    pmix_info_t on_n0[2], on_n1[2];
    flag_info(&on_n0[0], PMIX_NODE_INFO);
    flag_info(&on_n1[0], PMIX_NODE_INFO);
    PMIX_INFO_CONSTRUCT(&on_n0[1]);
    PMIX_INFO_CONSTRUCT(&on_n1[1]);
    PMIX_INFO_LOAD(&on_n0[1], PMIX_HOSTNAME, "rh-n0", PMIX_STRING);
    PMIX_INFO_LOAD(&on_n1[1], PMIX_HOSTNAME, "rh-n1", PMIX_STRING);
    x = -1;
    CHECK_RC(get_int(&job, "rh.nodekey", on_n0, 2, &x), PMIX_SUCCESS, "a node resource (rh-n0)");
    CHECK(10 == x, "... with node rh-n0's value (%d)", x);
    CHECK_RC(get_int(&job, "rh.nodekey", on_n1, 2, &x), PMIX_SUCCESS, "a node resource (rh-n1)");
    CHECK(11 == x, "... with node rh-n1's value (%d)", x);
    step_up();
    wait_down(); /* the host deregistered PMIX_CLUSTER_ID and registered rh.late */
    double t0 = now();
    do {
        v = NULL;
        rc = PMIx_Get(&job, PMIX_CLUSTER_ID, NULL, 0, &v);
        if (v) {
            PMIX_VALUE_RELEASE(v);
        }
        if (PMIX_ERR_NOT_FOUND != rc) {
            sleep_ms(20);
        }
    } while (PMIX_ERR_NOT_FOUND != rc && now() - t0 < 5.0);
    CHECK_RC(rc, PMIX_ERR_NOT_FOUND,
             "deregister_resources retracted the job-level key from the running client");
    CHECK(now() - t0 < 2.0, "... promptly (%.2f s)", now() - t0);
    v = NULL;
    CHECK_RC(PMIx_Get(peer, PMIX_CLUSTER_ID, NULL, 0, &v), PMIX_ERR_NOT_FOUND,
             "... for a peer's view too");
    v = NULL;
    CHECK_RC(PMIx_Get(NULL, PMIX_CLUSTER_ID, NULL, 0, &v), PMIX_ERR_NOT_FOUND,
             "... and for the process's own view (a Get with a NULL proc)");
    CHECK_RC(get_int(&job, "rh.res", NULL, 0, &x), PMIX_SUCCESS, "other resources stay");
    /* The node-narrowed retraction was sent before the job-level one just seen. */
    CHECK_RC(get_int(&job, "rh.nodekey", on_n0, 2, &x), PMIX_ERR_NOT_FOUND,
             "deregister_resources narrowed to a node retracted that node's value from the "
             "running client");
    x = -1;
    CHECK_RC(get_int(&job, "rh.nodekey", on_n1, 2, &x), PMIX_SUCCESS,
             "... and left the other node's value");
    CHECK(11 == x, "... unchanged (%d)", x);
    for (int i = 0; i < 2; i++) {
        PMIX_INFO_DESTRUCT(&on_n0[i]);
        PMIX_INFO_DESTRUCT(&on_n1[i]);
    }
    pmix_info_t refresh;
    flag_info(&refresh, PMIX_GET_REFRESH_CACHE);
    CHECK_RC(get_int(&job, "rh.late", NULL, 0, &x), PMIX_ERR_NOT_FOUND,
             "a resource added while the job runs is not in the client's job data yet");
    x = -1;
    CHECK_RC(get_int(&job, "rh.late", &refresh, 1, &x), PMIX_SUCCESS,
             "GET_REFRESH_CACHE with WILDCARD refreshes job information");
    CHECK(9 == x, "rh.late = %d", x);
    x = -1;
    CHECK_RC(get_int(&job, "rh.late", NULL, 0, &x), PMIX_SUCCESS,
             "... and the refreshed job data stays (plain Get)");
    PMIX_INFO_DESTRUCT(&refresh);
}

static void client_late(void)
{
    pmix_proc_t late_job, late0;
    PMIX_LOAD_PROCID(&late_job, LATE_NS, PMIX_RANK_WILDCARD);
    PMIX_LOAD_PROCID(&late0, LATE_NS, 0);
    step_up(); /* the host registers the namespace half a second after everyone is here */
    double t0 = now();
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(&late_job, PMIX_JOB_SIZE, NULL, 0, &v);
    double dt = now() - t0;
    CHECK(PMIX_SUCCESS == rc && v && v->type == PMIX_UINT32 && 7 == v->data.uint32,
          "a Get about a namespace not registered yet waits for it (%s)", PMIx_Error_string(rc));
    CHECK(dt >= 0.3, "... until it is registered (%.2f s)", dt);
    if (v) {
        PMIX_VALUE_RELEASE(v);
    }
    int x = -1;
    CHECK_RC(get_int(&late0, "rh.k", NULL, 0, &x), PMIX_SUCCESS,
             "a rank's registered key in the late namespace");
    CHECK(3 == x, "rh.k = %d", x);
}

static void client_exchange(const pmix_proc_t *peer)
{
    char big[2001];
    memset(big, 'a' + (int)me.rank, sizeof big - 1);
    big[sizeof big - 1] = '\0';
    pmix_value_t val;
    PMIX_VALUE_CONSTRUCT(&val);
    val.type = PMIX_STRING;
    val.data.string = big;
    CHECK_RC(PMIx_Put(PMIX_GLOBAL, "rh.big", &val), PMIX_SUCCESS, "Put 2000 bytes");
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit");
    barrier("non-collecting Fence through the host");
    collect("collecting Fence through the host");
    pmix_info_t imm;
    flag_info(&imm, PMIX_IMMEDIATE);
    pmix_value_t *v = NULL;
    CHECK_RC(PMIx_Get(peer, "rh.big", &imm, 1, &v), PMIX_SUCCESS,
             "after the collecting fence IMMEDIATE finds the peer's data");
    CHECK(v && v->type == PMIX_STRING && strlen(v->data.string) == 2000, "2000 bytes back");
    if (v) {
        PMIX_VALUE_RELEASE(v);
    }
    PMIX_INFO_DESTRUCT(&imm);
}

static int client(const char *scenario)
{
    RULES_INIT();
    pmix_proc_t peer;
    proc_of(&peer, (me.rank + 1) % NCLIENTS);
    if (0 == strcmp(scenario, "fabric")) {
        client_fabric(&peer);
    } else if (0 == strcmp(scenario, "qualified")) {
        client_qualified(&peer);
    } else if (0 == strcmp(scenario, "resources")) {
        client_resources(&peer);
    } else if (0 == strcmp(scenario, "late")) {
        client_late();
    } else if (0 == strcmp(scenario, "exchange")) {
        client_exchange(&peer);
    }
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "client PMIx_Finalize");
    CHECK_DONE();
}

/* ------------------------------------------------------------------ host side */

static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static size_t fence_ndata[8];
static int nfences;
static pmix_status_t upcall_get = 1, upcall_fence = 1, upcall_put = 1;

static void free_blob(void *cbdata)
{
    free(cbdata);
}

static pmix_status_t on_fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                              size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
                              void *cbdata)
{
    (void)procs;
    (void)nprocs;
    (void)info;
    (void)ninfo;
    pthread_mutex_lock(&mtx);
    if (nfences < 8) {
        fence_ndata[nfences] = ndata;
    }
    nfences++;
    pthread_mutex_unlock(&mtx);
    /* The progress-thread rule inside a host upcall. */
    pmix_value_t *v = NULL;
    upcall_get = PMIx_Get(NULL, "rh.any", NULL, 0, &v);
    upcall_fence = PMIx_Fence(NULL, 0, NULL, 0);
    upcall_put = put_int(PMIX_GLOBAL, "rh.upcall", 1);
    /* Every other node contributed nothing: the result is our own blob, handed back. */
    cbfunc(PMIX_SUCCESS, data, ndata, cbdata, free_blob, data);
    return PMIX_SUCCESS;
}

static pmix_status_t on_finalized(const pmix_proc_t *p, void *obj, pmix_op_cbfunc_t cb, void *cbd)
{
    (void)p;
    (void)obj;
    if (cb) {
        cb(PMIX_SUCCESS, cbd);
    }
    return PMIX_SUCCESS;
}

/* The namespace's infos for a scenario (count in *n; free with PMIX_INFO_FREE). */
static pmix_info_t *job_infos(const char *scenario, size_t *n)
{
    pmix_info_t *info = PMIx_Info_create(16);
    size_t k = 0;
    bool exchange = 0 == strcmp(scenario, "exchange");
    uint32_t size = exchange ? 4 : NCLIENTS;
    PMIX_INFO_LOAD(&info[k++], PMIX_JOB_SIZE, &size, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[k++], PMIX_LOCAL_PEERS, "0,1", PMIX_STRING);
    int mine = 1;
    PMIX_INFO_LOAD(&info[k++], "rh.mine", &mine, PMIX_INT);
    if (0 == strcmp(scenario, "qualified")) {
        load_qualified(&info[k++], "rh.bw", 10, "a");
        load_qualified(&info[k++], "rh.bw", 20, "b");
    }
    for (pmix_rank_t r = 0; r < NCLIENTS; r++) {
        bool fabric = 0 == strcmp(scenario, "fabric");
        bool qual = 0 == strcmp(scenario, "qualified");
        pmix_data_array_t *pd = info_array(1 + (fabric ? 1 : 0) + (qual ? 1 : 0));
        pmix_info_t *it = pd->array;
        size_t j = 0;
        PMIX_INFO_LOAD(&it[j++], PMIX_RANK, &r, PMIX_PROC_RANK);
        if (fabric) {
            pmix_data_array_t *devs = info_array(2);
            pmix_info_t *dv = devs->array;
            for (int d = 0; d < 2; d++) {
                pmix_data_array_t *trip = info_array(3);
                pmix_info_t *t = trip->array;
                char id[32];
                snprintf(id, sizeof id, "mlx5_%u_%d", r, d);
                PMIX_INFO_LOAD(&t[0], PMIX_DEVICE_ID, id, PMIX_STRING);
                PMIX_INFO_LOAD(&t[1], PMIX_FABRIC_SWITCH, d ? "switch-b" : "switch-a", PMIX_STRING);
                PMIX_INFO_LOAD(&t[2], PMIX_LOCAL_PEERS, "0,1", PMIX_STRING);
                load_array(&dv[d], PMIX_SWITCH_PEERS, trip);
            }
            load_array(&it[j++], PMIX_SWITCH_PEERS, devs);
        }
        if (qual) {
            load_qualified(&it[j++], "rh.lat", 100 + (int)r, "a");
        }
        load_array(&info[k++], PMIX_PROC_DATA, pd);
    }
    *n = k;
    return info;
}

int main(int argc, char **argv)
{
    if (argc > 2 && 0 == strcmp(argv[2], "client")) {
        up_wr = atoi(argv[3]);
        down_rd = atoi(argv[4]);
        return client(argv[1]);
    }
    const char *scenario = argc > 1 ? argv[1] : "fabric";
    bool exchange = 0 == strcmp(scenario, "exchange");
    int fd = -1;
    if (exchange) {
        setenv("PMIX_DEBUG", "warn", 1);
        fd = capture_stderr();
    }
    int up[2], down[2];
    if (pipe(up) || pipe(down)) {
        perror("pipe");
        return 1;
    }
    up_rd = up[0];
    up_wr = up[1];
    down_rd = down[0];
    down_wr = down[1];

    pmix_server_module_t module;
    memset(&module, 0, sizeof module);
    module.client_finalized = on_finalized;
    module.fence_nb = on_fence;
    CHECK_RC(PMIx_server_init(&module, NULL, 0), PMIX_SUCCESS, "PMIx_server_init");

    if (0 == strcmp(scenario, "resources")) {
        pmix_info_t res[3];
        int rv = 5, theirs = 2;
        PMIX_INFO_CONSTRUCT(&res[0]);
        PMIX_INFO_CONSTRUCT(&res[1]);
        PMIX_INFO_CONSTRUCT(&res[2]);
        PMIX_INFO_LOAD(&res[0], PMIX_CLUSTER_ID, "rules-cluster", PMIX_STRING);
        PMIX_INFO_LOAD(&res[1], "rh.res", &rv, PMIX_INT);
        PMIX_INFO_LOAD(&res[2], "rh.mine", &theirs, PMIX_INT);
        CHECK_RC(PMIx_server_register_resources(res, 3, NULL, NULL), PMIX_OPERATION_SUCCEEDED,
                 "register_resources (blocking form)");
        for (int i = 0; i < 3; i++) {
            PMIX_INFO_DESTRUCT(&res[i]);
        }
        /* Two nodes, each with a node-level "rh.nodekey" (10 and 11). */
        pmix_info_t nodes[2];
        for (uint32_t i = 0; i < 2; i++) {
            pmix_data_array_t *nd = info_array(3);
            pmix_info_t *it = nd->array;
            int val = 10 + (int)i;
            char host[16];
            snprintf(host, sizeof host, "rh-n%u", i);
            PMIX_INFO_LOAD(&it[0], PMIX_NODEID, &i, PMIX_UINT32);
            PMIX_INFO_LOAD(&it[1], PMIX_HOSTNAME, host, PMIX_STRING);
            PMIX_INFO_LOAD(&it[2], "rh.nodekey", &val, PMIX_INT);
            PMIX_INFO_CONSTRUCT(&nodes[i]);
            load_array(&nodes[i], PMIX_NODE_INFO_ARRAY, nd);
        }
        CHECK_RC(PMIx_server_register_resources(nodes, 2, NULL, NULL), PMIX_OPERATION_SUCCEEDED,
                 "register_resources of two nodes' data");
        for (int i = 0; i < 2; i++) {
            PMIX_INFO_DESTRUCT(&nodes[i]);
        }
    }

    size_t ninfo = 0;
    pmix_info_t *info = job_infos(scenario, &ninfo);
    pmix_nspace_t ns;
    PMIX_LOAD_NSPACE(ns, NSPACE);
    CHECK_RC(PMIx_server_register_nspace(ns, NCLIENTS, info, ninfo, NULL, NULL), PMIX_SUCCESS,
             "register_nspace");
    PMIX_INFO_FREE(info, ninfo);

    pid_t pids[NCLIENTS];
    for (int i = 0; i < NCLIENTS; i++) {
        pmix_proc_t p;
        char **env = NULL;
        PMIX_LOAD_PROCID(&p, NSPACE, (pmix_rank_t)i);
        CHECK_RC(PMIx_server_register_client(&p, getuid(), getgid(), NULL, NULL, NULL),
                 PMIX_SUCCESS, "register_client");
        for (char **e = environ; *e; e++) {
            PMIx_Argv_append_nosize(&env, *e);
        }
        CHECK_RC(PMIx_server_setup_fork(&p, &env), PMIX_SUCCESS, "setup_fork");
        pids[i] = fork();
        if (0 == pids[i]) {
            char a3[16], a4[16];
            snprintf(a3, sizeof a3, "%d", up[1]);
            snprintf(a4, sizeof a4, "%d", down[0]);
            char *args[] = {argv[0], (char *)scenario, "client", a3, a4, NULL};
            execve(argv[0], args, env);
            _exit(127);
        }
        PMIx_Argv_free(env);
    }

    if (0 == strcmp(scenario, "resources")) {
        all_up();
        pmix_info_t gone, late;
        /* Retract rh.nodekey on node rh-n0 only (first: the client waits for the
         * job-level retraction below, which travels after it on the same connection). */
        pmix_data_array_t *nd = info_array(2);
        pmix_info_t *it = nd->array;
        PMIX_INFO_LOAD(&it[0], PMIX_HOSTNAME, "rh-n0", PMIX_STRING);
        PMIX_INFO_LOAD(&it[1], "rh.nodekey", NULL, PMIX_UNDEF);
        PMIX_INFO_CONSTRUCT(&gone);
        load_array(&gone, PMIX_NODE_INFO_ARRAY, nd);
        CHECK_RC(PMIx_server_deregister_resources(&gone, 1, NULL, NULL), PMIX_OPERATION_SUCCEEDED,
                 "deregister_resources narrowed to one node");
        PMIX_INFO_DESTRUCT(&gone);
        PMIX_INFO_CONSTRUCT(&gone);
        PMIX_INFO_LOAD(&gone, PMIX_CLUSTER_ID, "", PMIX_STRING);
        CHECK_RC(PMIx_server_deregister_resources(&gone, 1, NULL, NULL), PMIX_OPERATION_SUCCEEDED,
                 "deregister_resources");
        PMIX_INFO_DESTRUCT(&gone);
        struct waiter w;
        waiter_init(&w);
        int lv = 9;
        PMIX_INFO_CONSTRUCT(&late);
        PMIX_INFO_LOAD(&late, "rh.late", &lv, PMIX_INT);
        CHECK_RC(PMIx_server_register_resources(&late, 1, op_done, &w), PMIX_SUCCESS,
                 "register_resources (callback form) while the job runs");
        CHECK(waiter_wait(&w, 10) && PMIX_SUCCESS == w.status, "its callback reports success");
        PMIX_INFO_DESTRUCT(&late);
        release_all();
    } else if (0 == strcmp(scenario, "late")) {
        all_up();
        sleep_ms(500);
        size_t n = 2;
        pmix_info_t *li = PMIx_Info_create(n);
        uint32_t seven = 7;
        PMIX_INFO_LOAD(&li[0], PMIX_JOB_SIZE, &seven, PMIX_UINT32);
        pmix_data_array_t *pd = info_array(2);
        pmix_info_t *it = pd->array;
        pmix_rank_t r0 = 0;
        int three = 3;
        PMIX_INFO_LOAD(&it[0], PMIX_RANK, &r0, PMIX_PROC_RANK);
        PMIX_INFO_LOAD(&it[1], "rh.k", &three, PMIX_INT);
        load_array(&li[1], PMIX_PROC_DATA, pd);
        pmix_nspace_t lns;
        PMIX_LOAD_NSPACE(lns, LATE_NS);
        CHECK_RC(PMIx_server_register_nspace(lns, 0, li, n, NULL, NULL), PMIX_SUCCESS,
                 "register the late namespace");
        PMIX_INFO_FREE(li, n);
    }

    int failed = 0;
    for (int i = 0; i < NCLIENTS; i++) {
        int st = 0;
        waitpid(pids[i], &st, 0);
        if (!WIFEXITED(st) || 0 != WEXITSTATUS(st)) {
            failed++;
        }
    }
    CHECK(0 == failed, "%d of %d clients failed", failed, NCLIENTS);

    if (exchange) {
        pthread_mutex_lock(&mtx);
        CHECK(2 == nfences, "both fences reached the host (%d)", nfences);
        CHECK(fence_ndata[0] < 64, "without PMIX_COLLECT_DATA the host gets no data (%zu bytes)",
              fence_ndata[0]);
        CHECK(fence_ndata[1] > 4000, "with it, every local participant's data (%zu bytes)",
              fence_ndata[1]);
        CHECK_RC(upcall_get, PMIX_ERR_WOULD_BLOCK, "PMIx_Get inside a host upcall");
        CHECK_RC(upcall_fence, PMIX_ERR_WOULD_BLOCK, "PMIx_Fence inside a host upcall");
        CHECK_RC(upcall_put, PMIX_ERR_WOULD_BLOCK, "PMIx_Put inside a host upcall");
        pthread_mutex_unlock(&mtx);
        char *text = captured(fd);
        CHECK(count_lines(text, "PMIx_Fence:", "WOULD_BLOCK") == 1,
              "one diagnostic naming PMIx_Fence for its two refusals (once per call name)");
        free(text);
    }
    PMIx_server_deregister_nspace(ns, NULL, NULL);
    CHECK_RC(PMIx_server_finalize(), PMIX_SUCCESS, "PMIx_server_finalize");
    CHECK_DONE();
}
