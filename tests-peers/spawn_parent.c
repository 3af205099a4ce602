/* spawn_parent: a PMIX_PARENT_ID that does not hold a pmix_proc_t is refused.
 * Run: pmixrun -n 1 spawn_parent
 * PMIx_Spawn with PMIX_PARENT_ID of type PMIX_SIZE (and of type PMIX_STRING) returns
 * PMIX_ERR_BAD_PARAM without starting anything; PMIX_PARENT_ID = ourselves is accepted
 * far enough to start the child (/bin/true). */
#include "../tests-c/dynamic/dyn.h"

int main(void)
{
    pmix_proc_t me;
    pmix_app_t *app;
    pmix_info_t ji;
    char nspace[PMIX_MAX_NSLEN + 1];
    size_t bogus = 7;
    CHECK_RC(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS, "init");
    PMIX_APP_CREATE(app, 1);
    app->cmd = strdup("/bin/true");
    pmix_status_t rc;
    PMIX_ARGV_APPEND(rc, app->argv, "/bin/true");
    CHECK_RC(rc, PMIX_SUCCESS, "argv");
    app->maxprocs = 1;

    PMIX_INFO_LOAD(&ji, PMIX_PARENT_ID, &bogus, PMIX_SIZE);
    CHECK_RC(PMIx_Spawn(&ji, 1, app, 1, nspace), PMIX_ERR_BAD_PARAM,
             "PMIX_PARENT_ID as a PMIX_SIZE");
    PMIX_INFO_DESTRUCT(&ji);
    PMIX_INFO_LOAD(&ji, PMIX_PARENT_ID, "rank0", PMIX_STRING);
    CHECK_RC(PMIx_Spawn(&ji, 1, app, 1, nspace), PMIX_ERR_BAD_PARAM,
             "PMIX_PARENT_ID as a string");
    PMIX_INFO_DESTRUCT(&ji);
    PMIX_INFO_LOAD(&ji, PMIX_PARENT_ID, &me, PMIX_PROC);
    CHECK_RC(PMIx_Spawn(&ji, 1, app, 1, nspace), PMIX_SUCCESS, "PMIX_PARENT_ID = ourselves");
    PMIX_INFO_DESTRUCT(&ji);
    PMIX_APP_FREE(app, 1);
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "finalize");
    CHECK_DONE();
}
