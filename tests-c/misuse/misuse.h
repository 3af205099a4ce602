/* Shared helpers of the misuse tests: hostile strings placed right before an
 * inaccessible page, so that any read past them faults at once (normally and under
 * valgrind) instead of silently reading neighbouring memory. */
#ifndef PMIX_TESTS_MISUSE_H
#define PMIX_TESTS_MISUSE_H

#include <pmix.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "check.h"

/* `n` bytes of `fill` ending exactly at a PROT_NONE page; terminated with a NUL as
 * its last byte when `nul` is set (so the string has n-1 characters), otherwise
 * unterminated. Never freed (the tests are short-lived). */
static inline char *guarded(size_t n, char fill, int nul)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t span = ((n + page - 1) / page + 1) * page;
    char *base = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (MAP_FAILED == base) {
        perror("mmap");
        exit(2);
    }
    if (0 != mprotect(base + span - page, page, PROT_NONE)) {
        perror("mprotect");
        exit(2);
    }
    char *p = base + span - page - n;
    memset(p, fill, n);
    if (nul && n > 0) {
        p[n - 1] = '\0';
    }
    return p;
}

/* The hostile key/namespace inputs every test uses. */
struct hostile {
    char *key600;      /* 599 chars + NUL: longer than PMIX_MAX_KEYLEN */
    char *key512;      /* 511 chars + NUL: exactly PMIX_MAX_KEYLEN */
    char *key_nonul;   /* a full pmix_key_t (512 bytes) without NUL */
    char *ns300;       /* 299 chars + NUL: longer than PMIX_MAX_NSLEN */
    char *ns_nonul;    /* a full pmix_nspace_t (256 bytes) without NUL */
    char *empty;       /* "" */
};

static inline struct hostile hostile_inputs(void)
{
    struct hostile h;
    h.key600 = guarded(600, 'k', 1);
    h.key512 = guarded(PMIX_MAX_KEYLEN + 1, 'k', 1);
    h.key_nonul = guarded(PMIX_MAX_KEYLEN + 1, 'k', 0);
    h.ns300 = guarded(300, 'n', 1);
    h.ns_nonul = guarded(PMIX_MAX_NSLEN + 1, 'n', 0);
    h.empty = guarded(1, 0, 1);
    return h;
}

/* The call returned (did not crash) — used for void functions. */
#define SURVIVES(call, ...)                                                 \
    do {                                                                    \
        call;                                                               \
        CHECK(1, __VA_ARGS__);                                              \
    } while (0)

/* A status that is an error (negative), printed on failure. */
#define CHECK_ERR(rc, what)                                                 \
    CHECK((rc) < 0, "%s: error status %d (%s)", what, (int)(rc),            \
          PMIx_Error_string(rc))

#endif
