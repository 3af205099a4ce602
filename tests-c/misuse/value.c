/* Misuse of PMIx_Value_* and PMIx_Data_array_*: NULL pointers, zero and huge counts,
 * unknown and array-only data types in a pmix_value_t, wrong value types for the
 * operation, and a self-referencing value (data array whose element is the value). */
#include <stdint.h>
#include "misuse.h"

int main(void)
{
    pmix_value_t v, w, *vp;
    pmix_data_array_t da, *dap;
    pmix_status_t rc;
    void *out = NULL;
    size_t sz = 0;
    uint32_t u32 = 7;
    int32_t i32 = -1;
    uint64_t u64 = 0;

    /* lifecycle with NULL, zero and huge counts */
    SURVIVES(PMIx_Value_construct(NULL), "Value_construct(NULL)");
    SURVIVES(PMIx_Value_destruct(NULL), "Value_destruct(NULL)");
    CHECK(NULL == PMIx_Value_create(0), "Value_create(0) is NULL");
    CHECK(NULL == PMIx_Value_create(SIZE_MAX), "Value_create(SIZE_MAX) is NULL, not a crash");
    CHECK(NULL == PMIx_Value_create(SIZE_MAX / sizeof(pmix_value_t) + 1), "Value_create overflowing size is NULL");
    SURVIVES(PMIx_Value_free(NULL, 10), "Value_free(NULL, 10)");
    vp = PMIx_Value_create(3);
    CHECK(NULL != vp, "Value_create(3)");
    SURVIVES(PMIx_Value_free(vp, 3), "Value_free(v, 3)");

    /* load: NULL value, unknown and array-only types, NULL data */
    rc = PMIx_Value_load(NULL, &u32, PMIX_UINT32);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Value_load(NULL)");
    PMIx_Value_construct(&v);
    rc = PMIx_Value_load(&v, &u32, 9999);
    CHECK_RC(rc, PMIX_ERR_UNKNOWN_DATA_TYPE, "Value_load unknown type");
    rc = PMIx_Value_load(&v, &u32, UINT16_MAX);
    CHECK_RC(rc, PMIX_ERR_UNKNOWN_DATA_TYPE, "Value_load type 65535");
    rc = PMIx_Value_load(&v, NULL, PMIX_INFO);
    CHECK_ERR(rc, "Value_load(NULL data, PMIX_INFO)");
    rc = PMIx_Value_load(&v, NULL, PMIX_STRING);
    CHECK(PMIX_SUCCESS == rc && PMIX_STRING == v.type && NULL == v.data.string, "Value_load(NULL string)");
    PMIx_Value_destruct(&v);

    /* a data array of an unknown element type, and one of mismatched size/array */
    da.type = 9999;
    da.size = 3;
    da.array = &u32;
    rc = PMIx_Value_load(&v, &da, PMIX_DATA_ARRAY);
    CHECK_RC(rc, PMIX_ERR_UNKNOWN_DATA_TYPE, "Value_load of a data array of unknown type");
    CHECK(PMIX_UNDEF == v.type, "failed load leaves the value UNDEF (type %d)", v.type);
    da.type = PMIX_UINT32;
    da.size = SIZE_MAX;
    rc = PMIx_Value_load(&v, &da, PMIX_DATA_ARRAY);
    CHECK_ERR(rc, "Value_load of a data array whose byte size overflows");
    da.size = 0;
    da.array = (void *)0x10; /* size 0: the pointer must not be touched */
    rc = PMIx_Value_load(&v, &da, PMIX_DATA_ARRAY);
    CHECK_RC(rc, PMIX_SUCCESS, "Value_load of a size-0 array ignores its pointer");
    PMIx_Value_destruct(&v);

    /* values whose type field is bogus or array-only */
    PMIx_Value_construct(&w);
    memset(&v, 0, sizeof(v));
    v.type = 9999;
    rc = PMIx_Value_xfer(&w, &v);
    CHECK_RC(rc, PMIX_ERR_UNKNOWN_DATA_TYPE, "Value_xfer of type 9999");
    rc = PMIx_Value_unload(&v, &out, &sz);
    CHECK_ERR(rc, "Value_unload of type 9999");
    CHECK(PMIX_VALUE_COMPARISON_NOT_AVAIL == PMIx_Value_compare(&v, &v), "Value_compare of type 9999");
    CHECK(NULL == PMIx_Value_string(&v), "Value_string of type 9999 is NULL");
    rc = PMIx_Value_get_size(&v, &sz);
    CHECK_ERR(rc, "Value_get_size of type 9999");
    CHECK(PMIX_NON_BOOL == PMIx_Value_true(&v), "Value_true of type 9999");
    rc = PMIx_Value_get_number(&v, &u64, PMIX_UINT64);
    CHECK_ERR(rc, "Value_get_number of type 9999");
    SURVIVES(PMIx_Value_destruct(&v), "Value_destruct of type 9999");
    v.type = PMIX_INFO; /* a pmix_value_t never holds an info inline */
    rc = PMIx_Value_xfer(&w, &v);
    CHECK_ERR(rc, "Value_xfer of array-only type PMIX_INFO");
    v.type = PMIX_UNDEF;
    rc = PMIx_Value_unload(&v, &out, &sz);
    CHECK_ERR(rc, "Value_unload of UNDEF");
    rc = PMIx_Value_get_size(&v, &sz);
    CHECK_ERR(rc, "Value_get_size of UNDEF");

    /* NULL arguments of every value operation */
    rc = PMIx_Value_xfer(NULL, &v);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Value_xfer(NULL, v)");
    rc = PMIx_Value_xfer(&w, NULL);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Value_xfer(w, NULL)");
    rc = PMIx_Value_unload(NULL, &out, &sz);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Value_unload(NULL)");
    PMIX_VALUE_LOAD(&v, &u32, PMIX_UINT32);
    rc = PMIx_Value_unload(&v, NULL, &sz);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Value_unload(NULL data)");
    rc = PMIx_Value_unload(&v, &out, NULL);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Value_unload(NULL size)");
    out = NULL; /* a simple type needs caller storage */
    rc = PMIx_Value_unload(&v, &out, &sz);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Value_unload of a uint32 into NULL storage");
    CHECK(PMIX_VALUE_COMPARISON_NOT_AVAIL == PMIx_Value_compare(NULL, &v), "Value_compare(NULL, v)");
    CHECK(PMIX_VALUE_COMPARISON_NOT_AVAIL == PMIx_Value_compare(&v, NULL), "Value_compare(v, NULL)");
    CHECK(PMIX_BOOL_FALSE == PMIx_Value_true(NULL), "Value_true(NULL)");
    CHECK(NULL == PMIx_Value_string(NULL), "Value_string(NULL)");
    rc = PMIx_Value_get_size(NULL, &sz);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Value_get_size(NULL)");
    rc = PMIx_Value_get_size(&v, NULL);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Value_get_size(v, NULL)");
    rc = PMIx_Value_get_number(NULL, &u64, PMIX_UINT64);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Value_get_number(NULL)");
    rc = PMIx_Value_get_number(&v, NULL, PMIX_UINT64);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Value_get_number(v, NULL)");

    /* wrong types for the operation */
    rc = PMIx_Value_get_number(&v, &u64, PMIX_STRING);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Value_get_number into a string");
    rc = PMIx_Value_get_number(&v, &u64, 9999);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Value_get_number into type 9999");
    PMIx_Value_destruct(&v);
    PMIX_VALUE_LOAD(&v, &i32, PMIX_INT32);
    rc = PMIx_Value_get_number(&v, &u64, PMIX_UINT64);
    CHECK_RC(rc, PMIX_ERR_CHANGE_SIGN, "Value_get_number -1 into uint64");
    CHECK(PMIX_NON_BOOL == PMIx_Value_true(&v), "Value_true of an int32");
    PMIx_Value_destruct(&v);
    PMIX_VALUE_LOAD(&v, "not a number", PMIX_STRING);
    rc = PMIx_Value_get_number(&v, &u64, PMIX_UINT64);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Value_get_number of a string");
    PMIX_VALUE_LOAD(&w, &u32, PMIX_UINT32);
    CHECK(PMIX_VALUE_TYPE_DIFFERENT == PMIx_Value_compare(&v, &w), "compare string with uint32");
    PMIx_Value_destruct(&v);
    PMIx_Value_destruct(&w);

    /* a value that contains itself: data array -> element value -> the same array */
    memset(&v, 0, sizeof(v));
    v.type = PMIX_DATA_ARRAY;
    v.data.darray = &da;
    da.type = PMIX_VALUE;
    da.size = 1;
    da.array = &v;
    rc = PMIx_Value_xfer(&w, &v);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Value_xfer of a cyclic value is refused");
    CHECK(PMIX_UNDEF == w.type, "nothing copied from the cyclic value");
    CHECK(NULL == PMIx_Value_string(&v), "Value_string of a cyclic value is NULL");
    rc = PMIx_Value_get_size(&v, &sz);
    CHECK_ERR(rc, "Value_get_size of a cyclic value");
    CHECK(PMIX_VALUE_COMPARISON_NOT_AVAIL == PMIx_Value_compare(&v, &v), "compare of cyclic values");

    /* Data_copy and Data_print of the cyclic value */
    {
        void *copy = NULL;
        char *text = NULL;
        rc = PMIx_Data_copy(&copy, &v, PMIX_VALUE);
        CHECK(rc < 0 && NULL == copy, "Data_copy of a cyclic value is refused (%d)", rc);
        rc = PMIx_Data_print(&text, NULL, &v, PMIX_VALUE);
        CHECK(rc < 0 && NULL == text, "Data_print of a cyclic value is refused (%d)", rc);
    }

    /* unterminated namespaces inside loaded data (reads end at the guard page) */
    {
        struct hostile h = hostile_inputs();
        pmix_proc_t *pp = (pmix_proc_t *)guarded(sizeof(pmix_proc_t), 'n', 0);
        rc = PMIx_Value_load(&w, h.ns_nonul, PMIX_PROC_NSPACE);
        CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Value_load of an unterminated pmix_nspace_t");
        pp->rank = 3;
        rc = PMIx_Value_load(&w, pp, PMIX_PROC);
        CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Value_load of a proc with an unterminated namespace");
        CHECK(PMIX_UNDEF == w.type, "... leaves the value UNDEF");
    }

    /* data arrays */
    SURVIVES(PMIx_Data_array_init(NULL, PMIX_INT), "Data_array_init(NULL)");
    SURVIVES(PMIx_Data_array_construct(NULL, 4, PMIX_INT), "Data_array_construct(NULL)");
    PMIx_Data_array_construct(&da, 4, 9999);
    CHECK(0 == da.size && NULL == da.array, "Data_array_construct of type 9999 is empty");
    PMIx_Data_array_construct(&da, SIZE_MAX, PMIX_INFO);
    CHECK(0 == da.size && NULL == da.array, "Data_array_construct(SIZE_MAX) is empty, not a crash");
    PMIx_Data_array_construct(&da, 0, PMIX_INFO);
    CHECK(0 == da.size && NULL == da.array, "Data_array_construct(0) is empty");
    SURVIVES(PMIx_Data_array_destruct(&da), "Data_array_destruct of an empty array");
    SURVIVES(PMIx_Data_array_destruct(NULL), "Data_array_destruct(NULL)");
    CHECK(NULL == PMIx_Data_array_create(0, PMIX_INT), "Data_array_create(0)");
    dap = PMIx_Data_array_create(SIZE_MAX / 2, PMIX_INT);
    CHECK(NULL == dap || (0 == dap->size && NULL == dap->array), "Data_array_create(huge) allocates nothing");
    PMIx_Data_array_free(dap);
    dap = PMIx_Data_array_create(3, 9999);
    CHECK(NULL == dap || (0 == dap->size && NULL == dap->array), "Data_array_create of type 9999 is empty");
    PMIx_Data_array_free(dap);
    SURVIVES(PMIx_Data_array_free(NULL), "Data_array_free(NULL)");
    /* unknown element type on destruct: nothing to free element-wise, block freed */
    da.type = 9999;
    da.size = 2;
    da.array = malloc(16);
    SURVIVES(PMIx_Data_array_destruct(&da), "Data_array_destruct of type 9999 frees the block");
    CHECK(NULL == da.array && 0 == da.size, "... and leaves it empty");

    CHECK_DONE();
}
