/* A client killed while reading the ds21 store, built against Debian's OpenPMIx 4.2.2
 * (mk/v41server.mk), run under `pmixrun --enable-recovery` on one node (run.sh):
 *   1. every rank puts "kg.pid" (its pid) and "kg.0" (rank * 10), commits, fences;
 *   2. the last rank (the victim) Gets rank 0's "kg.0" in a tight loop, forever: with
 *      the store on, each Get takes its lock in the store's lock segment;
 *   3. rank 0 lets it loop for a while, then SIGKILLs it (it may die holding its lock,
 *      which no one can release: the server's writes must give up, not hang);
 *   4. the others, for ROUNDS rounds, put "kg.<round>" (rank * 10 + round) and
 *      re-put "kg.0", commit, fence among themselves, and Get each other's
 *      "kg.<round>" (a key no client has read before, so whatever a Get returns comes
 *      from the store or the server, never from a client's cache) and check the value.
 * Prints "PASS killget <rank> <rounds>" per surviving rank, or "FAIL ...". */
#include <pmix.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "must.h"

#define ROUNDS 5

static void put_int(const char *key, int x)
{
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, &x, PMIX_INT);
    CHECK(PMIx_Put(PMIX_GLOBAL, key, &v));
    PMIX_VALUE_DESTRUCT(&v);
}

static int get_int(pmix_rank_t rank, const char *key)
{
    pmix_value_t *v = get_typed(rank, key, PMIX_INT);
    int x = v->data.integer;
    PMIX_VALUE_RELEASE(v);
    return x;
}

int main(void)
{
    pmix_proc_t *procs;
    pmix_info_t info;
    bool yes = true;
    uint32_t size, victim, r, round;
    char key[32];

    CHECK(PMIx_Init(&me, NULL, 0));
    size = get_u32(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE);
    victim = size - 1;
    put_int("kg.pid", (int) getpid());
    put_int("kg.0", (int) me.rank * 10);
    CHECK(PMIx_Commit());
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    CHECK(PMIx_Fence(NULL, 0, &info, 1));
    if (me.rank == victim) {
        printf("victim %u looping\n", me.rank);
        fflush(stdout);
        for (;;)
            (void) get_int(0, "kg.0");
    }
    if (0 == me.rank) {
        pid_t pid = (pid_t) get_int(victim, "kg.pid");
        usleep(300 * 1000);
        if (0 != kill(pid, SIGKILL)) {
            printf("FAIL kill %d\n", (int) pid);
            exit(1);
        }
        printf("killed rank %u\n", victim);
        fflush(stdout);
    }
    procs = calloc(victim, sizeof *procs);
    for (r = 0; r < victim; r++)
        PMIX_LOAD_PROCID(&procs[r], me.nspace, r);
    for (round = 1; round <= ROUNDS; round++) {
        snprintf(key, sizeof key, "kg.%u", round);
        put_int(key, (int) (me.rank * 10 + round));
        put_int("kg.0", (int) (me.rank * 10 + round));
        CHECK(PMIx_Commit());
        CHECK(PMIx_Fence(procs, victim, &info, 1));
        for (r = 0; r < victim; r++) {
            int x = get_int(r, key);
            if (x != (int) (r * 10 + round)) {
                printf("FAIL rank %u: %u/%s is %d, want %u\n", me.rank, r, key, x,
                       r * 10 + round);
                exit(1);
            }
        }
    }
    PMIX_INFO_DESTRUCT(&info);
    free(procs);
    CHECK(PMIx_Finalize(NULL, 0));
    printf("PASS killget %u %d\n", me.rank, ROUNDS);
    return 0;
}
