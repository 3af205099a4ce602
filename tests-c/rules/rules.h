/* Shared helpers of the rule tests (tests-c/rules): each program pins rules of the
 * PMIx_Get / PMIx_Put / PMIx_Commit / PMIx_Fence pages and names them in its checks.
 * Everything here is test scaffolding: clocks, a callback waiter, stderr capture, and
 * small Get helpers that check status and type. */
#ifndef PMIX_TESTS_RULES_H
#define PMIX_TESTS_RULES_H

#include <fcntl.h>
#include <pmix.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

__attribute__((unused)) static pmix_proc_t me, job;
__attribute__((unused)) static uint32_t nprocs;

static inline double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static inline void sleep_ms(int ms)
{
    usleep((useconds_t)ms * 1000);
}

/* PMIx_Init and the job size; exits with the verdict if Init fails. */
#define RULES_INIT()                                                                 \
    do {                                                                             \
        /* no server in the environment: a singleton, PMIX_ERR_UNREACH */            \
        pmix_status_t want_rc_ =                                                     \
            getenv("PMIX_NAMESPACE") != NULL ? PMIX_SUCCESS : PMIX_ERR_UNREACH;      \
        pmix_status_t init_rc_ = PMIx_Init(&me, NULL, 0);                            \
        CHECK_RC(init_rc_, want_rc_, "PMIx_Init");                                   \
        if (want_rc_ != init_rc_) {                                                  \
            CHECK_DONE();                                                            \
        }                                                                            \
        PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);                       \
        pmix_value_t *js_ = NULL;                                                    \
        if (PMIX_SUCCESS == PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &js_) && js_) {   \
            nprocs = js_->data.uint32;                                               \
            PMIX_VALUE_RELEASE(js_);                                                 \
        }                                                                            \
    } while (0)

/* A plain barrier over the whole job. */
static inline void barrier(const char *what)
{
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, what);
}

static inline void collect(const char *what)
{
    pmix_info_t info;
    bool yes = true;
    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    CHECK_RC(PMIx_Fence(NULL, 0, &info, 1), PMIX_SUCCESS, what);
    PMIX_INFO_DESTRUCT(&info);
}

static inline void proc_of(pmix_proc_t *p, pmix_rank_t r)
{
    PMIX_LOAD_PROCID(p, me.nspace, r);
}

static inline void flag_info(pmix_info_t *i, const char *key)
{
    bool yes = true;
    PMIX_INFO_CONSTRUCT(i);
    PMIX_INFO_LOAD(i, key, &yes, PMIX_BOOL);
}

static inline void timeout_info(pmix_info_t *i, int secs)
{
    PMIX_INFO_CONSTRUCT(i);
    PMIX_INFO_LOAD(i, PMIX_TIMEOUT, &secs, PMIX_INT);
}

static inline pmix_status_t put_int(pmix_scope_t scope, const char *key, int v)
{
    pmix_value_t val;
    PMIX_VALUE_CONSTRUCT(&val);
    val.type = PMIX_INT;
    val.data.integer = v;
    return PMIx_Put(scope, key, &val);
}

/* Get an int: returns the status; *out holds the value on success (and a wrong type
 * counts as a failure with PMIX_ERR_TYPE_MISMATCH). */
static inline pmix_status_t get_int(const pmix_proc_t *p, const char *key, pmix_info_t *info,
                                    size_t ninfo, int *out)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(p, key, info, ninfo, &v);
    if (PMIX_SUCCESS == rc) {
        if (NULL == v || v->type != PMIX_INT) {
            rc = PMIX_ERR_TYPE_MISMATCH;
        } else {
            *out = v->data.integer;
        }
    }
    if (v) {
        PMIX_VALUE_RELEASE(v);
    }
    return rc;
}

/* ---------------------------------------------------------------- callback waiter */

struct waiter {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int calls;
    pmix_status_t status;
    pmix_value_t *value; /* a copy, for Get_nb */
};

static inline void waiter_init(struct waiter *w)
{
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->cond, NULL);
    w->calls = 0;
    w->status = PMIX_ERROR;
    w->value = NULL;
}

/* Wait up to `secs` for the first callback; true if it came. */
static inline bool waiter_wait(struct waiter *w, int secs)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += secs;
    pthread_mutex_lock(&w->lock);
    while (0 == w->calls) {
        if (0 != pthread_cond_timedwait(&w->cond, &w->lock, &until)) {
            break;
        }
    }
    bool done = w->calls > 0;
    pthread_mutex_unlock(&w->lock);
    return done;
}

static inline int waiter_calls(struct waiter *w)
{
    pthread_mutex_lock(&w->lock);
    int n = w->calls;
    pthread_mutex_unlock(&w->lock);
    return n;
}

static inline void waiter_release(struct waiter *w)
{
    if (w->value) {
        PMIX_VALUE_RELEASE(w->value);
    }
}

static inline void op_done(pmix_status_t status, void *cbdata)
{
    struct waiter *w = cbdata;
    pthread_mutex_lock(&w->lock);
    w->status = status;
    w->calls++;
    pthread_cond_broadcast(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

static inline void value_done(pmix_status_t status, pmix_value_t *kv, void *cbdata)
{
    struct waiter *w = cbdata;
    pthread_mutex_lock(&w->lock);
    w->status = status;
    if (PMIX_SUCCESS == status && kv && NULL == w->value) {
        /* The library owns kv; keep a copy. */
        PMIX_VALUE_CREATE(w->value, 1);
        if (PMIX_SUCCESS != PMIx_Value_xfer(w->value, kv)) {
            PMIX_VALUE_RELEASE(w->value);
        }
    }
    w->calls++;
    pthread_cond_broadcast(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

/* ---------------------------------------------------------------- stderr capture */

/* Send this process's stderr (where the library's PMIX_DEBUG log goes) to a file, so a
 * test can check the diagnostics the library printed. Call before PMIx_Init, together
 * with setenv("PMIX_DEBUG", level, 1). Returns the file's fd (-1 on failure). */
static inline int capture_stderr(void)
{
    char path[] = "/tmp/pmix-rules-stderr-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) {
        return -1;
    }
    unlink(path);
    fflush(stderr);
    if (dup2(fd, 2) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Everything written to the captured stderr so far (malloc'd, NUL-terminated). */
static inline char *captured(int fd)
{
    fflush(stderr);
    off_t end = lseek(fd, 0, SEEK_END);
    if (end < 0) {
        return strdup("");
    }
    char *buf = malloc((size_t)end + 1);
    if (!buf) {
        return strdup("");
    }
    ssize_t n = pread(fd, buf, (size_t)end, 0);
    buf[n > 0 ? n : 0] = '\0';
    return buf;
}

/* Number of lines of the captured stderr that contain both `a` and `b` (b may be NULL). */
static inline int count_lines(const char *text, const char *a, const char *b)
{
    int n = 0;
    const char *line = text;
    while (line && *line) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char *l = strndup(line, len);
        if (l && strstr(l, a) && (NULL == b || strstr(l, b))) {
            n++;
        }
        free(l);
        line = end ? end + 1 : NULL;
    }
    return n;
}

#endif
