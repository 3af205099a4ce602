/* halfframe: a client that disconnects in the middle of a message must cost the server
 * nothing but that connection. Run: pmixrun --enable-recovery -n 3 halfframe
 *
 * Rank 1 first opens raw connections to the server's socket and closes each one in
 * the middle of a frame (half a length prefix; a length announcing 100 bytes followed
 * by 40; a length above the protocol's limit). Then, connected normally through
 * PMIx_Init, it writes half a frame into its own library's connection to the server
 * and exits without PMIx_Finalize. Ranks 0 and 2 exchange data through the server
 * before, during and after that, hear PMIX_ERR_PROC_TERM_WO_SYNC about rank 1, and
 * finish normally. pmixrun reports rank 1 and exits with status 1. */
#include "dynamic/dyn.h"

#include <stdint.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <dirent.h>
#include <unistd.h>

static struct waiter ev;
static pmix_proc_t ev_affected;

static void handler(size_t id, pmix_status_t status, const pmix_proc_t *source,
                    pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)source;
    (void)results;
    (void)nresults;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) &&
            PMIX_PROC == info[i].value.type && info[i].value.data.proc) {
            ev_affected = *info[i].value.data.proc;
        }
    }
    waiter_done(&ev, status);
    if (cbfunc) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

/* The server's socket path, from the URI the launcher gave us ("...;unix:<path>"). */
static bool server_path(struct sockaddr_un *sa)
{
    const char *uri = getenv("PMIX_RS_SERVER_URI");
    const char *p = uri ? strstr(uri, ";unix:") : NULL;
    if (!p || strlen(p + 6) >= sizeof sa->sun_path) {
        return false;
    }
    memset(sa, 0, sizeof *sa);
    sa->sun_family = AF_UNIX;
    strcpy(sa->sun_path, p + 6);
    return true;
}

/* Connect to the server, write `n` bytes of `bytes`, close. */
static bool raw_send(const struct sockaddr_un *sa, const void *bytes, size_t n)
{
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0) {
        return false;
    }
    bool ok = 0 == connect(fd, (const struct sockaddr *)sa, sizeof *sa) &&
              (ssize_t)n == write(fd, bytes, n);
    close(fd);
    return ok;
}

/* The descriptor of our library's connection to the server: a socket whose peer is the
 * server's path. */
static int library_fd(const struct sockaddr_un *sa)
{
    DIR *d = opendir("/proc/self/fd");
    int found = -1;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        int fd = atoi(e->d_name);
        struct stat st;
        struct sockaddr_un peer;
        socklen_t len = sizeof peer;
        if (fd < 0 || e->d_name[0] == '.' || fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode)) {
            continue;
        }
        memset(&peer, 0, sizeof peer);
        if (0 == getpeername(fd, (struct sockaddr *)&peer, &len) && AF_UNIX == peer.sun_family &&
            0 == strcmp(peer.sun_path, sa->sun_path)) {
            found = fd;
        }
    }
    if (d) {
        closedir(d);
    }
    return found;
}

static void hostile(void)
{
    struct sockaddr_un sa;
    CHECK(server_path(&sa), "the server's socket path from PMIX_RS_SERVER_URI");
    unsigned char buf[64];
    memset(buf, 0x5a, sizeof buf);
    /* half of a length prefix */
    uint32_t len = 100;
    memcpy(buf, &len, 4);
    CHECK(raw_send(&sa, buf, 2), "raw connection: 2 bytes of a length, then close");
    /* a length of 100, then 40 bytes of body */
    CHECK(raw_send(&sa, buf, 44), "raw connection: 44 of 104 bytes, then close");
    /* a length above the limit */
    len = 0xfffffff0u;
    memcpy(buf, &len, 4);
    CHECK(raw_send(&sa, buf, 16), "raw connection: an over-long length, then close");
    /* Our own, accepted connection: half a frame, then the process ends. */
    int fd = library_fd(&sa);
    CHECK(fd >= 0, "found the library's connection to the server (fd %d)", fd);
    len = 1000;
    memcpy(buf, &len, 4);
    CHECK(fd >= 0 && 36 == write(fd, buf, 36), "half a frame on the accepted connection");
    printf("rank 1 leaves in the middle of a frame\n");
    fflush(stdout);
    fflush(stderr);
    _exit(check_failures ? 1 : 0);
}

static void exchange(const pmix_proc_t *me, const pmix_proc_t *other, int round)
{
    char key[32];
    pmix_value_t val, *v = NULL;
    int32_t x = (int32_t)(100 * round + (int)me->rank);
    snprintf(key, sizeof key, "halfframe.%d", round);
    PMIX_VALUE_LOAD(&val, &x, PMIX_INT32);
    CHECK_RC(PMIx_Put(PMIX_GLOBAL, key, &val), PMIX_SUCCESS, "Put");
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit");
    pmix_proc_t two[2];
    PMIX_LOAD_PROCID(&two[0], me->nspace, 0);
    PMIX_LOAD_PROCID(&two[1], me->nspace, 2);
    CHECK_RC(PMIx_Fence(two, 2, NULL, 0), PMIX_SUCCESS, "fence of ranks 0 and 2");
    pmix_status_t rc = PMIx_Get(other, key, NULL, 0, &v);
    CHECK(PMIX_SUCCESS == rc && v && PMIX_INT32 == v->type &&
              v->data.int32 == 100 * round + (int)other->rank,
          "round %d: rank %u reads rank %u's value (%d)", round, me->rank, other->rank, rc);
    if (v) {
        PMIX_VALUE_RELEASE(v);
    }
}

int main(void)
{
    pmix_proc_t me, other;
    waiter_init(&ev);
    CHECK_RC(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS, "PMIx_Init");
    if (check_failures) {
        CHECK_DONE();
    }
    pmix_status_t code = PMIX_ERR_PROC_TERM_WO_SYNC;
    CHECK(PMIx_Register_event_handler(&code, 1, NULL, 0, handler, NULL, NULL) >= 0,
          "register a handler");
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "start fence");
    if (1 == me.rank) {
        hostile();
    }
    PMIX_LOAD_PROCID(&other, me.nspace, 2 - me.rank);
    exchange(&me, &other, 1);
    CHECK(waiter_wait_n(&ev, 1, 10), "PMIX_ERR_PROC_TERM_WO_SYNC arrived");
    CHECK(1 == ev_affected.rank, "about rank 1 (%u)", ev_affected.rank);
    exchange(&me, &other, 2);
    exchange(&me, &other, 3);
    if (0 == check_failures) {
        printf("rank %u completed after rank 1 left mid-frame\n", me.rank);
        fflush(stdout);
    }
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
