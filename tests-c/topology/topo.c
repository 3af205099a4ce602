/* topo: topology through hwloc under pmixrun (-n N, and --nodes K).
 *
 * Every rank checks: PMIx_Load_topology gives a usable hwloc topology (as many PUs as the
 * machine has: hwloc's count of this machine, loaded independently), PMIx_Get_cpuset
 * (process and thread) equals sched_getaffinity, its cpuset string round-trips through
 * PMIx_Parse_cpuset_string, every local peer's PMIX_LOCALITY_STRING and PMIX_CPUSET are
 * readable, the relative locality of two ranks of this node is more than "same node"
 * (pmixrun binds no rank: they share every level), PMIx_Compute_distances and its _nb
 * form succeed and agree; bad arguments get clear statuses. */
#define _GNU_SOURCE
#include <hwloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "check.h"

static pmix_proc_t me;

static bool same_as_affinity(hwloc_const_bitmap_t b)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) != 0) {
        return false;
    }
    for (int i = 0; i < CPU_SETSIZE; i++) {
        if ((CPU_ISSET(i, &set) != 0) != (hwloc_bitmap_isset(b, (unsigned) i) != 0)) {
            return false;
        }
    }
    return true;
}

static char *get_string(pmix_rank_t rank, const char *key)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    char *out = NULL;
    PMIX_LOAD_PROCID(&p, me.nspace, rank);
    if (PMIx_Get(&p, key, NULL, 0, &v) == PMIX_SUCCESS && v->type == PMIX_STRING) {
        out = strdup(v->data.string);
    }
    if (v != NULL) {
        PMIX_VALUE_RELEASE(v);
    }
    return out;
}

static void check_topology(pmix_topology_t *topo)
{
    hwloc_topology_t own;
    CHECK_RC(PMIx_Load_topology(topo), PMIX_SUCCESS, "PMIx_Load_topology");
    CHECK(topo->topology != NULL && topo->source != NULL &&
              strncmp(topo->source, "hwloc", 5) == 0,
          "topology from %s", topo->source ? topo->source : "(null)");
    hwloc_topology_init(&own);
    hwloc_topology_load(own);
    int npu = hwloc_get_nbobjs_by_type(topo->topology, HWLOC_OBJ_PU);
    int want = hwloc_get_nbobjs_by_type(own, HWLOC_OBJ_PU);
    CHECK(npu > 0 && npu == want, "%d PUs (this machine: %d, nproc %ld)", npu, want,
          sysconf(_SC_NPROCESSORS_ONLN));
    hwloc_topology_destroy(own);
    char *printed = NULL;
    CHECK_RC(PMIx_Data_print(&printed, NULL, topo, PMIX_TOPO), PMIX_SUCCESS, "print topology");
    CHECK(printed != NULL && strstr(printed, "Type: Machine") != NULL &&
              strstr(printed, "Type: PU") != NULL,
          "printed topology names the machine and its PUs");
    free(printed);
    pmix_topology_t again = PMIX_TOPOLOGY_STATIC_INIT;
    CHECK_RC(PMIx_Load_topology(&again), PMIX_SUCCESS, "second load");
    CHECK(again.topology == topo->topology, "one shared topology");
    PMIx_Topology_destruct(&again);
    pmix_topology_t other = {.source = "cuda", .topology = NULL};
    CHECK(PMIx_Load_topology(&other) != PMIX_SUCCESS && other.topology == NULL,
          "another source is refused");
    CHECK_RC(PMIx_Load_topology(NULL), PMIX_ERR_BAD_PARAM, "NULL topology");
}

static void check_cpuset(pmix_cpuset_t *cs)
{
    pmix_cpuset_t th = PMIX_CPUSET_STATIC_INIT, parsed = PMIX_CPUSET_STATIC_INIT;
    char *str = NULL;
    CHECK_RC(PMIx_Get_cpuset(cs, PMIX_CPUBIND_PROCESS), PMIX_SUCCESS, "Get_cpuset process");
    CHECK(cs->bitmap != NULL && same_as_affinity(cs->bitmap), "process cpuset = affinity");
    CHECK_RC(PMIx_Get_cpuset(&th, PMIX_CPUBIND_THREAD), PMIX_SUCCESS, "Get_cpuset thread");
    CHECK(th.bitmap != NULL && same_as_affinity(th.bitmap), "thread cpuset = affinity");
    CHECK_RC(PMIx_Get_cpuset(&th, 7), PMIX_ERR_BAD_PARAM, "unknown bind envelope");
    CHECK_RC(PMIx_Get_cpuset(NULL, PMIX_CPUBIND_PROCESS), PMIX_ERR_BAD_PARAM, "NULL cpuset");
    CHECK_RC(PMIx_server_generate_cpuset_string(cs, &str), PMIX_SUCCESS, "cpuset string");
    CHECK(str != NULL && strncmp(str, "hwloc:", 6) == 0, "cpuset string %s", str ? str : "-");
    CHECK_RC(PMIx_Parse_cpuset_string(str, &parsed), PMIX_SUCCESS, "Parse_cpuset_string");
    char *printed = NULL;
    CHECK_RC(PMIx_Data_print(&printed, NULL, cs, PMIX_PROC_CPUSET), PMIX_SUCCESS, "print cpuset");
    CHECK(printed != NULL && str != NULL && strstr(printed, str + 6) != NULL,
          "printed cpuset %s", printed ? printed : "-");
    free(printed);
    CHECK(parsed.bitmap != NULL && hwloc_bitmap_isequal(parsed.bitmap, cs->bitmap),
          "parsed back equal");
    pmix_cpuset_t bad = PMIX_CPUSET_STATIC_INIT;
    CHECK_RC(PMIx_Parse_cpuset_string("hwloc:zz", &bad), PMIX_ERR_BAD_PARAM, "bad list");
    CHECK_RC(PMIx_Parse_cpuset_string("0-1", &bad), PMIX_ERR_BAD_PARAM, "no source");
    CHECK_RC(PMIx_Parse_cpuset_string(NULL, &bad), PMIX_ERR_BAD_PARAM, "NULL string");
    free(str);
    hwloc_bitmap_free(th.bitmap);
    hwloc_bitmap_free(parsed.bitmap);
    th.bitmap = parsed.bitmap = NULL;
    PMIx_Cpuset_destruct(&th);
    PMIx_Cpuset_destruct(&parsed);
}

/* Every local peer's locality string and cpuset; two of them share more than the node. */
static void check_locality(pmix_cpuset_t *cs)
{
    char *peers = get_string(PMIX_RANK_WILDCARD, PMIX_LOCAL_PEERS);
    char *mine = get_string(me.rank, PMIX_LOCALITY_STRING);
    char *gen = NULL, *xml = get_string(PMIX_RANK_WILDCARD, "pmix.hwlocxml2");
    CHECK(xml != NULL && strncmp(xml, "<?xml", 5) == 0, "the node's PMIX_HWLOC_XML_V2");
    free(xml);
    CHECK(peers != NULL && mine != NULL, "local peers %s, my locality %s",
          peers ? peers : "-", mine ? mine : "-");
    CHECK_RC(PMIx_server_generate_locality_string(cs, &gen), PMIX_SUCCESS, "generate locality");
    CHECK(gen != NULL && mine != NULL && strcmp(gen, mine) == 0, "registered = generated (%s)",
          gen ? gen : "-");
    int n = 0, shared = 0;
    for (char *tok = peers ? strtok(peers, ",") : NULL; tok; tok = strtok(NULL, ",")) {
        pmix_rank_t r = (pmix_rank_t) strtoul(tok, NULL, 10);
        char *loc = get_string(r, PMIX_LOCALITY_STRING);
        char *cpus = get_string(r, PMIX_CPUSET);
        pmix_locality_t l = 0;
        n++;
        if (loc != NULL && cpus != NULL && strncmp(cpus, "hwloc:", 6) == 0 && mine != NULL &&
            PMIx_Get_relative_locality(mine, loc, &l) == PMIX_SUCCESS &&
            (l & PMIX_LOCALITY_SHARE_NODE) && (l & ~PMIX_LOCALITY_SHARE_NODE)) {
            shared++;
        } else {
            printf("peer %u: locality %s cpuset %s relative %#x\n", r, loc ? loc : "-",
                   cpus ? cpus : "-", l);
        }
        free(loc);
        free(cpus);
    }
    CHECK(n > 0 && shared == n, "%d of %d local peers readable and sharing more than the node",
          shared, n);
    pmix_locality_t l;
    CHECK_RC(PMIx_Get_relative_locality(mine, NULL, &l), PMIX_ERR_BAD_PARAM, "NULL locality");
    CHECK_RC(PMIx_Get_relative_locality("gpu:1", "gpu:1", &l), PMIX_ERR_NOT_SUPPORTED,
             "a foreign locality string");
    free(peers);
    free(mine);
    free(gen);
}

static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cnd = PTHREAD_COND_INITIALIZER;
static bool nb_done;
static pmix_status_t nb_status;
static size_t nb_n;

static void distcb(pmix_status_t st, pmix_device_distance_t *d, size_t n, void *cbdata,
                   pmix_release_cbfunc_t rel, void *relcb)
{
    (void) d;
    (void) cbdata;
    pthread_mutex_lock(&mtx);
    nb_status = st;
    nb_n = n;
    nb_done = true;
    pthread_cond_signal(&cnd);
    pthread_mutex_unlock(&mtx);
    if (rel != NULL) {
        rel(relcb);
    }
}

static void check_distances(pmix_topology_t *topo, pmix_cpuset_t *cs)
{
    pmix_device_distance_t *d = NULL;
    size_t n = 99;
    CHECK_RC(PMIx_Compute_distances(topo, cs, NULL, 0, &d, &n), PMIX_SUCCESS, "distances");
    CHECK((n == 0) == (d == NULL), "%zu device distances", n);
    for (size_t i = 0; i < n; i++) {
        printf("  %s %s type %#llx dist %u-%u\n", d[i].uuid, d[i].osname,
               (unsigned long long) d[i].type, d[i].mindist, d[i].maxdist);
        CHECK(d[i].osname != NULL && d[i].mindist <= d[i].maxdist, "device %zu", i);
    }
    CHECK_RC(PMIx_Compute_distances_nb(topo, cs, NULL, 0, distcb, NULL), PMIX_SUCCESS, "_nb");
    pthread_mutex_lock(&mtx);
    while (!nb_done) {
        pthread_cond_wait(&cnd, &mtx);
    }
    pthread_mutex_unlock(&mtx);
    CHECK(nb_status == PMIX_SUCCESS && nb_n == n, "_nb: %d, %zu distances", nb_status, nb_n);
    PMIx_Device_distance_free(d, n);
    CHECK_RC(PMIx_Compute_distances(topo, NULL, NULL, 0, &d, &n), PMIX_ERR_BAD_PARAM,
             "NULL cpuset");
    CHECK_RC(PMIx_Compute_distances(topo, cs, NULL, 0, NULL, &n), PMIX_ERR_BAD_PARAM,
             "NULL result");
}

int main(void)
{
    pmix_topology_t topo = PMIX_TOPOLOGY_STATIC_INIT;
    pmix_cpuset_t cs = PMIX_CPUSET_STATIC_INIT;
    CHECK_RC(PMIx_Load_topology(&topo), PMIX_ERR_INIT, "Load_topology before init");
    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) {
        printf("FAIL PMIx_Init\n");
        return 1;
    }
    check_topology(&topo);
    check_cpuset(&cs);
    check_locality(&cs);
    check_distances(&topo, &cs);
    hwloc_bitmap_free(cs.bitmap);
    cs.bitmap = NULL;
    PMIx_Cpuset_destruct(&cs);
    PMIx_Topology_destruct(&topo);
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "finalize");
    CHECK_DONE();
}
