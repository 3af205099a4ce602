/* hello: the example job of `make run` (pmixrun -n 4 build/tests-c/hello).
 *
 * Each rank prints what it learned from its PMIx server: its namespace and rank, the
 * job size, its local and node rank, its host, its application number, and a value
 * its right-hand neighbour published before a collecting fence. */
#include <pmix.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pmix_proc_t me;

static void die(const char *what, pmix_status_t rc)
{
    fprintf(stderr, "hello [%s:%u]: %s failed: %s\n", me.nspace, me.rank, what,
            PMIx_Error_string(rc));
    exit(1);
}

/* Fetch `key` for `proc`; the caller releases the value. */
static pmix_value_t *get(const pmix_proc_t *proc, const char *key)
{
    pmix_value_t *val = NULL;
    pmix_status_t rc = PMIx_Get(proc, key, NULL, 0, &val);
    if (PMIX_SUCCESS != rc || NULL == val) {
        die(key, rc);
    }
    return val;
}

int main(void)
{
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (PMIX_SUCCESS != rc) {
        die("PMIx_Init", rc);
    }
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);

    pmix_value_t *v = get(&job, PMIX_JOB_SIZE);
    uint32_t size = v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    v = get(&me, PMIX_LOCAL_RANK);
    uint16_t lrank = v->data.uint16;
    PMIX_VALUE_RELEASE(v);
    v = get(&me, PMIX_NODE_RANK);
    uint16_t nrank = v->data.uint16;
    PMIX_VALUE_RELEASE(v);
    v = get(&me, PMIX_APPNUM);
    uint32_t appnum = v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    v = get(&me, PMIX_HOSTNAME);
    char host[256];
    snprintf(host, sizeof host, "%s", v->type == PMIX_STRING ? v->data.string : "?");
    PMIX_VALUE_RELEASE(v);

    /* Publish a greeting, exchange everyone's with a collecting fence, read the
     * neighbour's. */
    char greeting[128];
    snprintf(greeting, sizeof greeting, "hello from rank %u (pid %d)", me.rank, (int)getpid());
    pmix_value_t put;
    put.type = PMIX_STRING;
    put.data.string = greeting;
    if (PMIX_SUCCESS != (rc = PMIx_Put(PMIX_GLOBAL, "hello.greeting", &put))) {
        die("PMIx_Put", rc);
    }
    if (PMIX_SUCCESS != (rc = PMIx_Commit())) {
        die("PMIx_Commit", rc);
    }
    pmix_info_t collect;
    bool yes = true;
    PMIX_INFO_CONSTRUCT(&collect);
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    rc = PMIx_Fence(NULL, 0, &collect, 1);
    PMIX_INFO_DESTRUCT(&collect);
    if (PMIX_SUCCESS != rc) {
        die("PMIx_Fence", rc);
    }
    pmix_proc_t peer;
    PMIX_LOAD_PROCID(&peer, me.nspace, (me.rank + 1) % size);
    v = get(&peer, "hello.greeting");

    printf("rank %u/%u nspace=%s local_rank=%u node_rank=%u host=%s appnum=%u "
           "neighbour %u says \"%s\"\n",
           me.rank, size, me.nspace, lrank, nrank, host, appnum, peer.rank,
           v->type == PMIX_STRING ? v->data.string : "?");
    PMIX_VALUE_RELEASE(v);

    if (PMIX_SUCCESS != (rc = PMIx_Finalize(NULL, 0))) {
        die("PMIx_Finalize", rc);
    }
    return 0;
}
