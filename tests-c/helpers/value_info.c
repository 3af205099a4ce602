/* Values and infos through the header macros: create, load, xfer, compare, unload,
 * get_number, flags, persistent infos, and release through the library's free(). */
#include <pmix.h>
#include <string.h>
#include "check.h"

int main(void)
{
    pmix_info_t *info;
    pmix_value_t *val = NULL, v2;
    pmix_status_t rc;
    pmix_proc_t proc;
    pmix_byte_object_t bo;
    pmix_data_array_t darr, *inner;
    uint32_t u32 = 42, got32 = 0;
    uint8_t got8 = 0;
    bool flag = false;
    char *s = NULL;
    void *data;
    size_t sz = 0;

    PMIX_INFO_CREATE(info, 5);
    CHECK(NULL != info, "PMIX_INFO_CREATE allocated 5 infos");
    CHECK(PMIX_INFO_IS_END(&info[4]) && !PMIX_INFO_IS_END(&info[0]), "last info carries ARRAY_END");
    CHECK(PMIX_UNDEF == info[0].value.type, "created infos are UNDEF");

    PMIX_INFO_LOAD(&info[0], PMIX_JOB_SIZE, &u32, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[1], "my.string", "hello", PMIX_STRING);
    PMIX_INFO_LOAD(&info[2], PMIX_OPTIONAL, &flag, PMIX_BOOL);
    PMIX_LOAD_PROCID(&proc, "nsA", 3);
    PMIX_INFO_LOAD(&info[3], PMIX_PROCID, &proc, PMIX_PROC);
    /* a data array of infos whose second element is itself a data array */
    PMIX_DATA_ARRAY_CONSTRUCT(&darr, 2, PMIX_INFO);
    PMIX_INFO_LOAD(&((pmix_info_t *) darr.array)[0], "inner.a", "x", PMIX_STRING);
    inner = PMIx_Data_array_create(3, PMIX_UINT32);
    ((uint32_t *) inner->array)[2] = 7;
    PMIX_INFO_LOAD(&((pmix_info_t *) darr.array)[1], "inner.b", inner, PMIX_DATA_ARRAY);
    PMIx_Data_array_free(inner);
    PMIX_INFO_LOAD(&info[4], "nested", &darr, PMIX_DATA_ARRAY);
    PMIX_DATA_ARRAY_DESTRUCT(&darr);

    CHECK(PMIX_UINT32 == info[0].value.type && 42 == info[0].value.data.uint32, "uint32 loaded");
    CHECK(0 == strcmp(info[1].value.data.string, "hello"), "string copied");
    CHECK(!PMIX_INFO_TRUE(&info[2]), "bool false reads false");
    CHECK(0 == strcmp(info[3].value.data.proc->nspace, "nsA") && 3 == info[3].value.data.proc->rank,
          "proc value deep-copied");
    CHECK(PMIX_DATA_ARRAY == info[4].value.type && 2 == info[4].value.data.darray->size, "nested array kept");
    {
        pmix_info_t *in = (pmix_info_t *) info[4].value.data.darray->array;
        pmix_data_array_t *d2 = in[1].value.data.darray;
        CHECK(PMIX_UINT32 == d2->type && 3 == d2->size && 7 == ((uint32_t *) d2->array)[2],
              "array inside info inside array inside value");
    }

    /* xfer and compare */
    PMIX_VALUE_CREATE(val, 1);
    rc = PMIx_Value_xfer(val, &info[4].value);
    CHECK_RC(rc, PMIX_SUCCESS, "Value_xfer of nested array");
    CHECK(PMIX_EQUAL == PMIx_Value_compare(val, &info[4].value), "xfer'd copy compares EQUAL");
    CHECK(PMIX_VALUE_TYPE_DIFFERENT == PMIx_Value_compare(val, &info[0].value), "different types detected");
    PMIX_VALUE_RELEASE(val);
    CHECK(NULL == val, "PMIX_VALUE_RELEASE NULLs the pointer");

    /* get_number: widening works, narrowing that loses data fails */
    PMIX_VALUE_CONSTRUCT(&v2);
    u32 = 300;
    PMIX_VALUE_LOAD(&v2, &u32, PMIX_UINT32);
    rc = PMIx_Value_get_number(&v2, &got32, PMIX_UINT32);
    CHECK(PMIX_SUCCESS == rc && 300 == got32, "get_number same type");
    rc = PMIx_Value_get_number(&v2, &got8, PMIX_UINT8);
    CHECK_RC(rc, PMIX_ERR_LOST_PRECISION, "get_number 300 -> uint8");
    /* unload: simple types copy into caller storage */
    data = &got32;
    got32 = 0;
    rc = PMIx_Value_unload(&v2, &data, &sz);
    CHECK(PMIX_SUCCESS == rc && 300 == got32 && 4 == sz, "unload uint32 into caller storage");
    PMIX_VALUE_DESTRUCT(&v2);
    CHECK(PMIX_UNDEF == v2.type, "destruct leaves UNDEF");
    /* unload of a string allocates */
    rc = PMIx_Value_unload(&info[1].value, (void **) &s, &sz);
    CHECK(PMIX_SUCCESS == rc && NULL != s && 0 == strcmp(s, "hello") && 5 == sz, "unload string");
    free(s);

    /* byte object through PMIX_BYTE_OBJECT_LOAD: the object takes the malloc'd bytes */
    PMIX_BYTE_OBJECT_CONSTRUCT(&bo);
    {
        char *d = strdup("abcdef");
        size_t dsz = 6;
        PMIX_BYTE_OBJECT_LOAD(&bo, d, dsz);
    }
    PMIX_VALUE_CONSTRUCT(&v2);
    PMIX_VALUE_LOAD(&v2, &bo, PMIX_BYTE_OBJECT);
    CHECK(6 == v2.data.bo.size && 0 == memcmp(v2.data.bo.bytes, "abcdef", 6) && v2.data.bo.bytes != bo.bytes,
          "byte object deep-copied into value");
    PMIX_VALUE_DESTRUCT(&v2);
    PMIX_BYTE_OBJECT_DESTRUCT(&bo);

    /* Info_xfer and flags */
    {
        pmix_info_t copy;
        PMIX_INFO_REQUIRED(&info[1]);
        PMIX_INFO_XFER(&copy, &info[1]);
        CHECK(PMIX_INFO_IS_REQUIRED(&copy) && 0 == strcmp(copy.value.data.string, "hello")
                  && copy.value.data.string != info[1].value.data.string,
              "info xfer copies key, flags and value");
        PMIX_INFO_OPTIONAL(&copy);
        CHECK(PMIX_INFO_IS_OPTIONAL(&copy), "optional clears required");
        PMIX_INFO_DESTRUCT(&copy);
    }
    /* a persistent info does not own its value: destruct leaves the string alone */
    {
        pmix_info_t p;
        char *keep = strdup("kept");
        PMIX_INFO_CONSTRUCT(&p);
        PMIX_LOAD_KEY(p.key, "k");
        p.value.type = PMIX_STRING;
        p.value.data.string = keep;
        PMIX_INFO_SET_PERSISTENT(&p);
        PMIX_INFO_DESTRUCT(&p);
        CHECK(0 == strcmp(keep, "kept"), "persistent value not freed by destruct");
        free(keep);
    }
    /* bad input: NULL and over-long keys */
    {
        pmix_info_t bad;
        char longkey[600];
        memset(longkey, 'k', sizeof(longkey) - 1);
        longkey[sizeof(longkey) - 1] = '\0';
        rc = PMIx_Info_load(&bad, longkey, "x", PMIX_STRING);
        CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "over-long key rejected");
        rc = PMIx_Info_load(&bad, NULL, "x", PMIX_STRING);
        CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "NULL key rejected");
        rc = PMIx_Value_load(&v2, "x", 999);
        CHECK(PMIX_SUCCESS != rc, "unknown data type rejected (%d)", rc);
        rc = PMIx_Value_xfer(NULL, &info[0].value);
        CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "NULL dest rejected");
    }
    PMIX_INFO_FREE(info, 5);
    CHECK(NULL == info, "PMIX_INFO_FREE NULLs the pointer");
    CHECK_DONE();
}
