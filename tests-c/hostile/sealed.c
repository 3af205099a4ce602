/* sealed: the per-node job-data segment cannot be pulled from under the ranks (issue 20
 * item 5; docs/ROBUSTNESS.md HC12). Run under pmixrun -n 4 with
 * PMIX_RS_JOB_SEGMENT_MIN=0 (every job's table is published) from tests-c/hostile/run.sh.
 *
 * Rank 0 opens each job-data segment of its server through /proc/<pmixrun>/fd/N (as any
 * process of the same user can) and tries to truncate, grow and overwrite it: every
 * attempt must fail with EPERM (the memory file is sealed). Meanwhile ranks 1-3 read
 * every rank's PMIX_LOCAL_RANK (an image value, read in place from the mapping) in a
 * loop; before the seal, a truncation made them die of SIGBUS. All ranks then fence and
 * read once more. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#include "check.h"

static pmix_proc_t me;

/* Every rank's PMIX_LOCAL_RANK, `rounds` times; the number of wrong answers. */
static int read_all(uint32_t size, int rounds)
{
    int bad = 0;
    for (int i = 0; i < rounds; i++)
        for (uint32_t r = 0; r < size; r++) {
            pmix_proc_t p;
            pmix_value_t *v = NULL;
            PMIX_LOAD_PROCID(&p, me.nspace, r);
            pmix_status_t rc = PMIx_Get(&p, PMIX_LOCAL_RANK, NULL, 0, &v);
            if (rc != PMIX_SUCCESS || !v || v->type != PMIX_UINT16 || v->data.uint16 != r)
                bad++;
            if (v) PMIX_VALUE_RELEASE(v);
        }
    return bad;
}

/* Try to change every job-data segment pmixrun holds; returns how many were found. */
static int attack(pid_t server, int *changed)
{
    char dir[64], path[384], target[256];
    int found = 0;
    snprintf(dir, sizeof dir, "/proc/%d/fd", (int)server);
    DIR *d = opendir(dir);
    if (!d) return -1;
    struct dirent *e;
    while ((e = readdir(d))) {
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        ssize_t n = readlink(path, target, sizeof target - 1);
        if (n <= 0) continue;
        target[n] = '\0';
        if (strncmp(target, "/memfd:pmix-jobdata.", 20) != 0) continue;
        found++;
        int fd = open(path, O_RDWR);
        if (fd < 0) {
            printf("# %s (%s): open: %s\n", path, target, strerror(errno));
            continue;
        }
        off_t len = lseek(fd, 0, SEEK_END);
        int t = ftruncate(fd, 0), te = errno;
        int g = ftruncate(fd, len + (1 << 20)), ge = errno;
        ssize_t w = pwrite(fd, "XXXXXXXX", 8, 0);
        int we = errno;
        printf("# %s (%s, %ld bytes): truncate %s, grow %s, write %s\n", path, target,
               (long)len, t ? strerror(te) : "DONE", g ? strerror(ge) : "DONE",
               w < 0 ? strerror(we) : "DONE");
        if (!(t == -1 && te == EPERM && g == -1 && ge == EPERM && w == -1 && we == EPERM))
            (*changed)++;
        close(fd);
    }
    closedir(d);
    return found;
}

int main(void)
{
    CHECK_RC(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS, "PMIx_Init");
    pmix_proc_t wild;
    pmix_value_t *v = NULL;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    CHECK_RC(PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v), PMIX_SUCCESS, "job size");
    uint32_t size = v ? v->data.uint32 : 0;
    if (v) PMIX_VALUE_RELEASE(v);
    CHECK(read_all(size, 1) == 0, "every rank's local rank before");
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "fence before");
    if (me.rank == 0) {
        int changed = 0;
        int found = attack(getppid(), &changed);
        CHECK(found >= 1, "pmixrun holds %d job-data segment(s)", found);
        CHECK(changed == 0, "%d segment(s) could be truncated, grown or written", changed);
    } else {
        /* Reading in place while rank 0 attacks (a SIGBUS would kill this rank). */
        CHECK(read_all(size, 2000) == 0, "2000 rounds of every rank's local rank meanwhile");
    }
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "fence after");
    CHECK(read_all(size, 1) == 0, "every rank's local rank after");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
