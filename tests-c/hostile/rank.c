/* rank: the well-behaved side of the hostile/resource/hygiene tests (issue 10, parts 2,
 * 5 and 6), run under pmixrun (see tests-c/hostile/run.sh).
 *
 *   rank attacks     2 ranks. After a first fence, rank 0 runs `hostile_peer attacks`
 *                    (and, as root, `hostile_peer uid-fs`/`uid-cred` as user nobody)
 *                    against the job's own server while rank 1 keeps reading rank 0's
 *                    data from the server; then both read, fence and finalize.
 *   rank flood       ranks 0 and 1 of a job whose rank 2 is `hostile_peer flood`: fences
 *                    among themselves while rank 2 floods, whole-job fences around it.
 *   rank cycles N    N PMIx_Init/PMIx_Finalize cycles (also as a singleton): no growth of
 *                    this process's descriptors, threads, memory, nor pmixrun's.
 *   rank tiny        Init, Put, Commit, Finalize (many short-lived ranks).
 *   rank hygiene     the rendezvous directory and socket are private, no abstract or
 *                    network socket belongs to the job or its launcher but the OpenPMIx
 *                    listener on 127.0.0.1.
 *   rank victim DIR  Init, write its pid to DIR/<rank>, then wait in a Get nobody
 *                    answers (until pmixrun, SIGKILLed by the test, takes it along).
 *
 * Environment: HOSTILE_PEER (path of hostile_peer, for "attacks"). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

#include "check.h"
#include "hostile/procfs.h"

static pmix_proc_t me;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void put_rank_key(const char *key, uint32_t v)
{
    pmix_value_t val;
    PMIX_VALUE_LOAD(&val, &v, PMIX_UINT32);
    CHECK_RC(PMIx_Put(PMIX_GLOBAL, key, &val), PMIX_SUCCESS, "Put");
    PMIX_VALUE_DESTRUCT(&val);
}

/* Read `key` of `rank` (with PMIX_GET_REFRESH_CACHE when `refresh`, so the request goes to
 * the server) and compare it with `want`. */
static bool get_is(pmix_rank_t rank, const char *key, uint32_t want, bool refresh)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    pmix_info_t info;
    bool t = true;
    PMIX_LOAD_PROCID(&p, me.nspace, rank);
    PMIX_INFO_LOAD(&info, PMIX_GET_REFRESH_CACHE, &t, PMIX_BOOL);
    pmix_status_t rc = PMIx_Get(&p, key, refresh ? &info : NULL, refresh ? 1 : 0, &v);
    bool ok = rc == PMIX_SUCCESS && v && v->type == PMIX_UINT32 && v->data.uint32 == want;
    if (!ok)
        printf("# Get %s of rank %u: rc %d type %d\n", key, rank, rc, v ? (int)v->type : -1);
    if (v) PMIX_VALUE_RELEASE(v);
    PMIX_INFO_DESTRUCT(&info);
    return ok;
}

static pmix_status_t fence_all(void)
{
    pmix_info_t info;
    bool t = true;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &t, PMIX_BOOL);
    pmix_status_t rc = PMIx_Fence(NULL, 0, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    return rc;
}

/* Run argv; its exit status (or 128+signal, or -1). */
static int run(char *const argv[])
{
    pid_t pid = fork();
    int st = 0;
    if (pid < 0) return -1;
    if (pid == 0) {
        execvp(argv[0], argv);
        _exit(127);
    }
    if (waitpid(pid, &st, 0) != pid) return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int init_or_die(void)
{
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    CHECK_RC(rc, PMIX_SUCCESS, "PMIx_Init");
    return rc == PMIX_SUCCESS;
}

/* ------------------------------------------------------------------ attacks */

static int attacks(void)
{
    const char *peer = getenv("HOSTILE_PEER");
    if (!init_or_die()) CHECK_DONE();
    CHECK(peer != NULL, "HOSTILE_PEER is set");
    put_rank_key("hostile.k", 100 + me.rank);
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit");
    CHECK_RC(fence_all(), PMIX_SUCCESS, "fence before the attacks");

    if (me.rank == 0 && peer) {
        char pid[32];
        snprintf(pid, sizeof pid, "%d", (int)getppid());
        char *const a[] = {(char *)peer, "attacks", pid, NULL};
        CHECK_RC(run(a), 0, "hostile_peer attacks (its checks are above)");
        if (geteuid() == 0 && access("/usr/bin/setpriv", X_OK) == 0) {
            /* Another user cannot even reach the socket (the directory is private)... */
            char *const b[] = {"setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                               (char *)peer, "uid-fs", NULL};
            CHECK_RC(run(b), 0, "hostile_peer uid-fs as nobody");
            /* ...and one that can (CAP_DAC_OVERRIDE) is refused by the server's uid check,
             * even claiming a rank whose connection is live. */
            char *const c[] = {"setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                               "--inh-caps=+dac_override", "--ambient-caps=+dac_override",
                               (char *)peer, "uid-cred", "1", NULL};
            CHECK_RC(run(c), 0, "hostile_peer uid-cred as nobody with CAP_DAC_OVERRIDE");
        } else {
            printf("SKIP wrong-uid clients: not root or no setpriv (euid %d)\n", (int)geteuid());
        }
    } else {
        /* Meanwhile, reads that go to the server keep working. */
        int bad = 0;
        for (int i = 0; i < 100; i++) {
            if (!get_is(0, "hostile.k", 100, true)) bad++;
            usleep(20000);
        }
        CHECK(bad == 0, "100 server Gets during the attacks: %d failed", bad);
    }
    CHECK(get_is(1 - me.rank, "hostile.k", 101 - me.rank, true), "peer's key after the attacks");
    CHECK_RC(fence_all(), PMIX_SUCCESS, "fence after the attacks");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}

/* ------------------------------------------------------------------ flood */

static int flood(void)
{
    if (!init_or_die()) CHECK_DONE();
    put_rank_key("hostile.k", 100 + me.rank);
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit");
    CHECK_RC(fence_all(), PMIX_SUCCESS, "whole-job fence before the flood");
    /* Fences between the two good ranks while rank 2 floods, each with new data. */
    pmix_proc_t two[2];
    PMIX_LOAD_PROCID(&two[0], me.nspace, 0);
    PMIX_LOAD_PROCID(&two[1], me.nspace, 1);
    int bad = 0;
    double t0 = now_s(), worst = 0;
    for (uint32_t i = 0; i < 150; i++) {
        double a = now_s();
        {
            char key[64];
            snprintf(key, sizeof key, "hostile.iter.%u", i);
            put_rank_key(key, i * 10 + me.rank);
        }
        if (PMIx_Commit() != PMIX_SUCCESS) bad++;
        pmix_info_t info;
        bool t = true;
        PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &t, PMIX_BOOL);
        if (PMIx_Fence(two, 2, &info, 1) != PMIX_SUCCESS) bad++;
        PMIX_INFO_DESTRUCT(&info);
        {
            char key[64];
            snprintf(key, sizeof key, "hostile.iter.%u", i);
            if (!get_is(1 - me.rank, key, i * 10 + 1 - me.rank, false)) bad++;
        }
        if (now_s() - a > worst) worst = now_s() - a;
        usleep(20000);
    }
    CHECK(bad == 0, "150 put/commit/fence/get rounds between ranks 0 and 1 during the flood: "
          "%d failed (%.2f s, slowest %.3f s)", bad, now_s() - t0, worst);
    CHECK_RC(fence_all(), PMIX_SUCCESS, "whole-job fence after the flood");
    CHECK(get_is(1 - me.rank, "hostile.k", 101 - me.rank, false), "peer's key after the flood");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}

/* ------------------------------------------------------------------ cycles */

/* Wait (up to 5 s) until this process has at most `threads` threads: a progress thread
 * that was told to stop may take a moment to be gone from /proc. */
static usage_t settle(long threads)
{
    usage_t u = usage_of(0);
    for (int i = 0; i < 500 && u.threads > threads; i++) {
        usleep(10000);
        u = usage_of(0);
    }
    return u;
}

static int cycles(int n)
{
    bool singleton = getenv("PMIX_NAMESPACE") == NULL;
    pid_t server = singleton ? 0 : getppid();
    usage_t start = usage_of(0), warm = start, srv_warm = {0, 0, 0, 0};
    int warmup = n / 10, failed = 0;
    double t0 = now_s();
    print_usage("before the first PMIx_Init", start);
    for (int i = 0; i < n; i++) {
        pmix_proc_t p;
        /* a singleton's Init says PMIX_ERR_UNREACH (no server), as OpenPMIx's */
        if (PMIx_Init(&p, NULL, 0) != (singleton ? PMIX_ERR_UNREACH : PMIX_SUCCESS)) {
            failed++;
            continue;
        }
        if (i == 0) me = p;
        if (!PMIX_CHECK_PROCID(&p, &me)) failed++;
        if (i % 100 == 0) {
            put_rank_key("hostile.cycle", (uint32_t)i);
            if (PMIx_Commit() != PMIX_SUCCESS) failed++;
        }
        if (PMIx_Finalize(NULL, 0) != PMIX_SUCCESS) failed++;
        if (i + 1 == warmup) {
            warm = settle(start.threads);
            print_usage("after the warm-up cycles", warm);
            if (server) {
                srv_warm = usage_of(server);
                print_usage("pmixrun after the warm-up cycles", srv_warm);
            }
        }
    }
    double dt = now_s() - t0;
    usage_t end = settle(start.threads);
    print_usage("after the last cycle", end);
    CHECK(failed == 0, "%d Init/Finalize cycles (%s) in %.2f s: %d failures", n,
          singleton ? "singleton" : "under pmixrun", dt, failed);
    CHECK(!PMIx_Initialized(), "not initialized at the end");
    CHECK(end.fds == start.fds, "descriptors: %ld before, %ld after", start.fds, end.fds);
    CHECK(end.threads == start.threads, "threads: %ld before, %ld after", start.threads,
          end.threads);
    CHECK(end.rss_kb - warm.rss_kb < 2048,
          "VmRSS after warm-up %ld KiB, at the end %ld KiB (limit +2 MiB)", warm.rss_kb,
          end.rss_kb);
    if (server) {
        usage_t s = usage_of(server);
        print_usage("pmixrun at the end", s);
        /* The other rank may be connected at one sample and not at the other. */
        CHECK(s.fds <= srv_warm.fds + 2,
              "pmixrun descriptors %ld after warm-up, %ld at the end (slack 2)", srv_warm.fds,
              s.fds);
        CHECK(s.threads <= srv_warm.threads, "pmixrun threads %ld after warm-up, %ld at the end",
              srv_warm.threads, s.threads);
        CHECK(s.rss_kb - srv_warm.rss_kb < 4096,
              "pmixrun VmRSS %ld KiB after warm-up, %ld KiB at the end (limit +4 MiB)",
              srv_warm.rss_kb, s.rss_kb);
    }
    CHECK_DONE();
}

/* ------------------------------------------------------------------ tiny */

static int tiny(void)
{
    /* Quiet on success: a thousand of these share one terminal. */
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf("FAIL tiny: PMIx_Init %d\n", rc);
        return 1;
    }
    pmix_value_t val;
    uint32_t v = me.rank;
    PMIX_VALUE_LOAD(&val, &v, PMIX_UINT32);
    rc = PMIx_Put(PMIX_GLOBAL, "tiny", &val);
    if (rc == PMIX_SUCCESS) rc = PMIx_Commit();
    pmix_status_t rc2 = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS || rc2 != PMIX_SUCCESS) {
        printf("FAIL tiny rank %u: %d %d\n", me.rank, rc, rc2);
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------ hygiene */

static void check_private(const char *what, const char *path, mode_t type)
{
    struct stat st;
    int rc = lstat(path, &st);
    CHECK(rc == 0, "%s %s exists", what, path);
    if (rc != 0) return;
    CHECK((st.st_mode & S_IFMT) == type, "%s is a %s", what, type == S_IFDIR ? "directory" : "socket");
    CHECK(st.st_uid == geteuid(), "%s is owned by uid %d (file: %d)", what, (int)geteuid(),
          (int)st.st_uid);
    CHECK((st.st_mode & 077) == 0, "%s has no group/other permission (mode %04o)", what,
          (unsigned)(st.st_mode & 07777));
}

/* Socket inodes of `pid`'s descriptors, appended to set[*n]. */
static void socket_inodes(pid_t pid, unsigned long *set, int *n, int max)
{
    char dir[64], path[512], link[128];
    DIR *d;
    struct dirent *e;
    snprintf(dir, sizeof dir, "/proc/%d/fd", (int)pid);
    if (!(d = opendir(dir))) return;
    while ((e = readdir(d)) && *n < max) {
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        ssize_t l = readlink(path, link, sizeof link - 1);
        if (l <= 0) continue;
        link[l] = 0;
        unsigned long ino;
        if (sscanf(link, "socket:[%lu]", &ino) == 1) set[(*n)++] = ino;
    }
    closedir(d);
}

static bool in_set(unsigned long ino, const unsigned long *set, int n)
{
    for (int i = 0; i < n; i++)
        if (set[i] == ino) return true;
    return false;
}

/* The comm name of `pid`. */
static void comm_of(pid_t pid, char *out, size_t len)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
    FILE *f = fopen(path, "r");
    out[0] = 0;
    if (f) {
        if (fgets(out, (int)len, f)) out[strcspn(out, "\n")] = 0;
        fclose(f);
    }
}

static pid_t parent_of(pid_t pid)
{
    char path[64], line[256];
    pid_t pp = 0;
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "PPid: %d", &pp) == 1) break;
    fclose(f);
    return pp;
}

static int hygiene(void)
{
    if (!init_or_die()) CHECK_DONE();
    const char *uri = getenv("PMIX_RS_SERVER_URI");
    const char *p = uri ? strstr(uri, ";unix:") : NULL;
    CHECK(p != NULL, "PMIX_RS_SERVER_URI names a unix socket: %s", uri ? uri : "(unset)");
    char sock[4096] = "";
    if (p) snprintf(sock, sizeof sock, "%s", p + 6);
    if (sock[0]) {
        char t1[4096], t2[4096], d1[4096], d2[4096];
        snprintf(t1, sizeof t1, "%s", sock);
        snprintf(d1, sizeof d1, "%s", dirname(t1));
        snprintf(t2, sizeof t2, "%s", d1);
        snprintf(d2, sizeof d2, "%s", dirname(t2));
        check_private("rendezvous socket", sock, S_IFSOCK);
        check_private("rendezvous directory", d1, S_IFDIR);
        check_private("per-user directory", d2, S_IFDIR);
    }
    /* The job's scratch tree. */
    const char *keys[] = {PMIX_TMPDIR, PMIX_NSDIR, PMIX_PROCDIR};
    for (int i = 0; i < 3; i++) {
        pmix_proc_t q;
        pmix_value_t *v = NULL;
        PMIX_LOAD_PROCID(&q, me.nspace, i == 2 ? me.rank : PMIX_RANK_WILDCARD);
        pmix_status_t rc = PMIx_Get(&q, keys[i], NULL, 0, &v);
        CHECK(rc == PMIX_SUCCESS && v && v->type == PMIX_STRING, "Get %s", keys[i]);
        if (rc == PMIX_SUCCESS && v && v->type == PMIX_STRING)
            check_private(keys[i], v->data.string, S_IFDIR);
        if (v) PMIX_VALUE_RELEASE(v);
    }

    /* Sockets of this rank and of every pmixrun above it (front end, node daemon). */
    static unsigned long set[65536];
    int n = 0, launchers = 0;
    socket_inodes(getpid(), set, &n, 65536);
    int own = n;
    pid_t front = 0;
    for (pid_t pp = getppid(); pp > 1; pp = parent_of(pp)) {
        char comm[64];
        comm_of(pp, comm, sizeof comm);
        if (strcmp(comm, "pmixrun") != 0) break;
        socket_inodes(pp, set, &n, 65536);
        launchers++;
        front = pp;
    }
    /* Under --nodes K the servers live in node daemons, children of the front end. */
    DIR *procs = front ? opendir("/proc") : NULL;
    struct dirent *e;
    while (procs && (e = readdir(procs))) {
        pid_t q = (pid_t)atoi(e->d_name);
        char comm[64];
        if (q <= 1 || q == getppid() || parent_of(q) != front) continue;
        comm_of(q, comm, sizeof comm);
        if (strcmp(comm, "pmixrun") != 0) continue;
        socket_inodes(q, set, &n, 65536);
        launchers++;
    }
    if (procs) closedir(procs);
    CHECK(own > 0 && launchers > 0 && n > own,
          "found %d sockets of this rank and %d of %d pmixrun process(es)", own, n - own, launchers);
    /* Unix sockets: the listener is the one in the private directory, none is abstract. */
    FILE *f = fopen("/proc/net/unix", "r");
    char line[4096];
    int listener_seen = 0, abstract = 0;
    CHECK(f != NULL, "read /proc/net/unix");
    while (f && fgets(line, sizeof line, f)) {
        unsigned long ino;
        char path[4096] = "";
        if (sscanf(line, "%*s %*s %*s %*s %*s %*s %lu %4095s", &ino, path) < 1) continue;
        if (!in_set(ino, set, n)) continue;
        if (path[0] == '@') {
            abstract++;
            printf("# abstract socket %s (inode %lu)\n", path, ino);
        }
        if (sock[0] && 0 == strcmp(path, sock)) listener_seen++;
    }
    if (f) fclose(f);
    CHECK(abstract == 0, "no abstract unix socket (they ignore file permissions): %d", abstract);
    CHECK(listener_seen >= 1, "the server listens on %s", sock);
    /* Network sockets: none but the OpenPMIx (v41) listener, a TCP socket listening on
     * 127.0.0.1 only (state 0A, local address 0100007F). */
    const char *nets[] = {"tcp", "tcp6", "udp", "udp6", "udplite", "udplite6", "raw", "raw6"};
    int network = 0, tables = 0, loopback_listeners = 0;
    for (size_t i = 0; i < sizeof nets / sizeof nets[0]; i++) {
        char path[64];
        snprintf(path, sizeof path, "/proc/net/%s", nets[i]);
        if (!(f = fopen(path, "r"))) continue;
        tables++;
        if (!fgets(line, sizeof line, f)) line[0] = 0; /* header */
        while (fgets(line, sizeof line, f)) {
            unsigned long ino;
            char local[64] = "", st[8] = "";
            if (sscanf(line, "%*s %63s %*s %7s %*s %*s %*s %*s %*s %lu", local, st, &ino) != 3)
                continue;
            if (!in_set(ino, set, n)) continue;
            if (0 == i && 0 == strcmp(st, "0A") && 0 == strncmp(local, "0100007F:", 9)) {
                loopback_listeners++;
            } else {
                network++;
                printf("# %s socket of the job: %s", nets[i], line);
            }
        }
        fclose(f);
    }
    CHECK(tables >= 2 && network == 0,
          "no TCP/UDP/raw socket but loopback listeners (%d) in %d tables belongs to the job: %d",
          loopback_listeners, tables, network);
    CHECK_RC(fence_all(), PMIX_SUCCESS, "fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}

/* ------------------------------------------------------------------ victim */

static int victim(const char *dir)
{
    if (!init_or_die()) CHECK_DONE();
    char path[4096];
    snprintf(path, sizeof path, "%s/%u", dir, me.rank);
    FILE *f = fopen(path, "w");
    if (f) {
        fprintf(f, "%d\n", (int)getpid());
        fclose(f);
    }
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    PMIX_LOAD_PROCID(&p, me.nspace, 1 - me.rank);
    /* Nobody puts this key: the Get waits until the server is gone. */
    pmix_status_t rc = PMIx_Get(&p, "hostile.never", NULL, 0, &v);
    /* Not reached when pmixrun is SIGKILLed: its ranks die with it (PDEATHSIG). */
    printf("# victim rank %u: Get returned %d\n", me.rank, rc);
    return 1;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (0 == strcmp(mode, "attacks")) return attacks();
    if (0 == strcmp(mode, "flood")) return flood();
    if (0 == strcmp(mode, "cycles")) return cycles(argc > 2 ? atoi(argv[2]) : 1000);
    if (0 == strcmp(mode, "tiny")) return tiny();
    if (0 == strcmp(mode, "hygiene")) return hygiene();
    if (0 == strcmp(mode, "victim") && argc > 2) return victim(argv[2]);
    fprintf(stderr, "usage: rank attacks|flood|cycles N|tiny|hygiene|victim DIR\n");
    return 2;
}
