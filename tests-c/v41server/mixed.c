/* One rank of a job that may mix OpenPMIx clients and ours under our server (pmixrun).
 * Built twice (mk/v41server.mk): against Debian's OpenPMIx 4.2.2 headers and library,
 * and against ours. Every rank, whichever library it runs on:
 *   1. PMIx_Init; PMIX_JOB_SIZE, PMIX_LOCAL_SIZE and PMIX_APPNUM of the job;
 *   2. Puts "mx.a" (rank * 7 + 1, uint32) and "mx.s" ("<lib>-<rank>"), Commit;
 *   3. a fence without data collection, then Gets every peer's "mx.a";
 *   4. Puts "mx.b" (rank + 1000), Commit, a collecting fence, Gets every peer's "mx.b"
 *      and "mx.s" (the library a peer runs on is printed: "peers on openpmix: N");
 *   5. PMIx_Group_construct of every rank ("mx.grp"; on ours the results must list them
 *      all), then PMIx_Group_destruct;
 *   6. PMIx_Finalize.
 * Prints "PASS mixed <lib> <nspace>.<rank> ..." or "FAIL <call>: <status>". */
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef MIXED_OPENPMIX
#    define LIB "openpmix"
#else
#    define LIB "pmix-rs"
#endif

#define V41S_WHO LIB " "
#include "must.h"

static void put_u32(const char *key, uint32_t x)
{
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, &x, PMIX_UINT32);
    CHECK(PMIx_Put(PMIX_GLOBAL, key, &v));
    PMIX_VALUE_DESTRUCT(&v);
}

/* 1 when rank's "mx.s" says it runs on OpenPMIx. */
static int peer_is_openpmix(uint32_t rank)
{
    pmix_value_t *v = get_typed(rank, "mx.s", PMIX_STRING);
    char want[64];
    int is;
    if (NULL == v->data.string) {
        printf("FAIL rank %u's mx.s is NULL\n", rank);
        exit(1);
    }
    is = 0 == strncmp(v->data.string, "openpmix-", 9);
    snprintf(want, sizeof want, "%s-%u", is ? "openpmix" : "pmix-rs", rank);
    if (0 != strcmp(want, v->data.string)) {
        printf("FAIL rank %u's mx.s is %s\n", rank, v->data.string);
        exit(1);
    }
    PMIX_VALUE_RELEASE(v);
    return is;
}

static void fence(int collect)
{
    pmix_info_t info;
    bool yes = true;
    if (collect) {
        PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
        CHECK(PMIx_Fence(NULL, 0, &info, 1));
        PMIX_INFO_DESTRUCT(&info);
    } else {
        CHECK(PMIx_Fence(NULL, 0, NULL, 0));
    }
}

/* A group of every rank of the job, constructed and destructed across both libraries. */
static void group(uint32_t size)
{
    pmix_proc_t *all;
    pmix_info_t *res = NULL;
    size_t nres = 0, i;
    uint32_t r;

    PMIX_PROC_CREATE(all, size);
    for (r = 0; r < size; r++)
        PMIX_LOAD_PROCID(&all[r], me.nspace, r);
    CHECK(PMIx_Group_construct("mx.grp", all, size, NULL, 0, &res, &nres));
#ifndef MIXED_OPENPMIX
    for (i = 0; i < nres; i++) {
        if (PMIX_CHECK_KEY(&res[i], PMIX_GROUP_MEMBERSHIP) &&
            res[i].value.data.darray->size != size) {
            printf("FAIL group membership of %zu, not %u\n", res[i].value.data.darray->size,
                   size);
            exit(1);
        }
    }
#else
    (void)i;
#endif
    if (res != NULL)
        PMIX_INFO_FREE(res, nres);
    PMIX_PROC_FREE(all, size);
    CHECK(PMIx_Group_destruct("mx.grp", NULL, 0));
}

int main(void)
{
    uint32_t size, local, appnum, r;
    int openpmix_peers = 0;
    char s[64];
    pmix_value_t v;

    CHECK(PMIx_Init(&me, NULL, 0));
    size = get_u32(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE);
    local = get_u32(PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE);
    appnum = get_u32(PMIX_RANK_WILDCARD, PMIX_APPNUM);
    if (0 == size || local > size || me.rank >= size) {
        printf("FAIL job size %u, local size %u, rank %u\n", size, local, me.rank);
        return 1;
    }
    put_u32("mx.a", me.rank * 7 + 1);
    snprintf(s, sizeof s, LIB "-%u", me.rank);
    PMIX_VALUE_LOAD(&v, s, PMIX_STRING);
    CHECK(PMIx_Put(PMIX_GLOBAL, "mx.s", &v));
    PMIX_VALUE_DESTRUCT(&v);
    CHECK(PMIx_Commit());
    fence(0);
    for (r = 0; r < size; r++) {
        uint32_t got = get_u32(r, "mx.a");
        if (got != r * 7 + 1) {
            printf("FAIL rank %u's mx.a is %u, not %u\n", r, got, r * 7 + 1);
            return 1;
        }
    }
    put_u32("mx.b", me.rank + 1000);
    CHECK(PMIx_Commit());
    fence(1);
    for (r = 0; r < size; r++) {
        uint32_t got = get_u32(r, "mx.b");
        if (got != r + 1000) {
            printf("FAIL rank %u's mx.b is %u, not %u\n", r, got, r + 1000);
            return 1;
        }
        openpmix_peers += peer_is_openpmix(r);
    }
    group(size);
    CHECK(PMIx_Finalize(NULL, 0));
    printf("PASS mixed " LIB " %s.%u of %u (app %u, %u local): peers on openpmix: %d\n",
           me.nspace, me.rank, size, appnum, local, openpmix_peers);
    return 0;
}
