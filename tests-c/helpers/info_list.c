/* The opaque info list through PMIX_INFO_LIST_*: add/prepend/insert/xfer, the
 * unique variants, iteration, conversion to a data array, release. */
#include <pmix.h>
#include <string.h>
#include "check.h"

int main(void)
{
    void *list = NULL, *cur, *nxt;
    pmix_status_t rc;
    pmix_data_array_t darr;
    pmix_info_t *arr, *ip, mine, src;
    pmix_value_t val;
    uint32_t one = 1, two = 2;
    int n;
    char *shared = strdup("shared-string");

    PMIX_INFO_LIST_START(list);
    CHECK(NULL != list, "list started");
    PMIX_INFO_LIST_ADD(rc, list, "k.one", &one, PMIX_UINT32);
    CHECK_RC(rc, PMIX_SUCCESS, "add uint32");
    PMIX_INFO_LIST_ADD(rc, list, "k.str", "text", PMIX_STRING);
    CHECK_RC(rc, PMIX_SUCCESS, "add string");
    PMIX_INFO_LIST_PREPEND(rc, list, "k.first", NULL, PMIX_BOOL);
    CHECK_RC(rc, PMIX_SUCCESS, "prepend bool with NULL data");

    rc = PMIx_Info_list_add_unique(list, "k.one", &two, PMIX_UINT32, false);
    CHECK(PMIX_SUCCESS == rc && 3 == PMIx_Info_list_get_size(list), "add_unique without overwrite keeps size");
    rc = PMIx_Info_list_add_unique(list, "k.one", &two, PMIX_UINT32, true);
    CHECK(PMIX_SUCCESS == rc && 3 == PMIx_Info_list_get_size(list), "add_unique with overwrite keeps size");

    PMIX_VALUE_CONSTRUCT(&val);
    PMIX_VALUE_LOAD(&val, "v", PMIX_STRING);
    rc = PMIx_Info_list_add_value(list, "k.val", &val);
    CHECK_RC(rc, PMIX_SUCCESS, "add_value");
    rc = PMIx_Info_list_add_value_unique(list, "k.val", &val, false);
    CHECK(PMIX_SUCCESS == rc && 4 == PMIx_Info_list_get_size(list), "add_value_unique dedups");
    PMIX_VALUE_DESTRUCT(&val);

    /* insert keeps the caller's pointers and never frees them */
    PMIX_INFO_CONSTRUCT(&mine);
    PMIX_LOAD_KEY(mine.key, "k.mine");
    mine.value.type = PMIX_STRING;
    mine.value.data.string = shared;
    PMIX_INFO_LIST_INSERT(rc, list, &mine);
    CHECK_RC(rc, PMIX_SUCCESS, "insert");

    PMIX_INFO_LOAD(&src, "k.xfer", "copied", PMIX_STRING);
    PMIX_INFO_LIST_XFER(rc, list, &src);
    CHECK_RC(rc, PMIX_SUCCESS, "xfer");
    rc = PMIx_Info_list_xfer_unique(list, &src, true);
    CHECK(PMIX_SUCCESS == rc && 6 == PMIx_Info_list_get_size(list), "xfer_unique dedups");
    PMIX_INFO_DESTRUCT(&src);

    /* iterate */
    n = 0;
    cur = NULL;
    do {
        ip = PMIx_Info_list_get_info(list, cur, &nxt);
        if (NULL == ip) {
            break;
        }
        if (0 == n) {
            CHECK(0 == strcmp(ip->key, "k.first") && PMIX_BOOL == ip->value.type && ip->value.data.flag,
                  "first item is the prepended bool (true)");
        }
        if (1 == n) {
            CHECK(0 == strcmp(ip->key, "k.one") && 2 == ip->value.data.uint32, "overwrite replaced value");
        }
        if (4 == n) {
            CHECK(ip->value.data.string == shared, "inserted info shares the caller's string");
        }
        n++;
        cur = nxt;
    } while (NULL != cur);
    CHECK(6 == n, "iterated %d items", n);

    PMIX_INFO_LIST_CONVERT(rc, list, &darr);
    CHECK(PMIX_SUCCESS == rc && PMIX_INFO == darr.type && 6 == darr.size, "convert");
    arr = (pmix_info_t *) darr.array;
    CHECK(0 == strcmp(arr[2].value.data.string, "text") && PMIX_INFO_IS_END(&arr[5]), "converted content + END");
    PMIX_DATA_ARRAY_DESTRUCT(&darr);
    PMIX_INFO_LIST_RELEASE(list);
    CHECK(0 == strcmp(shared, "shared-string"), "caller's string survives list release");
    free(shared);

    /* empty list and NULL handles */
    PMIX_INFO_LIST_START(list);
    PMIX_INFO_LIST_CONVERT(rc, list, &darr);
    CHECK(PMIX_ERR_EMPTY == rc && 0 == darr.size && NULL == darr.array, "empty list converts to EMPTY");
    PMIX_INFO_LIST_RELEASE(list);
    PMIX_INFO_LIST_ADD(rc, NULL, "k", &one, PMIX_UINT32);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "NULL list rejected");
    PMIX_INFO_LIST_RELEASE(NULL);
    CHECK(0 == PMIx_Info_list_get_size(NULL), "NULL list has size 0");
    CHECK_DONE();
}
