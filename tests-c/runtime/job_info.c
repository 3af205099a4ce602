/* job_info: every reserved key pmixrun registers, read back for the caller itself, for
 * a peer and for the job (rank WILDCARD), each with the PMIx_Get page's type and the
 * value pmixrun must have given it.
 * Run: pmixrun -n N job_info N   (one application, launched from the current directory) */
#define _GNU_SOURCE
#include <pmix.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt.h"

static pmix_proc_t me, job;

static const char *who(const pmix_proc_t *p)
{
    static char buf[2][32];
    static int i;
    i ^= 1;
    if (PMIX_RANK_WILDCARD == p->rank) {
        snprintf(buf[i], sizeof buf[i], "job");
    } else if (p->rank == me.rank) {
        snprintf(buf[i], sizeof buf[i], "self");
    } else {
        snprintf(buf[i], sizeof buf[i], "peer %u", p->rank);
    }
    return buf[i];
}

/* Get `key` for `p` with optional directives; checks status and type. The caller
 * releases the returned value (NULL on failure). */
static pmix_value_t *getv_info(const pmix_proc_t *p, const char *key, pmix_info_t *info,
                               size_t ninfo, pmix_data_type_t type)
{
    pmix_value_t *val = NULL;
    pmix_status_t rc = PMIx_Get(p, key, info, ninfo, &val);
    CHECK(PMIX_SUCCESS == rc && NULL != val, "%s %s: Get returns %s", who(p), key,
          PMIx_Error_string(rc));
    if (PMIX_SUCCESS != rc || NULL == val) {
        return NULL;
    }
    CHECK(val->type == type, "%s %s: type %s (want %s)", who(p), key,
          PMIx_Data_type_string(val->type), PMIx_Data_type_string(type));
    if (val->type != type) {
        PMIX_VALUE_RELEASE(val);
        return NULL;
    }
    return val;
}

static pmix_value_t *getv(const pmix_proc_t *p, const char *key, pmix_data_type_t type)
{
    return getv_info(p, key, NULL, 0, type);
}

static void want_u32(const pmix_proc_t *p, const char *key, uint32_t want)
{
    pmix_value_t *v = getv(p, key, PMIX_UINT32);
    if (v) {
        CHECK(v->data.uint32 == want, "%s %s = %u (want %u)", who(p), key, v->data.uint32, want);
        PMIX_VALUE_RELEASE(v);
    }
}

static void want_u16(const pmix_proc_t *p, const char *key, uint16_t want)
{
    pmix_value_t *v = getv(p, key, PMIX_UINT16);
    if (v) {
        CHECK(v->data.uint16 == want, "%s %s = %u (want %u)", who(p), key, v->data.uint16, want);
        PMIX_VALUE_RELEASE(v);
    }
}

static void want_rank(const pmix_proc_t *p, const char *key, pmix_rank_t want)
{
    pmix_value_t *v = getv(p, key, PMIX_PROC_RANK);
    if (v) {
        CHECK(v->data.rank == want, "%s %s = %u (want %u)", who(p), key, v->data.rank, want);
        PMIX_VALUE_RELEASE(v);
    }
}

static void want_bool(const pmix_proc_t *p, const char *key, bool want)
{
    pmix_value_t *v = getv(p, key, PMIX_BOOL);
    if (v) {
        CHECK(v->data.flag == want, "%s %s = %d (want %d)", who(p), key, v->data.flag, want);
        PMIX_VALUE_RELEASE(v);
    }
}

static void want_str(const pmix_proc_t *p, const char *key, const char *want)
{
    pmix_value_t *v = getv(p, key, PMIX_STRING);
    if (v) {
        CHECK(NULL != v->data.string && 0 == strcmp(v->data.string, want), "%s %s = '%s' (want '%s')",
              who(p), key, v->data.string ? v->data.string : "(null)", want);
        PMIX_VALUE_RELEASE(v);
    }
}

/* A string value, copied (free it); NULL on failure. */
static char *get_str(const pmix_proc_t *p, const char *key)
{
    pmix_value_t *v = getv(p, key, PMIX_STRING);
    char *s = NULL;
    if (v) {
        s = v->data.string ? strdup(v->data.string) : NULL;
        PMIX_VALUE_RELEASE(v);
    }
    return s;
}

static bool is_dir(const char *path)
{
    struct stat st;
    return NULL != path && 0 == stat(path, &st) && S_ISDIR(st.st_mode);
}

/* The per-process keys of rank `r`, whose pid is `pid`. */
static void check_proc(pmix_rank_t r, pid_t pid, const char *host, const char *nsdir)
{
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, me.nspace, r);
    want_rank(&p, PMIX_GLOBAL_RANK, r);
    want_rank(&p, PMIX_APP_RANK, r);
    want_u32(&p, PMIX_APPNUM, 0);
    want_u16(&p, PMIX_LOCAL_RANK, (uint16_t)r);
    want_u16(&p, PMIX_NODE_RANK, (uint16_t)r);
    want_u32(&p, PMIX_NODEID, 0);
    want_str(&p, PMIX_HOSTNAME, host);
    want_u32(&p, PMIX_REINCARNATION, 0);
    pmix_value_t *v = getv(&p, PMIX_PROC_PID, PMIX_PID);
    if (v) {
        CHECK(v->data.pid == pid, "%s PMIX_PROC_PID = %d (want %d)", who(&p), (int)v->data.pid,
              (int)pid);
        PMIX_VALUE_RELEASE(v);
    }
    char *pdir = get_str(&p, PMIX_PROCDIR);
    char want[4096];
    snprintf(want, sizeof want, "%s/%u", nsdir ? nsdir : "?", r);
    CHECK(pdir && 0 == strcmp(pdir, want), "%s PMIX_PROCDIR = %s (want %s)", who(&p),
          pdir ? pdir : "(none)", want);
    CHECK(is_dir(pdir), "%s PMIX_PROCDIR exists", who(&p));
    free(pdir);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: job_info NPROCS\n");
        return 2;
    }
    uint32_t n = (uint32_t)strtoul(argv[1], NULL, 10);
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    pid_t launcher = getppid();

    RT_INIT(&me);
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);

    /* Everyone publishes its pid, so peers can check PMIX_PROC_PID. */
    pmix_value_t put;
    put.type = PMIX_PID;
    put.data.pid = getpid();
    CHECK_RC(PMIx_Put(PMIX_GLOBAL, "test.pid", &put), PMIX_SUCCESS, "Put test.pid");
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit");
    pmix_info_t collect;
    bool yes = true;
    PMIX_INFO_CONSTRUCT(&collect);
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    CHECK_RC(PMIx_Fence(NULL, 0, &collect, 1), PMIX_SUCCESS, "collecting Fence");
    PMIX_INFO_DESTRUCT(&collect);

    /* Job level. */
    char nsname[512];
    snprintf(nsname, sizeof nsname, "job.%s.%d", host, (int)launcher);
    CHECK(0 == strcmp(me.nspace, nsname), "nspace is %s (want %s)", me.nspace, nsname);
    want_str(&job, PMIX_NSPACE, me.nspace);
    want_str(&job, PMIX_JOBID, me.nspace);
    want_u32(&job, PMIX_SESSION_ID, (uint32_t)launcher);
    want_u32(&job, PMIX_JOB_SIZE, n);
    /* pmixrun's slots are the CPUs it may run on (its affinity mask, which we share). */
    cpu_set_t cpus;
    uint32_t slots = 1;
    if (0 == sched_getaffinity(0, sizeof cpus, &cpus) && CPU_COUNT(&cpus) > 0) {
        slots = (uint32_t)CPU_COUNT(&cpus);
    }
    want_u32(&job, PMIX_UNIV_SIZE, n > slots ? n : slots);
    want_u32(&job, PMIX_MAX_PROCS, n);
    want_u32(&job, PMIX_NUM_SLOTS, slots);
    want_u32(&job, PMIX_JOB_NUM_APPS, 1);
    want_rank(&job, PMIX_NPROC_OFFSET, 0);
    want_u32(&job, PMIX_NUM_NODES, 1);
    want_u32(&job, PMIX_NUM_ALLOCATED_NODES, 1);
    want_str(&job, PMIX_NODE_LIST, host);
    want_str(&job, PMIX_ALLOCATED_NODELIST, host);
    want_bool(&job, PMIX_TDIR_RMCLEAN, true);
    want_bool(&job, PMIX_SPAWNED, false);
    want_bool(&job, PMIX_NODE_OVERSUBSCRIBED, n > slots);
    want_str(&job, PMIX_HOSTNAME, host);
    want_u32(&job, PMIX_NODEID, 0);
    want_u32(&job, PMIX_LOCAL_SIZE, n);
    want_u32(&job, PMIX_NODE_SIZE, n);
    want_rank(&job, PMIX_LOCALLDR, 0);
    char peers[4096] = "";
    for (uint32_t r = 0; r < n; r++) {
        size_t len = strlen(peers);
        snprintf(peers + len, sizeof peers - len, "%s%u", r ? "," : "", r);
    }
    want_str(&job, PMIX_LOCAL_PEERS, peers);
    pmix_value_t *v = getv(&job, PMIX_LOCAL_PROCS, PMIX_DATA_ARRAY);
    if (v) {
        pmix_data_array_t *a = v->data.darray;
        CHECK(a && a->type == PMIX_PROC && a->size == n, "PMIX_LOCAL_PROCS holds %u procs",
              (unsigned)n);
        if (a && a->type == PMIX_PROC && a->size == n) {
            pmix_proc_t *procs = (pmix_proc_t *)a->array;
            int good = 1;
            for (uint32_t r = 0; r < n; r++) {
                good &= PMIX_CHECK_NSPACE(procs[r].nspace, me.nspace) && procs[r].rank == r;
            }
            CHECK(good, "PMIX_LOCAL_PROCS lists ranks 0..%u of the job", n - 1);
        }
        PMIX_VALUE_RELEASE(v);
    }
    char *tmpdir = get_str(&job, PMIX_TMPDIR);
    char *nsdir = get_str(&job, PMIX_NSDIR);
    CHECK(is_dir(tmpdir), "PMIX_TMPDIR %s is a directory", tmpdir ? tmpdir : "(none)");
    if (0 == me.rank) {
        /* run.sh checks that pmixrun removed it after the job. */
        printf("tmpdir=%s\n", tmpdir ? tmpdir : "");
    }
    char want[4096];
    snprintf(want, sizeof want, "%s/%s", tmpdir ? tmpdir : "?", me.nspace);
    CHECK(nsdir && 0 == strcmp(nsdir, want), "PMIX_NSDIR = %s (want %s)", nsdir ? nsdir : "(none)",
          want);
    CHECK(is_dir(nsdir), "PMIX_NSDIR is a directory");

    /* App level: through the app directive, and for a rank of the app. */
    pmix_info_t app[2];
    uint32_t appnum = 0;
    PMIX_INFO_CONSTRUCT(&app[0]);
    PMIX_INFO_CONSTRUCT(&app[1]);
    PMIX_INFO_LOAD(&app[0], PMIX_APP_INFO, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&app[1], PMIX_APPNUM, &appnum, PMIX_UINT32);
    v = getv_info(&job, PMIX_APP_SIZE, app, 2, PMIX_UINT32);
    if (v) {
        CHECK(v->data.uint32 == n, "app 0 PMIX_APP_SIZE = %u", v->data.uint32);
        PMIX_VALUE_RELEASE(v);
    }
    v = getv_info(&job, PMIX_APPLDR, app, 2, PMIX_PROC_RANK);
    if (v) {
        CHECK(v->data.rank == 0, "app 0 PMIX_APPLDR = %u", v->data.rank);
        PMIX_VALUE_RELEASE(v);
    }
    v = getv_info(&job, PMIX_APP_ARGV, app, 2, PMIX_STRING);
    if (v) {
        CHECK(v->data.string && strstr(v->data.string, "job_info") &&
                  strstr(v->data.string, argv[1]),
              "app 0 PMIX_APP_ARGV = '%s'", v->data.string ? v->data.string : "(null)");
        PMIX_VALUE_RELEASE(v);
    }
    char cwd[4096] = "";
    if (NULL == getcwd(cwd, sizeof cwd)) {
        cwd[0] = '\0';
    }
    v = getv_info(&job, PMIX_WDIR, app, 2, PMIX_STRING);
    if (v) {
        CHECK(v->data.string && 0 == strcmp(v->data.string, cwd), "app 0 PMIX_WDIR = '%s' (want '%s')",
              v->data.string ? v->data.string : "(null)", cwd);
        PMIX_VALUE_RELEASE(v);
    }
    PMIX_INFO_DESTRUCT(&app[0]);
    PMIX_INFO_DESTRUCT(&app[1]);
    want_u32(&me, PMIX_APP_SIZE, n);
    want_rank(&me, PMIX_APPLDR, 0);

    /* Node level: through the node directive, by node id and by host name. */
    pmix_info_t node[2];
    uint32_t nodeid = 0;
    PMIX_INFO_CONSTRUCT(&node[0]);
    PMIX_INFO_CONSTRUCT(&node[1]);
    PMIX_INFO_LOAD(&node[0], PMIX_NODE_INFO, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&node[1], PMIX_NODEID, &nodeid, PMIX_UINT32);
    v = getv_info(&job, PMIX_LOCAL_SIZE, node, 2, PMIX_UINT32);
    if (v) {
        CHECK(v->data.uint32 == n, "node 0 PMIX_LOCAL_SIZE = %u", v->data.uint32);
        PMIX_VALUE_RELEASE(v);
    }
    v = getv_info(&job, PMIX_HOSTNAME, node, 2, PMIX_STRING);
    if (v) {
        CHECK(v->data.string && 0 == strcmp(v->data.string, host), "node 0 PMIX_HOSTNAME = %s",
              v->data.string ? v->data.string : "(null)");
        PMIX_VALUE_RELEASE(v);
    }
    PMIX_INFO_DESTRUCT(&node[1]);
    PMIX_INFO_LOAD(&node[1], PMIX_HOSTNAME, host, PMIX_STRING);
    v = getv_info(&job, PMIX_NODE_SIZE, node, 2, PMIX_UINT32);
    if (v) {
        CHECK(v->data.uint32 == n, "node %s PMIX_NODE_SIZE = %u", host, v->data.uint32);
        PMIX_VALUE_RELEASE(v);
    }
    v = getv_info(&job, PMIX_LOCAL_PEERS, node, 2, PMIX_STRING);
    if (v) {
        CHECK(v->data.string && 0 == strcmp(v->data.string, peers), "node %s PMIX_LOCAL_PEERS = %s",
              host, v->data.string ? v->data.string : "(null)");
        PMIX_VALUE_RELEASE(v);
    }
    PMIX_INFO_DESTRUCT(&node[0]);
    PMIX_INFO_DESTRUCT(&node[1]);

    /* Process level: self, then the next rank (its pid from what it published). */
    check_proc(me.rank, getpid(), host, nsdir);
    if (n > 1) {
        pmix_proc_t peer;
        PMIX_LOAD_PROCID(&peer, me.nspace, (me.rank + 1) % n);
        pid_t ppid = -1;
        v = getv(&peer, "test.pid", PMIX_PID);
        if (v) {
            ppid = v->data.pid;
            PMIX_VALUE_RELEASE(v);
        }
        check_proc(peer.rank, ppid, host, nsdir);
    }

    /* The per-process directory is ours to use. */
    char file[4200];
    char *pdir = get_str(&me, PMIX_PROCDIR);
    snprintf(file, sizeof file, "%s/scratch", pdir ? pdir : "/nonexistent");
    FILE *f = fopen(file, "w");
    CHECK(NULL != f, "can write into PMIX_PROCDIR");
    if (f) {
        fclose(f);
    }
    free(pdir);
    free(tmpdir);
    free(nsdir);

    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "final Fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
