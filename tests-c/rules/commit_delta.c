/* commit_delta: rule "Commit sends only what was put since the previous commit".
 * Observable through the library's debug log (PMIX_DEBUG=debug), which reports, for each
 * PMIx_Commit, how many changes it sends: "PMIx_Commit: sending N change(s)" or
 * "PMIx_Commit: nothing to send". The test captures its own stderr. A key put twice
 * between commits is one change; INTERNAL puts are never sent; a deletion is a change.
 * The peer still reads every value, so nothing was lost by not re-sending.
 * Run: pmixrun -n 2 commit_delta */
#include "rules.h"

static int commits_with(int fd, const char *what)
{
    char *text = captured(fd);
    int n = count_lines(text, "PMIx_Commit:", what);
    free(text);
    return n;
}

int main(void)
{
    setenv("PMIX_DEBUG", "debug", 1);
    int fd = capture_stderr();
    RULES_INIT();
    CHECK(fd >= 0, "stderr captured");
    pmix_proc_t peer;
    proc_of(&peer, (me.rank + 1) % nprocs);

    CHECK_RC(put_int(PMIX_GLOBAL, "cd.a", 1), PMIX_SUCCESS, "Put cd.a");
    CHECK_RC(put_int(PMIX_GLOBAL, "cd.b", 2), PMIX_SUCCESS, "Put cd.b");
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit 1");
    CHECK(1 == commits_with(fd, "sending 2 change"), "commit 1 sends the 2 new values");

    CHECK_RC(put_int(PMIX_GLOBAL, "cd.b", 3), PMIX_SUCCESS, "Put cd.b again");
    CHECK_RC(put_int(PMIX_GLOBAL, "cd.b", 4), PMIX_SUCCESS, "... and again");
    CHECK_RC(put_int(PMIX_INTERNAL, "cd.i", 5), PMIX_SUCCESS, "Put INTERNAL cd.i");
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit 2");
    CHECK(1 == commits_with(fd, "sending 1 change"),
          "commit 2 sends only cd.b (once), not cd.a again, not the INTERNAL value");

    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit 3");
    CHECK(1 == commits_with(fd, "nothing to send"), "commit 3 with nothing new sends nothing");

    CHECK_RC(PMIx_Put(PMIX_DEL_GLOBAL, "cd.a", NULL), PMIX_SUCCESS, "DEL_GLOBAL cd.a");
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit 4");
    CHECK(2 == commits_with(fd, "sending 1 change"), "commit 4 sends the one deletion");
    barrier("Fence");

    int v = -1;
    CHECK_RC(get_int(&peer, "cd.b", NULL, 0, &v), PMIX_SUCCESS, "peer reads cd.b");
    CHECK(4 == v, "the latest value arrived (%d)", v);
    pmix_info_t imm;
    flag_info(&imm, PMIX_IMMEDIATE);
    CHECK_RC(get_int(&peer, "cd.a", &imm, 1, &v), PMIX_ERR_NOT_FOUND, "cd.a deleted");
    PMIX_INFO_DESTRUCT(&imm);
    barrier("final Fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
