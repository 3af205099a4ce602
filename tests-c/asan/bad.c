/* bad: deliberately wrong C code, to prove the ASan/UBSan build of the C tests (make
 * asan-check) catches what it is meant to catch. Every mode but "clean" must be stopped
 * by a sanitizer; asan-check fails if one of them exits normally.
 *
 *   bad clean        PMIx_Get of a string, read, released: must exit 0
 *   bad overflow     writes one byte past the end of a PMIx_Get'ed string
 *                    (heap-buffer-overflow: the library's malloc is ASan's)
 *   bad double-free  frees a PMIx_Get'ed string with free(), then PMIx_Value_free frees
 *                    it again (double-free inside the library: its free is ASan's too)
 *   bad leak         never releases eight PMIx_Get'ed values (LeakSanitizer at exit)
 *   bad ubsan        signed overflow on a value read back (UBSan, halt_on_error)
 *
 * Run under pmixrun -n 1 (or as a singleton). */
#include <limits.h>
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pmix_value_t *get_string(pmix_proc_t *me)
{
    pmix_value_t val;
    val.type = PMIX_STRING;
    val.data.string = "asan-probe";
    if (PMIX_SUCCESS != PMIx_Put(PMIX_LOCAL, "asan.key", &val) || PMIX_SUCCESS != PMIx_Commit()) {
        fprintf(stderr, "bad: Put/Commit failed\n");
        exit(2);
    }
    pmix_value_t *v = NULL;
    if (PMIX_SUCCESS != PMIx_Get(me, "asan.key", NULL, 0, &v) || NULL == v
        || PMIX_STRING != v->type || NULL == v->data.string) {
        fprintf(stderr, "bad: PMIx_Get of the string failed\n");
        exit(2);
    }
    return v;
}

static volatile int sink;

/* Gets the key N times and drops every result. Several, and from a function of its own
 * whose frame is then overwritten: a stale copy of one pointer (in a dead stack slot, or
 * a queue slot of the library's progress thread) would make that one look reachable. */
static __attribute__((noinline)) void leak_values(pmix_proc_t *me, int n)
{
    for (int i = 0; i < n; i++) {
        pmix_value_t *v = NULL;
        (void)PMIx_Get(me, "asan.key", NULL, 0, &v);
    }
}

static __attribute__((noinline)) void scrub_stack(void)
{
    volatile char junk[16384];
    memset((char *)junk, 0, sizeof junk);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "clean";
    pmix_proc_t me;
    if (PMIX_SUCCESS != PMIx_Init(&me, NULL, 0)) {
        fprintf(stderr, "bad: PMIx_Init failed\n");
        return 2;
    }
    pmix_value_t *v = get_string(&me);
    size_t len = strlen(v->data.string);
    if (0 == strcmp(mode, "overflow")) {
        v->data.string[len + 1] = 'x'; /* the string's buffer holds len + 1 bytes */
    } else if (0 == strcmp(mode, "double-free")) {
        free(v->data.string); /* and PMIx_Value_free below frees it again */
    } else if (0 == strcmp(mode, "leak")) {
        leak_values(&me, 8);
        scrub_stack();
    } else if (0 == strcmp(mode, "ubsan")) {
        int big = INT_MAX - (int)(len % 2); /* not constant-folded: len is a run-time value */
        sink = big + (int)len;
    } else if (0 != strcmp(mode, "clean")) {
        fprintf(stderr, "bad: unknown mode %s\n", mode);
        return 2;
    }
    if (NULL != v) {
        PMIx_Value_free(v, 1);
    }
    if (PMIX_SUCCESS != PMIx_Finalize(NULL, 0)) {
        fprintf(stderr, "bad: PMIx_Finalize failed\n");
        return 2;
    }
    printf("bad %s: exited normally\n", mode);
    return 0;
}
