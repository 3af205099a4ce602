/* Misuse of PMIx_Info_* and the info list: NULL infos/lists/keys, keys of 511, 599
 * and 512-without-NUL bytes (ending at an inaccessible page), infos whose key array
 * is not terminated, values of unknown type, unknown list handles. */
#include <stdint.h>
#include "misuse.h"

int main(void)
{
    struct hostile h = hostile_inputs();
    pmix_info_t info, dst, *ip;
    pmix_value_t val;
    pmix_data_array_t da;
    pmix_status_t rc;
    void *list, *next = NULL;
    uint32_t u32 = 3;
    size_t sz = 0;
    char *s;

    /* lifecycle */
    SURVIVES(PMIx_Info_construct(NULL), "Info_construct(NULL)");
    SURVIVES(PMIx_Info_destruct(NULL), "Info_destruct(NULL)");
    CHECK(NULL == PMIx_Info_create(0), "Info_create(0)");
    CHECK(NULL == PMIx_Info_create(SIZE_MAX), "Info_create(SIZE_MAX) is NULL");
    SURVIVES(PMIx_Info_free(NULL, 7), "Info_free(NULL, 7)");
    ip = PMIx_Info_create(2);
    CHECK(NULL != ip && PMIx_Info_is_end(&ip[1]), "Info_create(2) marks the end");
    PMIx_Info_free(ip, 2);

    /* load with hostile keys */
    rc = PMIx_Info_load(NULL, "k", &u32, PMIX_UINT32);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Info_load(NULL info)");
    rc = PMIx_Info_load(&info, NULL, &u32, PMIX_UINT32);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Info_load(NULL key)");
    rc = PMIx_Info_load(&info, h.empty, &u32, PMIX_UINT32);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Info_load(empty key)");
    rc = PMIx_Info_load(&info, h.key600, &u32, PMIX_UINT32);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Info_load(599-byte key)");
    rc = PMIx_Info_load(&info, h.key_nonul, &u32, PMIX_UINT32);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Info_load(512 bytes, no NUL) reads no further");
    rc = PMIx_Info_load(&info, h.key512, &u32, PMIX_UINT32);
    CHECK(PMIX_SUCCESS == rc && PMIX_MAX_KEYLEN == strlen(info.key), "Info_load(511-byte key) fits");
    PMIx_Info_destruct(&info);
    rc = PMIx_Info_load(&info, "k", &u32, 9999);
    CHECK_RC(rc, PMIX_ERR_UNKNOWN_DATA_TYPE, "Info_load of type 9999");
    PMIx_Info_destruct(&info);

    /* an info whose key array has no NUL, and one whose value type is bogus */
    PMIx_Info_construct(&info);
    memset(info.key, 'k', sizeof(info.key));
    PMIx_Value_load(&info.value, &u32, PMIX_UINT32);
    rc = PMIx_Info_xfer(&dst, &info);
    CHECK(PMIX_SUCCESS == rc && PMIX_MAX_KEYLEN == strnlen(dst.key, sizeof(dst.key)),
          "Info_xfer of an unterminated key truncates it (%d)", rc);
    PMIx_Info_destruct(&dst);
    rc = PMIx_Info_get_size(&info, &sz);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Info_get_size of an unterminated key");
    CHECK(NULL == PMIx_Info_string(&info), "Info_string of an unterminated key is NULL");
    PMIx_Info_destruct(&info);
    PMIx_Info_construct(&info);
    PMIx_Load_key(info.key, "k");
    info.value.type = 9999;
    rc = PMIx_Info_xfer(&dst, &info);
    CHECK_RC(rc, PMIX_ERR_UNKNOWN_DATA_TYPE, "Info_xfer of a value of type 9999");
    CHECK(PMIX_NON_BOOL == PMIx_Info_true(&info), "Info_true of type 9999");
    rc = PMIx_Info_get_size(&info, &sz);
    CHECK_ERR(rc, "Info_get_size of type 9999");
    SURVIVES(PMIx_Info_destruct(&info), "Info_destruct of type 9999");

    /* NULL arguments */
    rc = PMIx_Info_xfer(NULL, &info);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Info_xfer(NULL, src)");
    rc = PMIx_Info_xfer(&dst, NULL);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Info_xfer(dst, NULL)");
    rc = PMIx_Info_get_size(NULL, &sz);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Info_get_size(NULL)");
    rc = PMIx_Info_get_size(&info, NULL);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Info_get_size(info, NULL)");
    CHECK(PMIX_BOOL_FALSE == PMIx_Info_true(NULL), "Info_true(NULL)");
    CHECK(NULL == PMIx_Info_string(NULL), "Info_string(NULL)");
    SURVIVES(PMIx_Info_required(NULL), "Info_required(NULL)");
    SURVIVES(PMIx_Info_optional(NULL), "Info_optional(NULL)");
    SURVIVES(PMIx_Info_processed(NULL), "Info_processed(NULL)");
    SURVIVES(PMIx_Info_set_end(NULL), "Info_set_end(NULL)");
    SURVIVES(PMIx_Info_qualifier(NULL), "Info_qualifier(NULL)");
    SURVIVES(PMIx_Info_persistent(NULL), "Info_persistent(NULL)");
    CHECK(!PMIx_Info_is_required(NULL), "Info_is_required(NULL) is false");
    CHECK(!PMIx_Info_is_optional(NULL), "Info_is_optional(NULL) is false");
    CHECK(!PMIx_Info_was_processed(NULL), "Info_was_processed(NULL) is false");
    CHECK(!PMIx_Info_is_end(NULL), "Info_is_end(NULL) is false");
    CHECK(!PMIx_Info_is_qualifier(NULL), "Info_is_qualifier(NULL) is false");
    CHECK(!PMIx_Info_is_persistent(NULL), "Info_is_persistent(NULL) is false");

    /* the info list: NULL handle, hostile keys, unknown prev handles */
    rc = PMIx_Info_list_add(NULL, "k", &u32, PMIX_UINT32);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Info_list_add(NULL list)");
    rc = PMIx_Info_list_add_unique(NULL, "k", &u32, PMIX_UINT32, true);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Info_list_add_unique(NULL list)");
    rc = PMIx_Info_list_prepend(NULL, "k", &u32, PMIX_UINT32);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Info_list_prepend(NULL list)");
    rc = PMIx_Info_list_add_value(NULL, "k", &info.value);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Info_list_add_value(NULL list)");
    rc = PMIx_Info_list_add_value_unique(NULL, "k", &info.value, false);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Info_list_add_value_unique(NULL list)");
    rc = PMIx_Info_list_insert(NULL, &info);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Info_list_insert(NULL list)");
    rc = PMIx_Info_list_xfer(NULL, &info);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Info_list_xfer(NULL list)");
    rc = PMIx_Info_list_xfer_unique(NULL, &info, true);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Info_list_xfer_unique(NULL list)");
    rc = PMIx_Info_list_convert(NULL, &da);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Info_list_convert(NULL list)");
    CHECK(0 == PMIx_Info_list_get_size(NULL), "Info_list_get_size(NULL) is 0");
    CHECK(NULL == PMIx_Info_list_get_info(NULL, NULL, &next), "Info_list_get_info(NULL list)");
    SURVIVES(PMIx_Info_list_release(NULL), "Info_list_release(NULL)");

    list = PMIx_Info_list_start();
    CHECK(NULL != list, "Info_list_start");
    rc = PMIx_Info_list_add(list, NULL, &u32, PMIX_UINT32);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Info_list_add(NULL key)");
    rc = PMIx_Info_list_add(list, h.key600, &u32, PMIX_UINT32);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Info_list_add(599-byte key)");
    rc = PMIx_Info_list_add(list, h.key_nonul, &u32, PMIX_UINT32);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Info_list_add(unterminated key)");
    rc = PMIx_Info_list_add(list, "k", &u32, 9999);
    CHECK_RC(rc, PMIX_ERR_UNKNOWN_DATA_TYPE, "Info_list_add of type 9999");
    rc = PMIx_Info_list_add_unique(list, h.key600, &u32, PMIX_UINT32, false);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Info_list_add_unique(599-byte key)");
    rc = PMIx_Info_list_prepend(list, h.key_nonul, &u32, PMIX_UINT32);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Info_list_prepend(unterminated key)");
    rc = PMIx_Info_list_add_value(list, "k", NULL);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Info_list_add_value(NULL value)");
    PMIx_Value_construct(&val);
    val.type = 9999;
    rc = PMIx_Info_list_add_value(list, "k", &val);
    CHECK_RC(rc, PMIX_ERR_UNKNOWN_DATA_TYPE, "Info_list_add_value of type 9999");
    rc = PMIx_Info_list_add_value_unique(list, h.key600, &val, true);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Info_list_add_value_unique(599-byte key)");
    rc = PMIx_Info_list_insert(list, NULL);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Info_list_insert(NULL info)");
    rc = PMIx_Info_list_xfer(list, NULL);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Info_list_xfer(NULL info)");
    rc = PMIx_Info_list_xfer_unique(list, NULL, false);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Info_list_xfer_unique(NULL info)");
    info.value.type = 9999; /* destructed above: make the value bogus again */
    rc = PMIx_Info_list_xfer(list, &info);
    CHECK_RC(rc, PMIX_ERR_UNKNOWN_DATA_TYPE, "Info_list_xfer of type 9999");
    rc = PMIx_Info_list_xfer_unique(list, &info, true);
    CHECK_RC(rc, PMIX_ERR_UNKNOWN_DATA_TYPE, "Info_list_xfer_unique of type 9999");
    CHECK(0 == PMIx_Info_list_get_size(list), "nothing was added by the failed calls");
    rc = PMIx_Info_list_convert(list, &da);
    CHECK(PMIX_ERR_EMPTY == rc && 0 == da.size && NULL == da.array, "convert of an empty list");
    rc = PMIx_Info_list_convert(list, NULL);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Info_list_convert(NULL array)");

    /* a valid item, then iteration with bogus handles */
    rc = PMIx_Info_list_add(list, h.key512, &u32, PMIX_UINT32);
    CHECK_RC(rc, PMIX_SUCCESS, "Info_list_add(511-byte key)");
    memset(dst.key, 'z', sizeof(dst.key)); /* unterminated key in an inserted info */
    dst.flags = 0;
    PMIx_Value_construct(&dst.value);
    rc = PMIx_Info_list_insert(list, &dst);
    CHECK_RC(rc, PMIX_SUCCESS, "Info_list_insert of an unterminated key (stored truncated)");
    CHECK(2 == PMIx_Info_list_get_size(list), "two items");
    CHECK(NULL == PMIx_Info_list_get_info(list, NULL, NULL), "get_info(NULL next)");
    CHECK(NULL == PMIx_Info_list_get_info(list, &u32, &next) && NULL == next, "get_info(unknown prev)");
    ip = PMIx_Info_list_get_info(list, NULL, &next);
    CHECK(NULL != ip && NULL != next, "first item");
    ip = PMIx_Info_list_get_info(list, next, &next);
    CHECK(NULL != ip && NULL == next && PMIX_MAX_KEYLEN == strnlen(ip->key, sizeof(ip->key)),
          "second item's key is terminated");
    rc = PMIx_Info_list_convert(list, &da);
    CHECK(PMIX_SUCCESS == rc && 2 == da.size, "convert");
    s = PMIx_Info_string(&((pmix_info_t *)da.array)[1]);
    CHECK(NULL != s, "Info_string of a converted item");
    free(s);
    PMIx_Data_array_destruct(&da);
    PMIx_Info_list_release(list);

    CHECK_DONE();
}
