/* Misuse of the data-buffer API: NULL buffers and outputs, negative and zero counts,
 * unknown types, inconsistent buffer pointers, hostile record headers (a count of
 * 4 G items with a few bytes behind it), garbage payloads, compression of garbage. */
#include <stdint.h>
#include "misuse.h"

/* A buffer holding a copy of `n` bytes. */
static void load_bytes(pmix_data_buffer_t *b, const void *bytes, size_t n)
{
    char *copy = malloc(n ? n : 1);
    memcpy(copy, bytes, n);
    PMIx_Data_buffer_load(b, copy, n);
}

int main(void)
{
    pmix_data_buffer_t buf, other, *bp;
    pmix_byte_object_t bo;
    pmix_status_t rc;
    uint32_t u[4] = {1, 2, 3, 4}, uo[4];
    char *so[2] = {NULL, NULL}, *bytes = NULL, *out = NULL;
    void *copy = NULL;
    int32_t n;
    size_t sz = 0;
    uint8_t *cout = NULL;
    size_t cn = 0;
    unsigned seed = 12345;

    /* lifecycle */
    SURVIVES(PMIx_Data_buffer_construct(NULL), "Data_buffer_construct(NULL)");
    SURVIVES(PMIx_Data_buffer_destruct(NULL), "Data_buffer_destruct(NULL)");
    SURVIVES(PMIx_Data_buffer_release(NULL), "Data_buffer_release(NULL)");
    SURVIVES(PMIx_Data_buffer_load(NULL, NULL, 10), "Data_buffer_load(NULL)");
    SURVIVES(PMIx_Data_buffer_unload(NULL, &bytes, &sz), "Data_buffer_unload(NULL buffer)");
    CHECK(NULL == bytes && 0 == sz, "... yields nothing");
    bp = PMIx_Data_buffer_create();
    CHECK(NULL != bp, "Data_buffer_create");
    SURVIVES(PMIx_Data_buffer_unload(bp, NULL, &sz), "Data_buffer_unload(NULL bytes)");
    SURVIVES(PMIx_Data_buffer_unload(bp, &bytes, NULL), "Data_buffer_unload(NULL size)");
    SURVIVES(PMIx_Data_buffer_load(bp, NULL, 100), "Data_buffer_load(NULL bytes, 100)");
    CHECK(NULL == bp->base_ptr && 0 == bp->bytes_used, "... leaves it empty");

    /* pack */
    rc = PMIx_Data_pack(NULL, NULL, u, 1, PMIX_UINT32);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Data_pack(NULL buffer)");
    rc = PMIx_Data_pack(NULL, bp, NULL, 2, PMIX_UINT32);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Data_pack(NULL src, 2)");
    rc = PMIx_Data_pack(NULL, bp, u, -1, PMIX_UINT32);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Data_pack(-1 items)");
    rc = PMIx_Data_pack(NULL, bp, u, INT32_MIN, PMIX_UINT32);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Data_pack(INT32_MIN items)");
    rc = PMIx_Data_pack(NULL, bp, u, 1, 9999);
    CHECK_RC(rc, PMIX_ERR_UNKNOWN_DATA_TYPE, "Data_pack of type 9999");
    rc = PMIx_Data_pack(NULL, bp, u, 1, PMIX_UNDEF);
    CHECK_ERR(rc, "Data_pack of PMIX_UNDEF");
    CHECK(0 == bp->bytes_used, "failed packs leave the buffer empty");
    rc = PMIx_Data_pack(NULL, bp, NULL, 0, PMIX_UINT32);
    CHECK_RC(rc, PMIX_SUCCESS, "Data_pack of zero items");
    n = 4;
    rc = PMIx_Data_unpack(NULL, bp, uo, &n, PMIX_UINT32);
    CHECK(PMIX_SUCCESS == rc && 0 == n, "unpack of a zero-item record (%d, %d)", rc, n);

    /* unpack: NULL arguments, bad capacities, empty buffer */
    rc = PMIx_Data_pack(NULL, bp, u, 4, PMIX_UINT32);
    CHECK_RC(rc, PMIX_SUCCESS, "Data_pack uint32[4]");
    n = 4;
    rc = PMIx_Data_unpack(NULL, NULL, uo, &n, PMIX_UINT32);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Data_unpack(NULL buffer)");
    rc = PMIx_Data_unpack(NULL, bp, NULL, &n, PMIX_UINT32);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Data_unpack(NULL dest)");
    rc = PMIx_Data_unpack(NULL, bp, uo, NULL, PMIX_UINT32);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Data_unpack(NULL count)");
    n = -5;
    rc = PMIx_Data_unpack(NULL, bp, uo, &n, PMIX_UINT32);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Data_unpack(-5 slots)");
    n = 0;
    rc = PMIx_Data_unpack(NULL, bp, uo, &n, PMIX_UINT32);
    CHECK_RC(rc, PMIX_ERR_UNPACK_INADEQUATE_SPACE, "Data_unpack(0 slots)");
    n = 4;
    rc = PMIx_Data_unpack(NULL, bp, uo, &n, 9999);
    CHECK(PMIX_ERR_UNKNOWN_DATA_TYPE == rc && 0 == n, "Data_unpack as type 9999");
    n = 2;
    rc = PMIx_Data_unpack(NULL, bp, so, &n, PMIX_STRING);
    CHECK(PMIX_SUCCESS != rc && 0 == n && NULL == so[0], "Data_unpack as the wrong type");
    n = 4;
    rc = PMIx_Data_unpack(NULL, bp, uo, &n, PMIX_UINT32);
    CHECK(PMIX_SUCCESS == rc && 4 == n && 4 == uo[3], "the record is still intact after the errors");
    n = 4;
    rc = PMIx_Data_unpack(NULL, bp, uo, &n, PMIX_UINT32);
    CHECK(PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER == rc && 0 == n, "unpack past the end");

    /* inconsistent buffer pointers */
    PMIx_Data_buffer_construct(&buf);
    load_bytes(&buf, u, sizeof(u));
    buf.unpack_ptr = buf.base_ptr + 1000;
    n = 1;
    rc = PMIx_Data_unpack(NULL, &buf, uo, &n, PMIX_UINT32);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "unpack with unpack_ptr past the data");
    rc = PMIx_Data_pack(NULL, &buf, u, 1, PMIX_UINT32);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "pack with unpack_ptr past the data");
    PMIx_Data_buffer_construct(&other);
    rc = PMIx_Data_copy_payload(&other, &buf);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "copy_payload from an inconsistent buffer");
    rc = PMIx_Data_unload(&buf, &bo);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "unload of an inconsistent buffer");
    buf.unpack_ptr = buf.base_ptr - 1;
    rc = PMIx_Data_unpack(NULL, &buf, uo, &n, PMIX_UINT32);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "unpack with unpack_ptr before the data");
    buf.unpack_ptr = buf.base_ptr;
    buf.bytes_used = buf.bytes_allocated + 1;
    rc = PMIx_Data_unpack(NULL, &buf, uo, &n, PMIX_UINT32);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "unpack with bytes_used > bytes_allocated");
    buf.bytes_used = buf.bytes_allocated;
    PMIx_Data_buffer_destruct(&buf);

    /* hostile record headers */
    {
        /* type PMIX_UINT32, count 0xffffffff, 4 bytes of items */
        uint8_t rec[] = {(uint8_t)PMIX_UINT32, 0, 0xff, 0xff, 0xff, 0xff, 1, 0, 0, 0};
        uint32_t big[1];
        load_bytes(&buf, rec, sizeof(rec));
        n = 1;
        rc = PMIx_Data_unpack(NULL, &buf, big, &n, PMIX_UINT32);
        CHECK(rc < 0 && 0 == n, "a 4 G-item count with 4 bytes behind it is refused (%d)", rc);
        PMIx_Data_buffer_destruct(&buf);
    }
    {
        /* a string record claiming a 2 GiB string */
        uint8_t rec[] = {(uint8_t)PMIX_STRING, 0, 1, 0, 0, 0, (uint8_t)PMIX_STRING, 0,
                         1, 0xff, 0xff, 0xff, 0x7f, 'x'};
        load_bytes(&buf, rec, sizeof(rec));
        n = 1;
        rc = PMIx_Data_unpack(NULL, &buf, so, &n, PMIX_STRING);
        CHECK(rc < 0 && 0 == n && NULL == so[0], "a 2 GiB string length is refused (%d)", rc);
        PMIx_Data_buffer_destruct(&buf);
    }
    /* garbage payloads, unpacked as every type code 0..80 */
    for (int round = 0; round < 200; round++) {
        uint8_t junk[64];
        pmix_data_type_t t = (pmix_data_type_t)(round % 81);
        void *slots = calloc(2, 1024); /* room for two of the largest struct */
        size_t len = (size_t)(rand_r(&seed) % sizeof(junk));
        for (size_t k = 0; k < len; k++) {
            junk[k] = (uint8_t)rand_r(&seed);
        }
        if (len >= 2) {
            junk[0] = (uint8_t)t; /* make the type header match */
            junk[1] = 0;
        }
        load_bytes(&buf, junk, len);
        n = 2;
        rc = PMIx_Data_unpack(NULL, &buf, slots, &n, t);
        if ((PMIX_SUCCESS == rc || PMIX_ERR_UNPACK_INADEQUATE_SPACE == rc) && PMIX_REGEX != t) {
            /* release what was decoded the way a caller can: as a data array */
            pmix_data_array_t arr = {.type = t, .size = (size_t)n, .array = slots};
            PMIx_Data_array_destruct(&arr);
        } else {
            if (PMIX_REGEX == t) {
                for (int k = 0; k < n; k++) {
                    free(((char **)slots)[k]);
                }
            }
            free(slots);
        }
        PMIx_Data_buffer_destruct(&buf);
    }
    CHECK(1, "200 garbage payloads unpacked without a crash");

    /* packing malformed C data: bogus value types, unterminated keys, a cycle */
    {
        pmix_value_t bogus[2];
        pmix_info_t inf;
        pmix_data_array_t cyc;
        PMIx_Data_buffer_construct(&buf);
        PMIx_Value_construct(&bogus[0]);
        PMIx_Value_construct(&bogus[1]);
        bogus[1].type = 9999;
        rc = PMIx_Data_pack(NULL, &buf, bogus, 2, PMIX_VALUE);
        CHECK_RC(rc, PMIX_ERR_UNKNOWN_DATA_TYPE, "pack of a value of type 9999");
        PMIx_Info_construct(&inf);
        memset(inf.key, 'k', sizeof(inf.key));
        rc = PMIx_Data_pack(NULL, &buf, &inf, 1, PMIX_INFO);
        CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "pack of an info with an unterminated key");
        bogus[0].type = PMIX_DATA_ARRAY;
        bogus[0].data.darray = &cyc;
        cyc.type = PMIX_VALUE;
        cyc.size = 1;
        cyc.array = &bogus[0];
        rc = PMIx_Data_pack(NULL, &buf, bogus, 1, PMIX_VALUE);
        CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "pack of a cyclic value");
        CHECK(0 == buf.bytes_used, "nothing was appended by the failed packs");
        PMIx_Data_buffer_destruct(&buf);
    }

    /* copy */
    rc = PMIx_Data_copy(NULL, u, PMIX_UINT32);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Data_copy(NULL dest)");
    rc = PMIx_Data_copy(&copy, NULL, PMIX_UINT32);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Data_copy(NULL src)");
    rc = PMIx_Data_copy(&copy, u, 9999);
    CHECK(PMIX_ERR_UNKNOWN_DATA_TYPE == rc && NULL == copy, "Data_copy of type 9999");
    rc = PMIx_Data_copy(&copy, u, PMIX_UNDEF);
    CHECK(rc < 0 && NULL == copy, "Data_copy of PMIX_UNDEF (%d)", rc);

    /* copy_payload / load / unload / embed */
    rc = PMIx_Data_copy_payload(NULL, bp);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "copy_payload(NULL dest)");
    rc = PMIx_Data_copy_payload(&other, NULL);
    CHECK_RC(rc, PMIX_SUCCESS, "copy_payload(NULL src) is a no-op");
    rc = PMIx_Data_load(NULL, &bo);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Data_load(NULL buffer)");
    rc = PMIx_Data_load(&other, NULL);
    CHECK(PMIX_SUCCESS == rc && NULL == other.base_ptr, "Data_load(NULL payload) empties");
    rc = PMIx_Data_unload(NULL, &bo);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Data_unload(NULL buffer)");
    rc = PMIx_Data_unload(&other, NULL);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Data_unload(NULL payload)");
    rc = PMIx_Data_unload(&other, &bo);
    CHECK(PMIX_SUCCESS == rc && NULL == bo.bytes && 0 == bo.size, "unload of an empty buffer");
    rc = PMIx_Data_embed(NULL, &bo);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Data_embed(NULL buffer)");
    rc = PMIx_Data_embed(&other, NULL);
    CHECK_RC(rc, PMIX_SUCCESS, "Data_embed(NULL payload)");
    bo.bytes = NULL;
    bo.size = 1000; /* NULL bytes with a size: nothing to read */
    rc = PMIx_Data_embed(&other, &bo);
    CHECK(PMIX_SUCCESS == rc && 0 == other.bytes_used, "Data_embed of NULL bytes with size 1000");
    PMIx_Data_buffer_destruct(&other);
    PMIx_Data_buffer_release(bp);

    /* compression */
    CHECK(!PMIx_Data_compress(NULL, 10, &cout, &cn), "Data_compress(NULL input)");
    CHECK(!PMIx_Data_compress((const uint8_t *)u, sizeof(u), NULL, &cn), "Data_compress(NULL output)");
    CHECK(!PMIx_Data_compress((const uint8_t *)u, sizeof(u), &cout, NULL), "Data_compress(NULL size)");
    CHECK(!PMIx_Data_compress((const uint8_t *)u, 0, &cout, &cn) && NULL == cout, "Data_compress of 0 bytes");
    CHECK(!PMIx_Data_decompress(NULL, 10, &cout, &cn), "Data_decompress(NULL input)");
    CHECK(!PMIx_Data_decompress((const uint8_t *)u, sizeof(u), NULL, &cn), "Data_decompress(NULL output)");
    CHECK(!PMIx_Data_decompress((const uint8_t *)u, 0, &cout, &cn) && NULL == cout, "Data_decompress of 0 bytes");
    {
        /* a header declaring 4 GiB of output behind 2 bytes, and pure garbage */
        uint8_t hdr[] = {'P', 'X', 'Z', '1', 0xff, 0xff, 0xff, 0xff, 0x10, 'x'};
        CHECK(!PMIx_Data_decompress(hdr, sizeof(hdr), &cout, &cn) && NULL == cout, "decompress of a 4 GiB claim");
        CHECK(!PMIx_Data_decompress((const uint8_t *)"garbage!garbage!", 16, &cout, &cn), "decompress of garbage");
    }

    /* print */
    rc = PMIx_Data_print(NULL, NULL, u, PMIX_UINT32);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Data_print(NULL output)");
    rc = PMIx_Data_print(&out, NULL, NULL, PMIX_UINT32);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "Data_print(NULL src)");
    rc = PMIx_Data_print(&out, "x", u, 9999);
    CHECK(PMIX_ERR_UNKNOWN_DATA_TYPE == rc && NULL == out, "Data_print of type 9999");
    rc = PMIx_Data_print(&out, NULL, u, PMIX_UINT32);
    CHECK(PMIX_SUCCESS == rc && NULL != out, "Data_print with NULL prefix");
    free(out);

    CHECK_DONE();
}
