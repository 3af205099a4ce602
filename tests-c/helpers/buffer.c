/* The data-buffer codec through PMIX_DATA_BUFFER_* and PMIx_Data_*: pack/unpack of
 * several types in sequence, type mismatch, reading past the end, short storage,
 * unload/load/embed/copy_payload, Data_copy, compression, and a truncated buffer. */
#include <pmix.h>
#include <string.h>
#include "check.h"

int main(void)
{
    pmix_data_buffer_t *buf, copy;
    pmix_status_t rc;
    int32_t n;
    uint32_t u[3] = {1, 2, 3}, uo[3];
    char *strs[2] = {"alpha", "beta"}, *so[2] = {NULL, NULL};
    pmix_info_t *info, *io;
    pmix_value_t val, vo;
    pmix_byte_object_t bo;
    char *bytes = NULL;
    size_t sz = 0;
    void *dup = NULL;

    PMIX_DATA_BUFFER_CREATE(buf);
    CHECK(NULL != buf, "buffer created");
    rc = PMIx_Data_pack(NULL, buf, u, 3, PMIX_UINT32);

    CHECK_RC(rc, PMIX_SUCCESS, "pack uint32[3]");
    rc = PMIx_Data_pack(NULL, buf, strs, 2, PMIX_STRING);

    CHECK_RC(rc, PMIX_SUCCESS, "pack strings");
    PMIX_INFO_CREATE(info, 2);
    PMIX_INFO_LOAD(&info[0], "k0", "v0", PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], "k1", &u[2], PMIX_UINT32);
    rc = PMIx_Data_pack(NULL, buf, info, 2, PMIX_INFO);

    CHECK_RC(rc, PMIX_SUCCESS, "pack infos");
    PMIX_VALUE_CONSTRUCT(&val);
    PMIX_VALUE_LOAD(&val, "in a value", PMIX_STRING);
    rc = PMIx_Data_pack(NULL, buf, &val, 1, PMIX_VALUE);

    CHECK_RC(rc, PMIX_SUCCESS, "pack value");
    rc = PMIx_Data_pack(NULL, buf, u, 1, 9999);

    CHECK_RC(rc, PMIX_ERR_UNKNOWN_DATA_TYPE, "pack unknown type");
    rc = PMIx_Data_pack(NULL, NULL, u, 1, PMIX_UINT32);

    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "pack into NULL buffer");

    /* keep a copy of the payload for the later tests */
    PMIX_DATA_BUFFER_CONSTRUCT(&copy);
    rc = PMIx_Data_copy_payload(&copy, buf);

    CHECK_RC(rc, PMIX_SUCCESS, "copy payload");

    n = 1;
    rc = PMIx_Data_unpack(NULL, buf, so, &n, PMIX_STRING);
    /* v41 bytes carry no types (as in OpenPMIx): uint32s read as strings fail */
    CHECK(PMIX_SUCCESS != rc && 0 == n, "unpack as the wrong type fails (%d)", rc);
    n = 3;
    rc = PMIx_Data_unpack(NULL, buf, uo, &n, PMIX_UINT32);
    CHECK(PMIX_SUCCESS == rc && 3 == n && 3 == uo[2], "unpack uint32[3] after a mismatch");
    n = 2;
    rc = PMIx_Data_unpack(NULL, buf, so, &n, PMIX_STRING);
    CHECK(PMIX_SUCCESS == rc && 2 == n && 0 == strcmp(so[1], "beta"), "unpack strings (malloc'd): rc %d n %d", rc, n);
    free(so[0]);
    free(so[1]);
    PMIX_INFO_CREATE(io, 2);
    n = 2;
    rc = PMIx_Data_unpack(NULL, buf, io, &n, PMIX_INFO);
    CHECK(PMIX_SUCCESS == rc && 2 == n && 0 == strcmp(io[0].value.data.string, "v0") && 3 == io[1].value.data.uint32,
          "unpack infos");
    PMIX_INFO_FREE(io, 2);
    PMIX_VALUE_CONSTRUCT(&vo);
    n = 1;
    rc = PMIx_Data_unpack(NULL, buf, &vo, &n, PMIX_VALUE);
    CHECK(PMIX_SUCCESS == rc && PMIX_EQUAL == PMIx_Value_compare(&val, &vo), "unpack value");
    PMIX_VALUE_DESTRUCT(&vo);
    n = 1;
    rc = PMIx_Data_unpack(NULL, buf, uo, &n, PMIX_UINT32);
    CHECK_RC(rc, PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER, "read past end");
    PMIX_DATA_BUFFER_RELEASE(buf);
    CHECK(NULL == buf, "PMIX_DATA_BUFFER_RELEASE NULLs");

    /* short storage: first items delivered, record skipped */
    n = 2;
    rc = PMIx_Data_unpack(NULL, &copy, uo, &n, PMIX_UINT32);
    CHECK(PMIX_ERR_UNPACK_INADEQUATE_SPACE == rc && 2 == n && 2 == uo[1], "short storage");
    /* unload the rest, reload it, and continue */
    PMIX_DATA_BUFFER_UNLOAD(&copy, bytes, sz);
    CHECK(NULL != bytes && sz > 0 && NULL == copy.base_ptr, "unload hands over the unread bytes");
    PMIX_DATA_BUFFER_LOAD(&copy, bytes, sz);
    n = 2;
    rc = PMIx_Data_unpack(NULL, &copy, so, &n, PMIX_STRING);
    CHECK(PMIX_SUCCESS == rc && 0 == strcmp(so[0], "alpha"), "unpack after unload+load");
    free(so[0]);
    free(so[1]);
    rc = PMIx_Data_unload(&copy, &bo);

    CHECK_RC(rc, PMIX_SUCCESS, "unload to byte object");
    /* a truncated payload: unpack fails cleanly and nothing advances */
    {
        pmix_data_buffer_t t;
        pmix_byte_object_t half = {.bytes = bo.bytes, .size = 10};
        PMIX_DATA_BUFFER_CONSTRUCT(&t);
        rc = PMIx_Data_embed(&t, &half);

        CHECK_RC(rc, PMIX_SUCCESS, "embed copies");
        PMIX_INFO_CREATE(io, 2);
        n = 2;
        rc = PMIx_Data_unpack(NULL, &t, io, &n, PMIX_INFO);
        CHECK(PMIX_SUCCESS != rc && 0 == n && t.unpack_ptr == t.base_ptr, "truncated record rejected (%d)", rc);
        PMIX_INFO_FREE(io, 2);
        PMIX_DATA_BUFFER_DESTRUCT(&t);
    }
    PMIX_BYTE_OBJECT_DESTRUCT(&bo);
    PMIX_DATA_BUFFER_DESTRUCT(&copy);

    /* Data_copy */
    rc = PMIx_Data_copy(&dup, "a string", PMIX_STRING);
    CHECK(PMIX_SUCCESS == rc && 0 == strcmp((char *) dup, "a string"), "copy string");
    free(dup);
    rc = PMIx_Data_copy(&dup, &info[1], PMIX_INFO);
    CHECK(PMIX_SUCCESS == rc && 3 == ((pmix_info_t *) dup)->value.data.uint32, "copy info");
    PMIX_INFO_FREE(dup, 1);
    PMIX_INFO_FREE(info, 2);
    PMIX_VALUE_DESTRUCT(&val);

    /* compression */
    {
        size_t len = 20000, i, clen = 0, dlen = 0;
        uint8_t *in = malloc(len), *c = NULL, *d = NULL;
        for (i = 0; i < len; i++) {
            in[i] = (uint8_t) "PMIx-compress-"[i % 14];
        }
        CHECK(!PMIx_Data_compress(in, 100, &c, &clen) && NULL == c, "small input not compressed");
        CHECK(PMIx_Data_compress(in, len, &c, &clen) && clen < len, "compressed %zu -> %zu", len, clen);
        CHECK(PMIx_Data_decompress(c, clen, &d, &dlen) && dlen == len && 0 == memcmp(in, d, len), "round trip");
        free(d);
        d = NULL;
        CHECK(!PMIx_Data_decompress(c, clen / 2, &d, &dlen) && NULL == d, "truncated compressed data rejected");
        free(c);
        free(in);
    }
    CHECK_DONE();
}
