/* Misuse of the string converters: every printer with out-of-range codes (each must
 * return a usable string), NULL and over-length names, printers of structs with NULL
 * and malformed contents. */
#include <limits.h>
#include <stdint.h>
#include "misuse.h"

/* A static printer result must be a non-NULL, non-empty, terminated string. */
static int usable(const char *s)
{
    return NULL != s && s[0] != '\0' && strlen(s) < 4096;
}

#define CHECK_STATIC(expr, what)                                            \
    do {                                                                    \
        const char *s_ = (expr);                                            \
        CHECK(usable(s_), "%s -> \"%s\"", what, s_ ? s_ : "(null)");        \
    } while (0)

/* Inside loops: count bad results, report once. */
#define TALLY(expr) (bad += !usable(expr))

int main(void)
{
    struct hostile h = hostile_inputs();
    pmix_value_t v;
    pmix_info_t info;
    pmix_proc_t proc;
    pmix_app_t app;
    pmix_resource_unit_t ru;
    char *s;
    int bad = 0;
    long codes[] = {0, 1, -1, -2, -100, -1000, -1330, -1331, -2000, -9999, 9999, INT_MIN, INT_MAX};

    /* status codes far outside the table */
    for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
        CHECK_STATIC(PMIx_Error_string((pmix_status_t)codes[i]), "Error_string of an odd code");
    }
    bad = 0;
    for (pmix_status_t rc = -2000; rc <= 10; rc++) {
        TALLY(PMIx_Error_string(rc));
    }
    CHECK(0 == bad, "Error_string of -2000..10: %d unusable results", bad);
    CHECK(INT_MIN == PMIx_Error_code(NULL), "Error_code(NULL)");
    CHECK(INT_MIN == PMIx_Error_code(h.key600), "Error_code of a 599-byte name");
    CHECK(INT_MIN == PMIx_Error_code(h.empty), "Error_code(\"\")");
    CHECK(PMIX_ERR_NOT_FOUND == PMIx_Error_code("pmix_err_not_found"), "Error_code is case-insensitive");
    CHECK_STATIC(PMIx_Get_version(), "Get_version");

    /* enum printers with every value of their type's range (or a wide sample) */
    bad = 0;
    for (int x = 0; x < 256; x++) {
        TALLY(PMIx_Proc_state_string((pmix_proc_state_t)x));
        TALLY(PMIx_Scope_string((pmix_scope_t)x));
        TALLY(PMIx_Persistence_string((pmix_persistence_t)x));
        TALLY(PMIx_Data_range_string((pmix_data_range_t)x));
        TALLY(PMIx_Alloc_directive_string((pmix_alloc_directive_t)x));
        TALLY(PMIx_Resource_block_directive_string((pmix_resource_block_directive_t)x));
        TALLY(PMIx_Alloc_inheritance_string((pmix_alloc_inheritance_t)x));
        TALLY(PMIx_Job_state_string((pmix_job_state_t)x));
        TALLY(PMIx_Link_state_string((pmix_link_state_t)x));
        TALLY(PMIx_Group_operation_string((pmix_group_operation_t)x));
    }
    CHECK(0 == bad, "10 uint8 enum printers over 0..255: %d unusable results", bad);
    for (long x = -300; x < 300; x++) {
        TALLY(PMIx_Value_comparison_string((pmix_value_cmp_t)x));
    }
    CHECK(0 == bad, "Value_comparison_string over -300..299: %d unusable results", bad);
    for (uint32_t x = 0; x < 70000; x += 7) {
        TALLY(PMIx_Data_type_string((pmix_data_type_t)x));
        TALLY(PMIx_IOF_channel_string((pmix_iof_channel_t)x));
    }
    CHECK(0 == bad, "Data_type_string/IOF_channel_string over the uint16 range: %d unusable", bad);
    CHECK_STATIC(PMIx_Device_type_string(UINT64_MAX), "Device_type_string(all bits)");
    CHECK_STATIC(PMIx_Device_type_string(0x12345), "Device_type_string(several bits)");
    s = PMIx_Info_directives_string(UINT32_MAX);
    CHECK(NULL != s, "Info_directives_string(all bits) = %s", s ? s : "(null)");
    free(s);

    /* attribute names and strings: NULL, over-length, unknown */
    CHECK(NULL == PMIx_Get_attribute_string(NULL), "Get_attribute_string(NULL) is NULL");
    CHECK(NULL == PMIx_Get_attribute_name(NULL), "Get_attribute_name(NULL) is NULL");
    CHECK(h.key600 == PMIx_Get_attribute_string(h.key600), "unknown 599-byte name comes back unchanged");
    CHECK(h.key600 == PMIx_Get_attribute_name(h.key600), "unknown 599-byte key comes back unchanged");

    /* struct printers */
    PMIx_Value_construct(&v);
    v.type = PMIX_STRING;
    v.data.string = NULL;
    s = PMIx_Value_string(&v);
    CHECK(NULL != s, "Value_string of a NULL string: %s", s ? s : "(null)");
    free(s);
    v.type = 9999;
    CHECK(NULL == PMIx_Value_string(&v), "Value_string of type 9999 is NULL");
    PMIx_Info_construct(&info);
    memset(info.key, 'k', sizeof(info.key));
    CHECK(NULL == PMIx_Info_string(&info), "Info_string of an unterminated key is NULL");
    s = PMIx_Proc_string(NULL);
    CHECK(NULL != s, "Proc_string(NULL) = %s", s ? s : "(null)");
    free(s);
    memset(proc.nspace, 'n', sizeof(proc.nspace));
    proc.rank = PMIX_RANK_INVALID;
    CHECK(NULL == PMIx_Proc_string(&proc), "Proc_string of an unterminated namespace is NULL");
    PMIx_Load_procid(&proc, "ns", PMIX_RANK_WILDCARD);
    s = PMIx_Proc_string(&proc);
    CHECK(NULL != s && NULL != strstr(s, "ns"), "Proc_string of a wildcard = %s", s ? s : "(null)");
    free(s);
    CHECK(NULL == PMIx_App_string(NULL), "App_string(NULL) is NULL");
    PMIx_App_construct(&app);
    s = PMIx_App_string(&app);
    CHECK(NULL != s, "App_string of an empty app");
    free(s);
    app.ninfo = 3; /* NULL info with a count: malformed, NULL (no string) is the answer */
    s = PMIx_App_string(&app);
    CHECK(NULL == s, "App_string of an app with NULL info and ninfo 3 is NULL");
    free(s);
    CHECK(NULL == PMIx_Resource_unit_string(NULL), "Resource_unit_string(NULL) is NULL");
    ru.type = UINT64_MAX;
    ru.count = SIZE_MAX;
    s = PMIx_Resource_unit_string(&ru);
    CHECK(NULL != s, "Resource_unit_string of odd values = %s", s ? s : "(null)");
    free(s);

    CHECK_DONE();
}
