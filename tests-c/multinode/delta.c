/* delta: the same put/fence/get sequence whatever the servers' delta-modex setting.
 * Every rank publishes NKEYS keys once, then before each of NFENCES collecting fences
 * changes one of them (and deletes another before the third fence). After each fence it
 * reads every peer's whole data set from its server (PMIX_GET_REFRESH_CACHE with
 * PMIX_IMMEDIATE: what the fences delivered, no direct modex), checks every value, and
 * prints a digest per fence (order-independent); the test compares the digests of a run with delta modex on
 * and one with it off, and the contribution sizes pmixrun --report-modex prints.
 * Run: pmixrun --nodes K -n N --report-modex delta NKEYS NFENCES */
#include "mn.h"

static uint64_t fnv(uint64_t h, const char *s)
{
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    return h;
}

static uint32_t expected(uint32_t q, int key, int fence, bool *present)
{
    *present = !(key == 50 && fence >= 2);
    if (key == 0 && fence > 0) {
        return q * 100000u + 1000u * (uint32_t)fence;
    }
    return q * 100000u + (uint32_t)key;
}

int main(int argc, char **argv)
{
    pmix_proc_t me;
    uint32_t n = mn_init(&me);
    int nkeys = argc > 2 ? atoi(argv[1]) : 0, nfences = argc > 2 ? atoi(argv[2]) : 0;
    if (n == 0 || nkeys <= 50 || nfences < 3) {
        CHECK(nkeys > 50 && nfences >= 3, "usage: delta NKEYS(>50) NFENCES(>=3)");
        CHECK_DONE();
    }
    char key[32];
    for (int i = 0; i < nkeys; i++) {
        snprintf(key, sizeof key, "dk.%03d", i);
        if (PMIX_SUCCESS != mn_put_u32(PMIX_GLOBAL, key, me.rank * 100000u + (uint32_t)i)) {
            CHECK(false, "Put %s", key);
        }
    }
    CHECK_RC(mn_put_u32(PMIX_LOCAL, "dk.local", 1), PMIX_SUCCESS, "Put LOCAL");
    for (int f = 0; f < nfences; f++) {
        if (f > 0) {
            CHECK_RC(mn_put_u32(PMIX_GLOBAL, "dk.000", me.rank * 100000u + 1000u * (uint32_t)f),
                     PMIX_SUCCESS, "change dk.000");
        }
        if (f == 2) {
            CHECK_RC(PMIx_Put(PMIX_DEL_GLOBAL, "dk.050", NULL), PMIX_SUCCESS, "delete dk.050");
        }
        CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit");
        CHECK_RC(mn_fence(true), PMIX_SUCCESS, "collecting Fence");
        uint64_t digest = 1469598103934665603ULL;
        uint32_t wrong = 0, seen = 0;
        for (uint32_t q = 0; q < n; q++) {
            if (q == me.rank) {
                continue;
            }
            pmix_value_t *v = NULL;
            pmix_status_t rc = mn_get(me.nspace, q, NULL, PMIX_GET_REFRESH_CACHE, PMIX_IMMEDIATE, 0, &v);
            if (PMIX_SUCCESS != rc || !v || v->type != PMIX_DATA_ARRAY || !v->data.darray ||
                v->data.darray->type != PMIX_INFO) {
                printf("rank %u fence %d: data of rank %u: %s\n", me.rank, f, q, PMIx_Error_string(rc));
                wrong++;
                if (v) PMIX_VALUE_RELEASE(v);
                continue;
            }
            pmix_info_t *infos = (pmix_info_t *)v->data.darray->array;
            int count = 0;
            for (size_t i = 0; i < v->data.darray->size; i++) {
                if (0 != strncmp(infos[i].key, "dk.", 3)) {
                    continue; /* job data of the process (pid...) differs between runs */
                }
                char line[PMIX_MAX_KEYLEN + 64];
                uint32_t val = infos[i].value.type == PMIX_UINT32 ? infos[i].value.data.uint32 : 0;
                snprintf(line, sizeof line, "%u %s %u\n", q, infos[i].key, val);
                /* A sum of per-line hashes: the set of values read, whatever order a
                 * NULL-key Get lists them in (that order is not part of the API). */
                digest += fnv(1469598103934665603ULL, line);
                if (0 == strcmp(infos[i].key, "dk.local")) {
                    continue;
                }
                int idx = atoi(infos[i].key + 3);
                bool present;
                uint32_t want = expected(q, idx, f, &present);
                if (!present || infos[i].value.type != PMIX_UINT32 || val != want) {
                    wrong++;
                }
                count++;
            }
            int want_count = nkeys - (f >= 2 ? 1 : 0);
            if (count != want_count) {
                printf("rank %u fence %d: rank %u has %d keys, want %d\n", me.rank, f, q, count,
                       want_count);
                wrong++;
            }
            seen++;
            PMIX_VALUE_RELEASE(v);
        }
        CHECK(0 == wrong, "fence %d: every value of %u peers as published (%u wrong)", f, seen, wrong);
        printf("digest rank %u fence %d %016llx\n", me.rank, f, (unsigned long long)digest);
        fflush(stdout); /* one short write per line: lines of the ranks never split */
        /* Peers on my node are read live from our server: nobody changes anything until
         * everyone has read (a fence without data moves no delta boundary). */
        CHECK_RC(mn_fence(false), PMIX_SUCCESS, "Fence after reading");
    }
    CHECK_RC(mn_fence(false), PMIX_SUCCESS, "final Fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
