/* fence_shm: same-node fences in shared memory (docs/DESIGN.md, "Same-node fences in
 * shared memory") keep every rule of the socket path, mixed with socket fences:
 *   - the fence area is mapped when the server offers it ("on": pmixrun with one node)
 *     and not otherwise ("off": PMIX_RS_SHM_FENCE=0);
 *   - thousands of back-to-back fences, blocking and Fence_nb, all succeed;
 *   - data committed just before a fence without data is visible to every peer after it,
 *     a changed value too when the peer asks the server for it (PMIX_GET_REFRESH_CACHE);
 *   - collecting (socket) and plain fences alternate;
 *   - mismatched descriptions (rank 0 collects, the others do not) fail for everyone
 *     within PMIX_TIMEOUT, and the next fence works;
 *   - a rank that arrives late: the others' PMIX_TIMEOUT fails them in time, and the late
 *     rank's fence pairs with their next one;
 *   - collecting fences (PMIX_COLLECT_DATA) deliver every rank's values to every rank, round
 *     after round with no other fence between them, through the fence area when it is on
 *     (its data pages are then mapped), the same values when it is off; a rank whose data
 *     exceeds the area's room takes the socket path and the others follow it there;
 *   - "on timeout": a collecting fence a rank is late for fails with PMIX_TIMEOUT in time
 *     and the late rank's pairs with the others' next one;
 *   - "on kill": the last rank dies while the others wait in a collecting fence: they fail in time
 *     (pmixrun --enable-recovery; pmixrun then exits with 137).
 * Run: pmixrun -n N fence_shm on|off [timeout|kill] (N >= 2) */
#include "rules.h"

#include <signal.h>
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

/* Resident kB of the fence area's mapping in this process (0: not mapped). */
static long area_rss_kb(void)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[512];
    bool in = false;
    long kb = 0;
    while (f && fgets(line, sizeof line, f)) {
        long v;
        if (strchr(line, '-') && strchr(line, ' ') && strchr(line, '-') < strchr(line, ' ')) {
            in = NULL != strstr(line, "memfd:pmix-fence");
        } else if (in && 1 == sscanf(line, "Rss: %ld kB", &v)) {
            kb += v;
        }
    }
    if (f) {
        fclose(f);
    }
    return kb;
}

static pmix_info_t collect_info;

/* Round `round` of collecting fences: every rank puts 8 new keys (a peer's value once
 * read is cached, so each round has its own), commits, fences, reads every peer's. */
static int collect_round(int round, size_t big)
{
    int bad = 0;
    char key[32];
    for (int k = 0; k < 8; k++) {
        snprintf(key, sizeof key, "c%d.%d", round, k);
        bad += PMIX_SUCCESS != put_int(PMIX_GLOBAL, key, round * 100000 + k * 1000 + (int)me.rank);
    }
    if (big > 0 && 0 == me.rank) {
        char *s = malloc(big + 1);
        memset(s, 'x', big);
        s[big] = '\0';
        pmix_value_t v;
        PMIX_VALUE_LOAD(&v, s, PMIX_STRING);
        bad += PMIX_SUCCESS != PMIx_Put(PMIX_LOCAL, "c.big", &v);
        PMIX_VALUE_DESTRUCT(&v);
        free(s);
    }
    bad += PMIX_SUCCESS != PMIx_Commit();
    bad += PMIX_SUCCESS != PMIx_Fence(NULL, 0, &collect_info, 1);
    for (pmix_rank_t r = 0; r < nprocs; r++) {
        pmix_proc_t p;
        proc_of(&p, r);
        for (int k = 0; k < 8 && r != me.rank; k++) {
            int got = -1;
            snprintf(key, sizeof key, "c%d.%d", round, k);
            if (PMIX_SUCCESS != get_int(&p, key, NULL, 0, &got) ||
                got != round * 100000 + k * 1000 + (int)r) {
                bad++;
            }
        }
    }
    return bad;
}

static void collecting(bool on)
{
    int bad = 0;
    double t0 = now();
    for (int round = 0; round < 40; round++) {
        bad += collect_round(round, 0);
    }
    double us = (now() - t0) * 1e6 / 40;
    CHECK(0 == bad, "40 rounds of Put/Commit/collecting Fence/Get of every peer's 8 values: "
                    "%d failed (%.1f us a round)", bad, us);
    long kb = area_rss_kb();
    long want = on ? 4 * (1 + (long)nprocs) : 0;
    CHECK(on ? kb >= want : 0 == kb, "the values came through the fence area's data pages: %s "
                                     "(%ld kB of it resident, %ld expected)",
          on ? "yes" : "no", kb, want);
}

/* Rank 0 brings more data than the area's room (4088 bytes by default). */
static void collect_big(void)
{
    CHECK(0 == collect_round(40, 6000), "a rank with more data than the area holds: all values "
                                        "arrive (the socket path)");
    pmix_proc_t p0;
    proc_of(&p0, 0);
    pmix_value_t *v = NULL;
    bool big = me.rank == 0 || (PMIX_SUCCESS == PMIx_Get(&p0, "c.big", NULL, 0, &v) && v &&
                                PMIX_STRING == v->type && 6000 == strlen(v->data.string));
    if (v) {
        PMIX_VALUE_RELEASE(v);
    }
    CHECK(big, "... its 6000-byte value too");
}

/* A collecting fence a rank is late for: PMIX_TIMEOUT, then the late one's pairs. */
static void collect_late(void)
{
    pmix_info_t info[2];
    flag_info(&info[0], PMIX_COLLECT_DATA);
    timeout_info(&info[1], 1);
    barrier("before the late collecting fence");
    double t0 = now();
    if (me.rank == nprocs - 1) {
        sleep_ms(1500);
        CHECK_RC(collect_round(41, 0) ? PMIX_ERROR : PMIX_SUCCESS, PMIX_SUCCESS,
                 "the late rank's collecting fence pairs with the others' next one");
    } else {
        pmix_status_t rc = PMIx_Fence(NULL, 0, info, 2);
        double dt = now() - t0;
        CHECK_RC(rc, PMIX_ERR_TIMEOUT, "a rank missing from a collecting fence: PMIX_TIMEOUT");
        CHECK(dt >= 0.9 && dt < 1.7, "... after the timeout (%.2f s)", dt);
        CHECK(0 == collect_round(41, 0), "the next collecting fence delivers every value");
    }
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
}

/* The last rank dies while the others wait in a collecting fence; they must not hang. */
static void collect_kill(void)
{
    CHECK(0 == collect_round(0, 0), "a collecting fence before the death");
    if (me.rank == nprocs - 1) {
        put_int(PMIX_GLOBAL, "c.victim", 1);
        PMIx_Commit();
        fflush(stdout);
        sleep_ms(300); /* the others are waiting in the area by now */
        raise(SIGKILL);
    }
    double t0 = now();
    pmix_status_t rc = PMIx_Fence(NULL, 0, &collect_info, 1);
    double dt = now() - t0;
    printf("rank %u: collecting fence %s with %s after %.2f s\n", me.rank,
           PMIX_SUCCESS == rc ? "completed" : "failed", PMIx_Error_string(rc), dt);
    CHECK(PMIX_SUCCESS != rc && dt < 10, "a rank killed in a collecting fence fails the others");
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
    /* The same key with a new value each round, read from the server past the cache: the
     * fence without data completes in the area without waiting for the commit to reach
     * the server, so the server must not answer with the value it held before. */
    bad = 0;
    pmix_info_t refresh;
    flag_info(&refresh, PMIX_GET_REFRESH_CACHE);
    for (int i = 0; i < 50; i++) {
        int got = -1;
        if (PMIX_SUCCESS != put_int(PMIX_GLOBAL, "shm.same", i * 1000 + (int)me.rank) ||
            PMIX_SUCCESS != PMIx_Commit() || PMIX_SUCCESS != PMIx_Fence(NULL, 0, NULL, 0) ||
            PMIX_SUCCESS != get_int(&peer, "shm.same", &refresh, 1, &got) ||
            got != i * 1000 + (int)peer.rank) {
            bad++;
        }
        if (PMIX_SUCCESS != PMIx_Fence(NULL, 0, NULL, 0)) {
            bad++;
        }
    }
    CHECK(0 == bad, "Put/Commit/Fence/refreshed Get of a changed value, 50 rounds: %d failed",
          bad);
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
    const char *extra = argc > 2 ? argv[2] : "";
    CHECK(nprocs >= 2, "at least 2 ranks (%u)", nprocs);
    CHECK(on == area_mapped(), "fence area mapped: %s", on ? "yes" : "no");
    flag_info(&collect_info, PMIX_COLLECT_DATA);
    if (0 == strcmp(extra, "kill")) {
        collect_kill();
        PMIx_Finalize(NULL, 0);
        CHECK_DONE();
    }
    collecting(on);
    if (0 == strcmp(extra, "timeout")) {
        collect_late();
    }
    collect_big();
    back_to_back(3000);
    commit_then_fence();
    mismatch_and_timeout();
    back_to_back(300);
    barrier("final Fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
