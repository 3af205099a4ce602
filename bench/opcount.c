/* opcount: N client operations of one kind after PMIx_Init, for instruction counting.
 *
 *   opcount OP N      OP: get-job | get-self | get-peer | put | put-commit
 *
 * The N operations run inside one function, `opcount_loop`, so that
 *   valgrind --tool=callgrind --toggle-collect=opcount_loop opcount OP N
 * counts exactly those operations (value release included for Gets). Running it for two
 * N and dividing the difference by the difference of N gives instructions per operation
 * without the loop's fixed costs (bench/opcount.sh does that). Run it under a launcher
 * with at least 2 ranks for get-peer (rank 1 reads rank 0's key after a collecting fence;
 * other ranks only take part in the fence). */
#define _GNU_SOURCE
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pmix_proc_t me;

static void die(const char *what, pmix_status_t rc)
{
    fprintf(stderr, "opcount [%s:%u]: %s failed: %s\n", me.nspace, me.rank, what,
            PMIx_Error_string(rc));
    exit(1);
}

/* One operation of kind `op`; returns nonzero on a wrong answer. */
static int one(const char *op, const pmix_proc_t *wild, const pmix_proc_t *peer,
               uint32_t expect_size, long i)
{
    pmix_value_t *val = NULL;
    pmix_status_t rc;
    int bad = 0;
    if (0 == strcmp(op, "get-job")) {
        rc = PMIx_Get(wild, PMIX_JOB_SIZE, NULL, 0, &val);
        if (PMIX_SUCCESS != rc)
            die("PMIx_Get(JOB_SIZE)", rc);
        bad = val->data.uint32 != expect_size;
        PMIX_VALUE_RELEASE(val);
    } else if (0 == strcmp(op, "get-self")) {
        rc = PMIx_Get(&me, PMIX_LOCAL_RANK, NULL, 0, &val);
        if (PMIX_SUCCESS != rc)
            die("PMIx_Get(LOCAL_RANK)", rc);
        PMIX_VALUE_RELEASE(val);
    } else if (0 == strcmp(op, "get-peer")) {
        rc = PMIx_Get(peer, "opcount.key", NULL, 0, &val);
        if (PMIX_SUCCESS != rc)
            die("PMIx_Get(peer key)", rc);
        bad = val->type != PMIX_STRING;
        PMIX_VALUE_RELEASE(val);
    } else {
        /* put / put-commit: the same 64-byte string (63 characters + NUL) every time,
         * so that only the library's work is counted */
        static char buf[64] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde";
        pmix_value_t v;
        (void)i;
        v.type = PMIX_STRING;
        v.data.string = buf;
        rc = PMIx_Put(PMIX_GLOBAL, "opcount.put", &v);
        if (PMIX_SUCCESS != rc)
            die("PMIx_Put", rc);
        if (0 == strcmp(op, "put-commit") && PMIX_SUCCESS != (rc = PMIx_Commit()))
            die("PMIx_Commit", rc);
    }
    return bad;
}

/* Not inlined: the function callgrind's --toggle-collect names. */
__attribute__((noinline)) long opcount_loop(const char *op, long n, const pmix_proc_t *wild,
                                            const pmix_proc_t *peer, uint32_t size)
{
    long bad = 0;
    for (long i = 0; i < n; i++)
        bad += one(op, wild, peer, size, i);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s get-job|get-self|get-peer|put|put-commit N\n", argv[0]);
        return 2;
    }
    const char *op = argv[1];
    long n = atol(argv[2]);
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (PMIX_SUCCESS != rc)
        die("PMIx_Init", rc);
    pmix_proc_t wild, peer;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    PMIX_LOAD_PROCID(&peer, me.nspace, 0);
    pmix_value_t *val = NULL;
    if (PMIX_SUCCESS != (rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &val)))
        die("PMIx_Get(JOB_SIZE)", rc);
    uint32_t size = val->data.uint32;
    PMIX_VALUE_RELEASE(val);

    /* Everybody publishes one key, then a collecting fence. */
    pmix_value_t v;
    v.type = PMIX_STRING;
    v.data.string = "0123456789012345678901234567890123456789012345678901234567890ab";
    if (PMIX_SUCCESS != (rc = PMIx_Put(PMIX_GLOBAL, "opcount.key", &v)))
        die("PMIx_Put", rc);
    if (PMIX_SUCCESS != (rc = PMIx_Commit()))
        die("PMIx_Commit", rc);
    pmix_info_t info;
    bool yes = true;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    if (PMIX_SUCCESS != (rc = PMIx_Fence(NULL, 0, &info, 1)))
        die("PMIx_Fence", rc);
    PMIX_INFO_DESTRUCT(&info);

    long bad = 0;
    int active = 0 != strcmp(op, "get-peer") || me.rank == 1;
    if (active) {
        /* warm up (first access of a peer key goes to the server), then count */
        one(op, &wild, &peer, size, -1);
        bad = opcount_loop(op, n, &wild, &peer, size);
    }
    if (PMIX_SUCCESS != (rc = PMIx_Fence(NULL, 0, NULL, 0)))
        die("PMIx_Fence", rc);
    if (bad)
        fprintf(stderr, "opcount: %ld wrong answers\n", bad);
    if (PMIX_SUCCESS != (rc = PMIx_Finalize(NULL, 0)))
        die("PMIx_Finalize", rc);
    return bad != 0;
}
