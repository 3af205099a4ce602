/* procfs.h: what a process costs, read from /proc (descriptors, threads, memory), for
 * the hostile/resource tests. Header-only; every function is static. */
#ifndef PMIX_TESTS_PROCFS_H
#define PMIX_TESTS_PROCFS_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

typedef struct {
    long fds;     /* entries of /proc/<pid>/fd */
    long threads; /* entries of /proc/<pid>/task */
    long rss_kb;  /* VmRSS */
    long hwm_kb;  /* VmHWM */
} usage_t;

static long count_entries(const char *path)
{
    DIR *d = opendir(path);
    long n = 0;
    struct dirent *e;
    if (!d) return -1;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n;
}

static long status_field(pid_t pid, const char *name)
{
    char path[64], line[256];
    long v = -1;
    size_t len = strlen(name);
    FILE *f;
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    f = fopen(path, "r");
    if (!f) return -1;
    while (fgets(line, sizeof line, f))
        if (0 == strncmp(line, name, len) && line[len] == ':') {
            v = strtol(line + len + 1, NULL, 10);
            break;
        }
    fclose(f);
    return v;
}

/* Usage of `pid` (0 = this process). The opendir of /proc/self/fd costs one descriptor
 * while it is counted; it is subtracted. */
static usage_t usage_of(pid_t pid)
{
    char path[64];
    usage_t u;
    pid_t p = pid ? pid : getpid();
    snprintf(path, sizeof path, "/proc/%d/fd", (int)p);
    u.fds = count_entries(path) - (pid == 0 ? 1 : 0);
    snprintf(path, sizeof path, "/proc/%d/task", (int)p);
    u.threads = count_entries(path);
    u.rss_kb = status_field(p, "VmRSS");
    u.hwm_kb = status_field(p, "VmHWM");
    return u;
}

static void print_usage(const char *what, usage_t u)
{
    printf("# %s: fds %ld threads %ld VmRSS %ld KiB VmHWM %ld KiB\n", what, u.fds, u.threads,
           u.rss_kb, u.hwm_kb);
    fflush(stdout);
}

#endif
