/* Shared helpers of the multi-node scenarios (run by pmixrun --nodes K): the block
 * placement pmixrun uses, fences, and small Get wrappers. */
#ifndef PMIX_TESTS_MN_H
#define PMIX_TESTS_MN_H

#include <pmix.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* pmixrun's block placement: node i gets n/k ranks, the first n%k nodes one more. */
static inline uint32_t mn_count(uint32_t n, uint32_t k, uint32_t node)
{
    return n / k + (node < n % k ? 1 : 0);
}

static inline uint32_t mn_first(uint32_t n, uint32_t k, uint32_t node)
{
    uint32_t first = 0;
    for (uint32_t i = 0; i < node; i++) {
        first += mn_count(n, k, i);
    }
    return first;
}

static inline uint32_t mn_node_of(uint32_t n, uint32_t k, uint32_t rank)
{
    for (uint32_t i = 0; i < k; i++) {
        if (rank < mn_first(n, k, i) + mn_count(n, k, i)) {
            return i;
        }
    }
    return k;
}

/* PMIx_Init and the job size; 0 on failure (already reported). */
static inline uint32_t mn_init(pmix_proc_t *me)
{
    pmix_status_t rc = PMIx_Init(me, NULL, 0);
    CHECK_RC(rc, PMIX_SUCCESS, "PMIx_Init");
    if (PMIX_SUCCESS != rc) {
        return 0;
    }
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, me->nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    uint32_t n = 0;
    if (PMIX_SUCCESS == PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &v) && v) {
        n = v->data.uint32;
        PMIX_VALUE_RELEASE(v);
    }
    CHECK(n > 0, "job size %u", n);
    return n;
}

/* A fence over the whole job, collecting or not. */
static inline pmix_status_t mn_fence(bool collect)
{
    pmix_info_t info;
    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    pmix_status_t rc = PMIx_Fence(NULL, 0, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    return rc;
}

/* PMIx_Get of `key` of rank `r` with up to two boolean directives (NULL: none) and an
 * optional PMIX_TIMEOUT (0: none); the value (released by the caller) goes to *out. */
static inline pmix_status_t mn_get(const char *ns, pmix_rank_t r, const char *key,
                                   const char *flag1, const char *flag2, int timeout,
                                   pmix_value_t **out)
{
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, ns, r);
    pmix_info_t info[3];
    size_t ninfo = 0;
    bool yes = true;
    if (flag1) {
        PMIX_INFO_LOAD(&info[ninfo], flag1, &yes, PMIX_BOOL);
        ninfo++;
    }
    if (flag2) {
        PMIX_INFO_LOAD(&info[ninfo], flag2, &yes, PMIX_BOOL);
        ninfo++;
    }
    if (timeout > 0) {
        PMIX_INFO_LOAD(&info[ninfo], PMIX_TIMEOUT, &timeout, PMIX_INT);
        ninfo++;
    }
    *out = NULL;
    pmix_status_t rc = PMIx_Get(&p, key, ninfo ? info : NULL, ninfo, out);
    for (size_t i = 0; i < ninfo; i++) {
        PMIX_INFO_DESTRUCT(&info[i]);
    }
    return rc;
}

/* Put a uint32 value. */
static inline pmix_status_t mn_put_u32(pmix_scope_t scope, const char *key, uint32_t v)
{
    pmix_value_t val;
    PMIX_VALUE_CONSTRUCT(&val);
    val.type = PMIX_UINT32;
    val.data.uint32 = v;
    return PMIx_Put(scope, key, &val);
}

/* Get a uint32 value of rank r: its status, the value in *v. */
static inline pmix_status_t mn_get_u32(const char *ns, pmix_rank_t r, const char *key,
                                       const char *flag, uint32_t *v)
{
    pmix_value_t *got = NULL;
    pmix_status_t rc = mn_get(ns, r, key, flag, NULL, 0, &got);
    if (PMIX_SUCCESS == rc && got && got->type == PMIX_UINT32) {
        *v = got->data.uint32;
    } else if (PMIX_SUCCESS == rc) {
        rc = PMIX_ERR_TYPE_MISMATCH;
    }
    if (got) {
        PMIX_VALUE_RELEASE(got);
    }
    return rc;
}

/* Put a string value (not copied: PMIx_Put copies it). */
static inline pmix_status_t mn_put_string(pmix_scope_t scope, const char *key, char *str)
{
    pmix_value_t val;
    PMIX_VALUE_CONSTRUCT(&val);
    val.type = PMIX_STRING;
    val.data.string = str;
    return PMIx_Put(scope, key, &val);
}

/* Spawn `nprocs` copies of this program (argv0) with the one argument "child"; the new
 * namespace's name in ns. */
static inline pmix_status_t mn_spawn_children(const char *argv0, int nprocs,
                                              char ns[PMIX_MAX_NSLEN + 1])
{
    pmix_app_t app;
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup(argv0);
    app.argv = calloc(3, sizeof(char *));
    app.argv[0] = strdup(argv0);
    app.argv[1] = strdup("child");
    app.maxprocs = nprocs;
    pmix_status_t rc = PMIx_Spawn(NULL, 0, &app, 1, ns);
    PMIX_APP_DESTRUCT(&app);
    return rc;
}

#endif
