/* chaosloop: the victim program of tests-c/chaos/run.sh.
 * Run: pmixrun [--nodes K] -n N chaosloop ITERS [spawn]
 *
 * Every rank does ITERS rounds of: Put/Commit of a round-stamped key, a collecting
 * PMIx_Fence over the job, a PMIx_Get of its right-hand neighbour's key (checked), and
 * every 4th round a PMIx_Connect + PMIx_Disconnect over the job; with "spawn", every 8th
 * round rank 0 also spawns one child (this program with argv "child", which only
 * initialises and finalises; pmixrun runs it on rank 0's node).
 * Each call has no timeout of its own: a killed peer must be reported by the library
 * (or end the job through pmixrun), never wait forever.
 *
 * Output: "rank R: started", "rank R: done ITERS rounds" at the end; on a failing call
 * "rank R: OP failed with STATUS in round I" on stderr and exit status 3. */
#include <pmix.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pmix_proc_t me;

static void fail(const char *op, pmix_status_t rc, int round)
{
    fprintf(stderr, "rank %u: %s failed with %s in round %d\n", me.rank, op,
            PMIx_Error_string(rc), round);
    exit(3);
}

static void put_fence_get(uint32_t size, int round)
{
    char key[64];
    pmix_value_t val;
    snprintf(key, sizeof key, "chaos.%d", round);
    PMIX_VALUE_LOAD(&val, &round, PMIX_INT);
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &val);
    if (PMIX_SUCCESS != rc) {
        fail("PMIx_Put", rc, round);
    }
    if (PMIX_SUCCESS != (rc = PMIx_Commit())) {
        fail("PMIx_Commit", rc, round);
    }
    pmix_proc_t all;
    PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
    pmix_info_t info;
    bool collect = true;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    rc = PMIx_Fence(&all, 1, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    if (PMIX_SUCCESS != rc) {
        fail("PMIx_Fence", rc, round);
    }
    pmix_proc_t peer;
    PMIX_LOAD_PROCID(&peer, me.nspace, (me.rank + 1) % size);
    pmix_value_t *got = NULL;
    rc = PMIx_Get(&peer, key, NULL, 0, &got);
    if (PMIX_SUCCESS != rc || NULL == got) {
        fail("PMIx_Get", rc, round);
    }
    if (PMIX_INT != got->type || got->data.integer != round) {
        fprintf(stderr, "rank %u: PMIx_Get of %s gave type %d value %d in round %d\n", me.rank,
                key, (int)got->type, got->data.integer, round);
        exit(3);
    }
    PMIX_VALUE_RELEASE(got);
}

static void connect_round(int round)
{
    pmix_proc_t all;
    PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
    pmix_status_t rc = PMIx_Connect(&all, 1, NULL, 0);
    if (PMIX_SUCCESS != rc) {
        fail("PMIx_Connect", rc, round);
    }
    if (PMIX_SUCCESS != (rc = PMIx_Disconnect(&all, 1, NULL, 0))) {
        fail("PMIx_Disconnect", rc, round);
    }
}

static void spawn_round(const char *self, int round)
{
    pmix_app_t app;
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup(self);
    char *argv[] = {(char *)self, "child", NULL};
    app.argv = argv;
    app.maxprocs = 1;
    char child_ns[PMIX_MAX_NSLEN + 1];
    pmix_status_t rc = PMIx_Spawn(NULL, 0, &app, 1, child_ns);
    app.argv = NULL;
    free(app.cmd);
    app.cmd = NULL;
    if (PMIX_SUCCESS != rc) {
        fail("PMIx_Spawn", rc, round);
    }
}

int main(int argc, char **argv)
{
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (PMIX_SUCCESS != rc) {
        fprintf(stderr, "chaosloop: PMIx_Init failed with %s\n", PMIx_Error_string(rc));
        return 3;
    }
    if (argc > 1 && 0 == strcmp(argv[1], "child")) {
        return PMIX_SUCCESS == PMIx_Finalize(NULL, 0) ? 0 : 3;
    }
    int iters = argc > 1 ? atoi(argv[1]) : 100;
    bool spawn = argc > 2 && 0 == strcmp(argv[2], "spawn");
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    if (PMIX_SUCCESS != (rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v))) {
        fail("PMIx_Get(PMIX_JOB_SIZE)", rc, -1);
    }
    uint32_t size = v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    printf("rank %u: started\n", me.rank);
    fflush(stdout);
    for (int i = 0; i < iters; i++) {
        put_fence_get(size, i);
        if (i % 4 == 3) {
            connect_round(i);
        }
        if (spawn && i % 8 == 7 && 0 == me.rank) {
            spawn_round(argv[0], i);
        }
    }
    if (PMIX_SUCCESS != (rc = PMIx_Finalize(NULL, 0))) {
        fail("PMIx_Finalize", rc, iters);
    }
    printf("rank %u: done %d rounds\n", me.rank, iters);
    return 0;
}
