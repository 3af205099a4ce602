/* Tiny test harness for the C tests: one ok/FAIL line per check; the exit status is
 * the verdict (0 = every check passed). */
#ifndef PMIX_TESTS_CHECK_H
#define PMIX_TESTS_CHECK_H

#include <stdio.h>
#include <stdlib.h>

static int check_failures = 0;
static int check_count = 0;

#define CHECK(cond, ...)                                                    \
    do {                                                                    \
        check_count++;                                                      \
        if (cond) {                                                         \
            printf("ok   %s:%d ", __FILE__, __LINE__);                      \
        } else {                                                            \
            check_failures++;                                               \
            printf("FAIL %s:%d (%s) ", __FILE__, __LINE__, #cond);          \
        }                                                                   \
        printf(__VA_ARGS__);                                                \
        printf("\n");                                                       \
        fflush(stdout);                                                     \
    } while (0)

/* Compare two statuses and print both on failure. `rc` is evaluated exactly once, so
 * it may be the call itself: CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "..."). */
#define CHECK_RC(rc, want, what)                                            \
    do {                                                                    \
        int check_rc_got_ = (int)(rc);                                      \
        int check_rc_want_ = (int)(want);                                   \
        CHECK(check_rc_got_ == check_rc_want_, "%s: got %d want %d", what,  \
              check_rc_got_, check_rc_want_);                               \
    } while (0)

#define CHECK_DONE()                                                        \
    do {                                                                    \
        printf("%s: %d checks, %d failed\n", __FILE__, check_count,         \
               check_failures);                                             \
        return check_failures ? 1 : 0;                                      \
    } while (0)

#endif
