/* Built against an installed copy (make install PREFIX=...) with nothing but
 * `pkg-config --cflags --libs pmix`: the installed headers compile, the program links
 * against the installed libpmix.so.2 and runs without LD_LIBRARY_PATH. */
#include <pmix.h>
#include <pmix_server.h>
#include <pmix_tool.h>

#include <string.h>

#include "check.h"

int main(void)
{
    const char *v = PMIx_Get_version();

    CHECK(v != NULL, "PMIx_Get_version returns a string");
    if (v != NULL) {
        /* Open MPI decides which PMIx it talks to from the first digit after "OpenPMIx ". */
        CHECK(strncmp(v, "OpenPMIx ", 9) == 0, "version starts with \"OpenPMIx \": %s", v);
        CHECK(strlen(v) > 9 && v[9] >= '3' && v[9] <= '9', "major version digit %c is 3..9",
              strlen(v) > 9 ? v[9] : '?');
        CHECK(strncmp(v + 9, "7.", 2) == 0, "library reports 7.x, like the headers");
    }
    CHECK(PMIX_VERSION_MAJOR == 7L && PMIX_NUMERIC_VERSION == 0x00070000,
          "installed pmix_version.h describes 7.0.0");
    CHECK(PMIx_Initialized() == 0, "not initialised before PMIx_Init");
    CHECK(sizeof(pmix_info_t) == 552 && sizeof(pmix_value_t) == 32 && sizeof(pmix_proc_t) == 260,
          "installed headers give the 4.2.2 layouts");
    CHECK(sizeof(pmix_server_module_t) == 256, "server module has 32 slots");
    CHECK(strcmp(PMIX_SERVER_MODULE_V7, "pmixrs.srvr.mod32") == 0, "module-size key is ours");
    CHECK_DONE();
}
