/* argv vectors and PMIx_Setenv through the PMIX_ARGV_* and PMIX_SETENV macros. */
#include <pmix.h>
#include <string.h>
#include "check.h"

extern char **environ;

int main(void)
{
    char **argv = NULL, **copy = NULL, **split = NULL, **env = NULL;
    char *joined = NULL;
    pmix_status_t rc;
    int cnt;

    PMIX_ARGV_APPEND(rc, argv, "b");
    CHECK(PMIX_SUCCESS == rc && NULL != argv, "append creates the vector");
    PMIX_ARGV_APPEND(rc, argv, "c");
    PMIX_ARGV_PREPEND(rc, argv, "a");
    PMIX_ARGV_APPEND_UNIQUE(rc, &argv, "b");
    CHECK_RC(rc, PMIX_SUCCESS, "append_unique of an existing entry");
    PMIX_ARGV_APPEND_UNIQUE(rc, &argv, "d");
    PMIX_ARGV_COUNT(cnt, argv);
    CHECK(4 == cnt, "count after unique append: %d", cnt);
    PMIX_ARGV_JOIN(joined, argv, ',');
    CHECK(0 == strcmp(joined, "a,b,c,d"), "join gives %s", joined);
    free(joined);
    PMIX_ARGV_COPY(copy, argv);
    CHECK(copy != argv && 4 == PMIx_Argv_count(copy) && 0 == strcmp(copy[3], "d"), "copy is deep");
    PMIX_ARGV_FREE(copy);
    CHECK(NULL == copy, "PMIX_ARGV_FREE NULLs the pointer");
    PMIX_ARGV_FREE(argv);

    PMIX_ARGV_SPLIT(split, "x::y:", ':');
    CHECK(2 == PMIx_Argv_count(split) && 0 == strcmp(split[1], "y"), "split drops empty fields");
    PMIX_ARGV_FREE(split);
    split = PMIx_Argv_split_with_empty(":x::y:", ':');
    CHECK(4 == PMIx_Argv_count(split) && 0 == strcmp(split[0], "") && 0 == strcmp(split[2], ""),
          "split_with_empty keeps inner empties (%d fields)", PMIx_Argv_count(split));
    PMIX_ARGV_FREE(split);
    CHECK(NULL == PMIx_Argv_split("", ':'), "splitting an empty string gives NULL");
    joined = PMIx_Argv_join(NULL, ':');
    CHECK(NULL != joined && 0 == strcmp(joined, ""), "joining NULL gives an empty string");
    free(joined);
    rc = PMIx_Argv_append_nosize(NULL, "x");

    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "NULL argv pointer");
    rc = PMIx_Argv_append_nosize(&argv, NULL);

    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "NULL arg");

    /* a private environment array */
    PMIX_SETENV(rc, "FOO", "1", &env);
    CHECK(PMIX_SUCCESS == rc && 0 == strcmp(env[0], "FOO=1"), "setenv into empty env");
    rc = PMIx_Setenv("FOO", "2", false, &env);
    CHECK(PMIX_ERR_EXISTS == rc && 0 == strcmp(env[0], "FOO=1"), "no overwrite -> EXISTS");
    PMIX_SETENV(rc, "FOO", "3", &env);
    CHECK(PMIX_SUCCESS == rc && 0 == strcmp(env[0], "FOO=3") && 1 == PMIx_Argv_count(env), "overwrite in place");
    PMIX_SETENV(rc, "FOOBAR", NULL, &env);
    CHECK(PMIX_SUCCESS == rc && 0 == strcmp(env[1], "FOOBAR="), "NULL value stores NAME=");
    PMIX_ARGV_FREE(env);
    /* the process environment goes through setenv(3) */
    rc = PMIx_Setenv("PMIX_RS_HELPERS_TEST", "yes", true, &environ);
    CHECK(PMIX_SUCCESS == rc && NULL != getenv("PMIX_RS_HELPERS_TEST")
              && 0 == strcmp(getenv("PMIX_RS_HELPERS_TEST"), "yes"), "environ updated via setenv");
    rc = PMIx_Setenv("PMIX_RS_HELPERS_TEST", NULL, true, &environ);
    CHECK(PMIX_SUCCESS == rc && NULL == getenv("PMIX_RS_HELPERS_TEST"), "NULL value unsets");
    rc = PMIx_Setenv("X", "1", true, NULL);

    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "NULL env rejected");
    CHECK_DONE();
}
