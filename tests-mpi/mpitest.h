/* Shared helpers for the Open MPI scenarios in tests-mpi/.
 *
 * Every program calls mpitest_check_pmix() after MPI_Init. It proves which libpmix served
 * this process and the PMIx server that hosts it, by reading /proc/<pid>/maps:
 *   - this process, and
 *   - its PMIx server: the parent when that is mpirun/orterun/orted (ranks and spawned
 *     children), pmixrun (Open MPI 5 under our launcher) or slurmstepd (srun --mpi=pmix),
 *     else an orted child of ours (an Open MPI 4 singleton forks its own orted; an Open MPI 5
 *     singleton has no server).
 * A process passes when the Open MPI file that links libpmix is mapped (so PMIx is really in
 * use, not silently dropped as with LD_BIND_NOW and a missing symbol): Open MPI 4's plugin
 * mca_pmix_ext3x.so, or Open MPI 5's libopen-pal.so (no plugin: it links libpmix.so.2
 * itself). And every mapped libpmix.so* must be the file named by MPITEST_PMIX_LIB (an
 * absolute path without symlinks; the driver resolves it). Without MPITEST_PMIX_LIB the
 * paths are only printed. pmixrun carries its PMIx server inside its own executable: it
 * passes when every libpmix.so* it maps (LD_PRELOAD maps ours, LD_LIBRARY_PATH none) is
 * MPITEST_PMIX_LIB and, if MPITEST_SERVER_EXE is set, /proc/<pid>/exe is that file.
 * slurmstepd is no Open MPI process, and Slurm's plugin dlopen()s Debian's libpmix by its
 * absolute path even when ours is preloaded (the preloaded one binds the calls): there the
 * wanted library must be one of those mapped.
 * PRRTE's prterun/prted (Open MPI 5's launcher) and slurmstepd may run another library
 * than the ranks (a site's OpenPMIx server, our client): with MPITEST_SERVER_PMIX_LIB set,
 * such a server must map exactly that libpmix (not the ranks'), and its environment is
 * not checked against MPITEST_ENV (what swapped the ranks' library in must not reach it).
 * MPITEST_ENV may list NAME=VALUE entries separated by spaces; each must be in the
 * environment of this process and of its server (proves that LD_PRELOAD, LD_LIBRARY_PATH,
 * LD_BIND_NOW or an exported PMIX_MCA_* variable reached every orted and rank). */
#ifndef MPITEST_H
#define MPITEST_H

#include <dirent.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "check.h"

#define MPITEST_PATH 4096

/* The file of Open MPI that links libpmix.so.2 (a prefix of its base name). */
#if defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5
#define MPITEST_PMIX_USER "libopen-pal.so"
#else
#define MPITEST_PMIX_USER "mca_pmix_ext3x.so"
#endif

/* Read /proc/<pid>/comm into buf (without the newline); empty string on failure. */
static void mpitest_comm(pid_t pid, char *buf, size_t len)
{
    char path[64];
    buf[0] = '\0';
    snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return;
    if (fgets(buf, (int)len, f) == NULL)
        buf[0] = '\0';
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
}

static pid_t mpitest_ppid_of(pid_t pid)
{
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    pid_t ppid = -1;
    if (fgets(line, sizeof line, f) != NULL) {
        /* "pid (comm) state ppid ..."; comm may hold spaces, so start after the last ')'. */
        char *p = strrchr(line, ')');
        char state;
        int pp;
        if (p != NULL && sscanf(p + 1, " %c %d", &state, &pp) == 2)
            ppid = (pid_t)pp;
    }
    fclose(f);
    return ppid;
}

static int mpitest_is_server_comm(const char *comm)
{
    return strcmp(comm, "mpirun") == 0 || strcmp(comm, "orterun") == 0 ||
           strcmp(comm, "mpiexec") == 0 || strcmp(comm, "orted") == 0 ||
           strcmp(comm, "pmixrun") == 0 || strcmp(comm, "slurmstepd") == 0 ||
           strcmp(comm, "prterun") == 0 || strcmp(comm, "prted") == 0;
}

/* Scan /proc/<pid>/maps: record the libpmix.so* files mapped (distinct, comma separated)
 * and whether MPITEST_PMIX_USER is mapped. Returns 0, or -1 if maps cannot be read. */
static int mpitest_scan_maps(pid_t pid, char *libs, size_t libs_len, int *ext3x)
{
    char path[64], line[MPITEST_PATH + 256];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    libs[0] = '\0';
    *ext3x = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        char *file = strchr(line, '/');
        if (file == NULL)
            continue;
        const char *base = strrchr(file, '/') + 1;
        if (strncmp(base, MPITEST_PMIX_USER, strlen(MPITEST_PMIX_USER)) == 0)
            *ext3x = 1;
        if (strncmp(base, "libpmix.so", 10) != 0)
            continue;
        /* Skip a path already listed (each file is mapped several times). */
        size_t n = strlen(file);
        const char *hit = strstr(libs, file);
        if (hit != NULL && (hit[n] == '\0' || hit[n] == ','))
            continue;
        if (strlen(libs) + n + 2 < libs_len) {
            if (libs[0] != '\0')
                strcat(libs, ",");
            strcat(libs, file);
        }
    }
    fclose(f);
    return 0;
}

/* Does /proc/<pid>/environ hold the exact entry "NAME=VALUE"? */
static int mpitest_env_has(pid_t pid, const char *entry)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    for (size_t i = 0; i < n; i += strlen(buf + i) + 1)
        if (strcmp(buf + i, entry) == 0)
            return 1;
    return 0;
}

/* pmixrun's executable is MPITEST_SERVER_EXE (an absolute path without symlinks), if set. */
static void mpitest_check_exe(int rank, pid_t pid)
{
    const char *want = getenv("MPITEST_SERVER_EXE");
    char path[64], exe[MPITEST_PATH] = "";
    snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
    ssize_t n = readlink(path, exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    printf("pmixserver rank=%d who=pmixrun pid=%d exe=%s\n", rank, (int)pid, exe);
    if (want != NULL && want[0] != '\0')
        CHECK(strcmp(exe, want) == 0, "rank %d: pmixrun pid %d is %s (want %s)", rank,
              (int)pid, exe, want);
}

/* Is `item` one of the entries of the comma-separated `list`? */
static int mpitest_listed(const char *list, const char *item)
{
    size_t n = strlen(item);
    for (const char *p = list; (p = strstr(p, item)) != NULL; p += n)
        if ((p == list || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
            return 1;
    return 0;
}

/* Check one process; prints "pmixlib" lines that the driver counts. */
static void mpitest_check_one(int rank, const char *who, pid_t pid)
{
    const char *want = getenv("MPITEST_PMIX_LIB");
    char libs[MPITEST_PATH * 2];
    int ext3x = 0;
    int rc = mpitest_scan_maps(pid, libs, sizeof libs, &ext3x);
    CHECK(rc == 0, "rank %d: read maps of %s pid %d", rank, who, (int)pid);
    if (rc != 0)
        return;
    printf("pmixlib rank=%d who=%s pid=%d ext3x=%d lib=%s\n", rank, who, (int)pid, ext3x,
           libs[0] ? libs : "(none)");
    /* pmixrun hosts its server in its own executable: no libpmix needs to be mapped. */
    int launcher = strcmp(who, "pmixrun") == 0;
    int stepd = strcmp(who, "slurmstepd") == 0;
    int prte = strcmp(who, "prterun") == 0 || strcmp(who, "prted") == 0;
    const char *other = getenv("MPITEST_SERVER_PMIX_LIB");
    if ((stepd || prte) && other != NULL && other[0] != '\0') {
        CHECK(strcmp(libs, other) == 0, "rank %d: server %s pid %d uses libpmix %s (want %s)",
              rank, who, (int)pid, libs[0] ? libs : "(none)", other);
        return;
    }
    if (launcher)
        mpitest_check_exe(rank, pid);
    else if (!stepd && !prte)
        CHECK(ext3x, "rank %d: %s pid %d has %s mapped", rank, who, (int)pid,
              MPITEST_PMIX_USER);
    if (want != NULL && want[0] != '\0' && !(launcher && libs[0] == '\0'))
        CHECK(stepd ? mpitest_listed(libs, want) : strcmp(libs, want) == 0,
              "rank %d: %s pid %d uses libpmix %s (want %s)", rank, who, (int)pid,
              libs[0] ? libs : "(none)", want);
    /* slurmstepd's /proc/<pid>/environ is its process title (setproctitle writes over
     * the original environment): its maps above are the proof. */
    if (stepd)
        return;
    const char *env = getenv("MPITEST_ENV");
    char list[MPITEST_PATH];
    snprintf(list, sizeof list, "%s", env != NULL ? env : "");
    char *save = NULL;
    for (char *e = strtok_r(list, " ", &save); e != NULL; e = strtok_r(NULL, " ", &save))
        CHECK(mpitest_env_has(pid, e), "rank %d: %s pid %d environment has %s", rank, who,
              (int)pid, e);
}

/* Find an orted whose parent is us (the singleton case). */
static pid_t mpitest_find_child_orted(void)
{
    pid_t me = getpid();
    DIR *d = opendir("/proc");
    if (d == NULL)
        return -1;
    pid_t found = -1;
    struct dirent *e;
    while (found < 0 && (e = readdir(d)) != NULL) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end != '\0' || pid <= 0)
            continue;
        char comm[64];
        mpitest_comm((pid_t)pid, comm, sizeof comm);
        if (strcmp(comm, "orted") == 0 && mpitest_ppid_of((pid_t)pid) == me)
            found = (pid_t)pid;
    }
    closedir(d);
    return found;
}

/* Check this process and its PMIx server. Call after MPI_Init. */
static void mpitest_check_pmix(int rank)
{
    mpitest_check_one(rank, "self", getpid());
    pid_t ppid = getppid();
    char comm[64];
    mpitest_comm(ppid, comm, sizeof comm);
    if (mpitest_is_server_comm(comm)) {
        mpitest_check_one(rank, comm, ppid);
        return;
    }
#if defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5
    /* An Open MPI 5 singleton starts no server: PMIx_Init runs without one. */
    printf("pmixserver rank=%d who=none parent=%s\n", rank, comm);
    return;
#endif
    pid_t orted = mpitest_find_child_orted();
    CHECK(orted > 0, "rank %d: PMIx server found (parent is '%s', no orted child)", rank,
          comm);
    if (orted > 0)
        mpitest_check_one(rank, "orted-child", orted);
}

#endif
