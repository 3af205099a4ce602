/* fence_shm: same-node fences in shared memory (docs/DESIGN.md, "Same-node fences in
 * shared memory") keep every rule of the socket path, mixed with socket fences:
 *   - the fence area is mapped when the server offers it ("on": pmixrun with one node)
 *     and not otherwise ("off": PMIX_RS_SHM_FENCE=0);
 *   - thousands of back-to-back fences, blocking and Fence_nb, all succeed;
 *   - data committed just before a fence without data is visible to every peer after it;
 *   - collecting (socket) and plain fences alternate;
 *   - mismatched descriptions (rank 0 collects, the others do not) fail for everyone
 *     within PMIX_TIMEOUT, and the next fence works;
 *   - a rank that arrives late: the others' PMIX_TIMEOUT fails them in time, and the late
 *     rank's fence pairs with their next one.
 * Run: pmixrun -n N fence_shm on|off (N >= 2) */
#include "rules.h"

#include <string.h>

/* True if a memory file named pmix-fence is mapped in this process. */
static bool area_mapped(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    bool found = false;
    while (f && fgets(line, sizeof line, f)) {
        if (strstr(line, "memfd:pmix-fence")) {
            found = true;
        }
    }
    if (f) {
        fclose(f);
    }
    return found;
}

static void back_to_back(int rounds)
{
    int bad = 0;
    double t0 = now();
    for (int i = 0; i < rounds; i++) {
        if (PMIX_SUCCESS != PMIx_Fence(NULL, 0, NULL, 0)) {
            bad++;
        }
    }
    double us = (now() - t0) * 1e6 / rounds;
    CHECK(0 == bad, "%d back-to-back fences, %d failed (%.1f us each)", rounds, bad, us);
    bad = 0;
    for (int i = 0; i < rounds / 10; i++) {
        struct waiter w;
        waiter_init(&w);
        if (PMIX_SUCCESS != PMIx_Fence_nb(NULL, 0, NULL, 0, op_done, &w) || !waiter_wait(&w, 10) ||
            PMIX_SUCCESS != w.status || 1 != waiter_calls(&w)) {
            bad++;
        }
        if (i % 3 == 0 && PMIX_SUCCESS != PMIx_Fence(NULL, 0, NULL, 0)) {
            bad++;
        }
    }
    CHECK(0 == bad, "Fence_nb mixed with Fence, back to back: %d failed", bad);
}

static void commit_then_fence(void)
{
    int bad = 0;
    pmix_proc_t peer;
    proc_of(&peer, (me.rank + 1) % nprocs);
    for (int i = 0; i < 50; i++) {
        int got = -1;
        char key[32]; /* a new key each round: a peer's value, once read, is cached */
        snprintf(key, sizeof key, "shm.k%d", i);
        if (PMIX_SUCCESS != put_int(PMIX_GLOBAL, key, i * 1000 + (int)me.rank) ||
            PMIX_SUCCESS != PMIx_Commit() || PMIX_SUCCESS != PMIx_Fence(NULL, 0, NULL, 0) ||
            PMIX_SUCCESS != get_int(&peer, key, NULL, 0, &got) ||
            got != i * 1000 + (int)peer.rank) {
            bad++;
        }
        /* A plain fence after the Get keeps the next Put from overtaking a slow peer. */
        if (PMIX_SUCCESS != PMIx_Fence(NULL, 0, NULL, 0)) {
            bad++;
        }
    }
    CHECK(0 == bad, "Put/Commit/Fence/Get of the next rank's value, 50 rounds: %d failed", bad);
    bad = 0;
    pmix_info_t col;
    flag_info(&col, PMIX_COLLECT_DATA);
    for (int i = 0; i < 100; i++) {
        if (PMIX_SUCCESS != PMIx_Fence(NULL, 0, i % 2 ? &col : NULL, i % 2 ? 1 : 0)) {
            bad++;
        }
    }
    PMIX_INFO_DESTRUCT(&col);
    CHECK(0 == bad, "collecting and plain fences alternating, 100: %d failed", bad);
}

static void mismatch_and_timeout(void)
{
    pmix_info_t info[2];
    timeout_info(&info[0], 1);
    flag_info(&info[1], PMIX_COLLECT_DATA);
    barrier("before the mismatched fence");
    double t0 = now();
    /* rank 0 collects, the others do not: they never match. */
    pmix_status_t rc = PMIx_Fence(NULL, 0, info, 0 == me.rank ? 2 : 1);
    double dt = now() - t0;
    CHECK(PMIX_SUCCESS != rc && dt < 4.0, "mismatched descriptions fail (%d) in time (%.2f s)",
          rc, dt);
    if (dt < 2.0) {
        sleep_ms((int)((2.0 - dt) * 1000)); /* until rank 0's fence is over */
    }
    barrier("a fence after the mismatched one");

    pmix_rank_t late = nprocs - 1;
    t0 = now();
    if (me.rank == late) {
        sleep_ms(1800);
        rc = PMIx_Fence(NULL, 0, NULL, 0);
        CHECK_RC(rc, PMIX_SUCCESS, "the late rank's fence pairs with the others' next one");
    } else {
        rc = PMIx_Fence(NULL, 0, &info[0], 1);
        dt = now() - t0;
        CHECK_RC(rc, PMIX_ERR_TIMEOUT, "a rank missing: PMIX_TIMEOUT");
        CHECK(dt >= 0.9 && dt < 1.7, "... after the timeout (%.2f s)", dt);
        CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "the next fence completes");
    }
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
}

int main(int argc, char **argv)
{
    RULES_INIT();
    bool on = argc > 1 && 0 == strcmp(argv[1], "on");
    CHECK(nprocs >= 2, "at least 2 ranks (%u)", nprocs);
    CHECK(on == area_mapped(), "fence area mapped: %s", on ? "yes" : "no");
    back_to_back(3000);
    commit_then_fence();
    mismatch_and_timeout();
    back_to_back(300);
    barrier("final Fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
