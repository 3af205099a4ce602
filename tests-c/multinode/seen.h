/* seen.h - one flag an event handler raises (seen_raise) and a rank waits for with a
 * deadline (seen_wait), for the multinode tests that wait for an event. */
#ifndef MN_SEEN_H
#define MN_SEEN_H

#include <pthread.h>
#include <time.h>

static pthread_mutex_t seen_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t seen_cv = PTHREAD_COND_INITIALIZER;
static int seen_flag = 0;

/* Raise the flag and wake the waiter (from an event handler). */
static inline void seen_raise(void)
{
    pthread_mutex_lock(&seen_mu);
    seen_flag = 1;
    pthread_cond_broadcast(&seen_cv);
    pthread_mutex_unlock(&seen_mu);
}

/* Whether the flag was raised, waiting up to `secs` for it. */
static inline int seen_wait(int secs)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += secs;
    pthread_mutex_lock(&seen_mu);
    while (!seen_flag) {
        if (pthread_cond_timedwait(&seen_cv, &seen_mu, &until) != 0) {
            break;
        }
    }
    int seen = seen_flag;
    pthread_mutex_unlock(&seen_mu);
    return seen;
}

#endif
