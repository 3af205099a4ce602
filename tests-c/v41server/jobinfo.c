/* One rank reading job-level and per-rank data, built against Debian's OpenPMIx 4.2.2
 * (mk/v41server.mk), run under pmixrun with the server's ds21 store on and off
 * (tests-c/v41server/run.sh compares the two runs' lines):
 *   1. PMIx_Init; job-level keys (job, local and universe size, local peers, node size,
 *      app number, number of nodes), its own rank's keys (local and node rank, host
 *      name, node id, app number), and every peer's local rank, host name and app number;
 *   2. Puts "ji.v" (rank * 3 + 5) and "ji.s", Commit, a collecting fence, Gets every
 *      peer's "ji.v" (with the ds21 store on, local peers' from the store), a fence;
 *      then re-commits both with new values ("ji.v" the same size, "ji.s" longer) and
 *      a new key "ji.n", fences again and Gets every peer's "ji.v" with
 *      PMIX_GET_REFRESH_CACHE (a hash client keeps the data of its first answer,
 *      which has all of the peer's keys, until refreshed; a ds21 client reads the
 *      store, which has the newest), then "ji.v", "ji.s" and "ji.n" plainly;
 *   3. says which gds served it: "gds ds21" when a data segment of the store is mapped
 *      into this process (/proc/self/maps), "gds hash" otherwise;
 *   4. PMIx_Finalize.
 * Prints "V <rank> <what> <value>" lines, then "gds ..." and "PASS jobinfo <rank>", or
 * "FAIL <call>: <status>". */
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "must.h"

/* Print rank's (or the job's) key as "V <me> <rank>/<key> <value>"; a missing key
 * prints "missing" (the same both ways is all that is asked). */
static void show_with(pmix_rank_t rank, const char *key, const pmix_info_t *info, size_t ninfo)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    char who[16];
    pmix_status_t rc;
    PMIX_LOAD_PROCID(&p, me.nspace, rank);
    if (PMIX_RANK_WILDCARD == rank)
        snprintf(who, sizeof who, "job");
    else
        snprintf(who, sizeof who, "%u", rank);
    rc = PMIx_Get(&p, key, info, ninfo, &v);
    printf("V %u %s/%s%s ", me.rank, who, key, ninfo ? "/refresh" : "");
    if (PMIX_SUCCESS != rc) {
        printf("missing\n");
        return;
    }
    switch (v->type) {
    case PMIX_UINT32: printf("u32 %u\n", v->data.uint32); break;
    case PMIX_UINT16: printf("u16 %u\n", v->data.uint16); break;
    case PMIX_INT: printf("int %d\n", v->data.integer); break;
    case PMIX_BOOL: printf("bool %d\n", (int) v->data.flag); break;
    case PMIX_PROC_RANK: printf("rank %u\n", v->data.rank); break;
    case PMIX_STRING: printf("str %s\n", v->data.string ? v->data.string : "(null)"); break;
    default: printf("type %d\n", (int) v->type); break;
    }
    PMIX_VALUE_RELEASE(v);
}

static void show(pmix_rank_t rank, const char *key)
{
    show_with(rank, key, NULL, 0);
}

/* Put and commit this round's values: "ji.v" rank * 3 + 5 + round (always a uint32),
 * "ji.s" a string growing with the round, after round 0 "ji.n" (an int); then a
 * collecting fence. */
static void commit_round(uint32_t round)
{
    pmix_value_t v;
    pmix_info_t info;
    bool yes = true;
    uint32_t u = me.rank * 3 + 5 + round;
    int i = (int) (me.rank * 100 + round);
    char s[64];
    snprintf(s, sizeof s, "r%u-%.*s", me.rank, (int) (1 + 8 * round), "xxxxxxxxxxxxxxxxxxxx");
    PMIX_VALUE_LOAD(&v, &u, PMIX_UINT32);
    CHECK(PMIx_Put(PMIX_GLOBAL, "ji.v", &v));
    PMIX_VALUE_DESTRUCT(&v);
    PMIX_VALUE_LOAD(&v, s, PMIX_STRING);
    CHECK(PMIx_Put(PMIX_LOCAL, "ji.s", &v));
    PMIX_VALUE_DESTRUCT(&v);
    if (round) {
        PMIX_VALUE_LOAD(&v, &i, PMIX_INT);
        CHECK(PMIx_Put(PMIX_GLOBAL, "ji.n", &v));
        PMIX_VALUE_DESTRUCT(&v);
    }
    CHECK(PMIx_Commit());
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    CHECK(PMIx_Fence(NULL, 0, &info, 1));
    PMIX_INFO_DESTRUCT(&info);
}

/* Whether a ds21 data segment is mapped here (the client attached its store). */
static int ds21_mapped(void)
{
    char line[4096];
    int found = 0;
    FILE *f = fopen("/proc/self/maps", "r");
    if (NULL == f)
        return 0;
    while (!found && fgets(line, sizeof line, f))
        found = NULL != strstr(line, "/smdataseg-");
    fclose(f);
    return found;
}

int main(void)
{
    static const char *job_keys[] = {PMIX_JOB_SIZE, PMIX_LOCAL_SIZE, PMIX_UNIV_SIZE,
                                     PMIX_LOCAL_PEERS, PMIX_NODE_SIZE, PMIX_APPNUM,
                                     PMIX_NUM_NODES, PMIX_HOSTNAME};
    static const char *own_keys[] = {PMIX_LOCAL_RANK, PMIX_NODE_RANK, PMIX_HOSTNAME,
                                     PMIX_NODEID, PMIX_APPNUM, PMIX_GLOBAL_RANK};
    static const char *peer_keys[] = {PMIX_LOCAL_RANK, PMIX_HOSTNAME, PMIX_APPNUM};
    uint32_t size, r;
    size_t i;
    pmix_info_t info;
    bool yes = true;

    CHECK(PMIx_Init(&me, NULL, 0));
    size = get_u32(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE);
    for (i = 0; i < sizeof job_keys / sizeof *job_keys; i++)
        show(PMIX_RANK_WILDCARD, job_keys[i]);
    for (i = 0; i < sizeof own_keys / sizeof *own_keys; i++)
        show(me.rank, own_keys[i]);
    for (r = 0; r < size; r++)
        for (i = 0; i < sizeof peer_keys / sizeof *peer_keys; i++)
            show(r, peer_keys[i]);
    commit_round(0);
    for (r = 0; r < size; r++)
        show(r, "ji.v");
    CHECK(PMIx_Fence(NULL, 0, NULL, 0));
    commit_round(1);
    PMIX_INFO_LOAD(&info, PMIX_GET_REFRESH_CACHE, &yes, PMIX_BOOL);
    for (r = 0; r < size; r++) {
        show_with(r, "ji.v", &info, 1);
        show(r, "ji.v");
        show(r, "ji.s");
        show(r, "ji.n");
    }
    PMIX_INFO_DESTRUCT(&info);
    printf("gds %u %s\n", me.rank, ds21_mapped() ? "ds21" : "hash");
    CHECK(PMIx_Finalize(NULL, 0));
    printf("PASS jobinfo %u\n", me.rank);
    return 0;
}
