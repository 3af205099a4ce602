/* String converters: static strings (never freed) and malloc'd printouts (freed here,
 * so valgrind proves they came from malloc). */
#include <pmix.h>
#include <string.h>
#include "check.h"

int main(void)
{
    char *s;
    pmix_value_t val;
    pmix_info_t info;
    pmix_proc_t proc;
    pmix_app_t *app;
    pmix_resource_unit_t ru;
    uint32_t u = 5;

    CHECK(0 == strncmp(PMIx_Get_version(), "OpenPMIx 7.0.0", 14), "version: %s", PMIx_Get_version());
    CHECK(0 == strcmp(PMIx_Error_string(PMIX_SUCCESS), "SUCCESS"), "SUCCESS text");
    CHECK(0 == strcmp(PMIx_Error_string(PMIX_ERR_NOT_FOUND), "NOT-FOUND"), "NOT-FOUND text: %s",
          PMIx_Error_string(PMIX_ERR_NOT_FOUND));
    CHECK(0 == strcmp(PMIx_Error_string(-123456), "ERROR STRING NOT FOUND"), "unknown status text");
    CHECK(PMIX_ERR_BAD_PARAM == PMIx_Error_code("PMIX_ERR_BAD_PARAM"), "error code by name");
    CHECK(PMIX_ERR_BAD_PARAM == PMIx_Error_code("pmix_err_bad_param"), "error code is case-insensitive");
    CHECK(INT32_MIN == PMIx_Error_code("NO_SUCH_THING") && INT32_MIN == PMIx_Error_code(NULL), "unknown name");
    CHECK(0 == strcmp(PMIx_Data_type_string(PMIX_STRING), "PMIX_STRING"), "data type string");
    CHECK(0 == strcmp(PMIx_Data_type_string(9999), "UNKNOWN"), "unknown data type string");
    CHECK(0 == strcmp(PMIx_Proc_state_string(PMIX_PROC_STATE_RUNNING), "PROC EXECUTING"), "proc state");
    CHECK(0 == strcmp(PMIx_Scope_string(PMIX_GLOBAL), "SHARE ACROSS ALL NODES"), "scope");
    CHECK(0 == strcmp(PMIx_Persistence_string(PMIX_PERSIST_SESSION),
                      "RETAIN UNTIL ALLOCATION OF PUBLISHING PROCESS TERMINATES"), "persistence");
    CHECK(0 == strcmp(PMIx_Data_range_string(PMIX_RANGE_LOCAL), "AVAIL ON LOCAL NODE ONLY"), "range");
    CHECK(0 == strcmp(PMIx_Alloc_directive_string(PMIX_ALLOC_EXTEND), "EXTEND"), "alloc directive");
    CHECK(0 == strcmp(PMIx_Job_state_string(PMIX_JOB_STATE_RUNNING), "RUNNING"), "job state");
    CHECK(0 == strcmp(PMIx_Link_state_string(PMIX_LINK_UP), "ACTIVE"), "link state");
    CHECK(0 == strcmp(PMIx_Device_type_string(PMIX_DEVTYPE_GPU), "GPU"), "device type");
    CHECK(0 == strcmp(PMIx_Value_comparison_string(PMIX_VALUE1_GREATER), "VALUE1 GREATER"), "cmp string");
    CHECK(0 == strcmp(PMIx_IOF_channel_string(PMIX_FWD_STDOUT_CHANNEL | PMIX_FWD_STDERR_CHANNEL),
                      "STDOUT STDERR "), "iof channels");
    CHECK(0 == strcmp(PMIx_IOF_channel_string(0), "NONE"), "no channel");
    CHECK(0 == strcmp(PMIx_Get_attribute_string("PMIX_JOB_SIZE"), PMIX_JOB_SIZE), "attribute string");
    CHECK(0 == strcmp(PMIx_Get_attribute_name(PMIX_JOB_SIZE), "PMIX_JOB_SIZE"), "attribute name");
    {
        const char *mine = "not.an.attribute";
        CHECK(PMIx_Get_attribute_name(mine) == mine, "unknown attribute returns the input");
    }

    s = PMIx_Info_directives_string(PMIX_INFO_REQD | PMIX_INFO_ARRAY_END);
    CHECK(NULL != s && 0 == strcmp(s, "REQUIRED:END"), "directives: %s", s);
    free(s);
    PMIX_LOAD_PROCID(&proc, "nsX", PMIX_RANK_WILDCARD);
    s = PMIx_Proc_string(&proc);
    CHECK(NULL != s && 0 == strcmp(s, "[nsX,WILDCARD]"), "proc string: %s", s);
    free(s);
    PMIX_VALUE_CONSTRUCT(&val);
    PMIX_VALUE_LOAD(&val, &u, PMIX_UINT32);
    s = PMIx_Value_string(&val);
    CHECK(NULL != s && NULL != strstr(s, "PMIX_UINT32") && NULL != strstr(s, "5"), "value string: %s", s);
    free(s);
    PMIX_VALUE_DESTRUCT(&val);
    PMIX_INFO_LOAD(&info, PMIX_JOB_SIZE, &u, PMIX_UINT32);
    s = PMIx_Info_string(&info);
    CHECK(NULL != s && NULL != strstr(s, "PMIX_JOB_SIZE"), "info string names the attribute");
    free(s);
    PMIX_INFO_DESTRUCT(&info);
    PMIX_APP_CREATE(app, 1);
    app->cmd = strdup("/bin/hostname");
    app->maxprocs = 2;
    s = PMIx_App_string(app);
    CHECK(NULL != s && NULL != strstr(s, "/bin/hostname") && NULL != strstr(s, "MAXPROCS: 2"), "app string");
    free(s);
    PMIX_APP_RELEASE(app);
    ru.type = PMIX_DEVTYPE_CORE;
    ru.count = 8;
    s = PMIx_Resource_unit_string(&ru);
    CHECK(NULL != s && 0 == strcmp(s, "TYPE: CORE  COUNT: 8"), "resource unit: %s", s);
    free(s);
    {
        char *out = NULL;
        pmix_status_t rc = PMIx_Data_print(&out, "pre: ", &u, PMIX_UINT32);
        CHECK(PMIX_SUCCESS == rc && NULL != out && 0 == strncmp(out, "pre: ", 5), "Data_print prefix");
        free(out);
        rc = PMIx_Data_print(&out, NULL, &u, 777);
        CHECK_RC(rc, PMIX_ERR_UNKNOWN_DATA_TYPE, "Data_print of an unknown type");
    }
    CHECK_DONE();
}
