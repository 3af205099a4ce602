/* put_get: every rank puts one value of every basic type, commits, fences (collecting
 * or not), and reads every value back from every rank, itself included.
 * Run: pmixrun -n N put_get collect|nocollect */
#include <pmix.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

static const pmix_data_type_t types[] = {
    PMIX_BOOL,   PMIX_BYTE,   PMIX_STRING, PMIX_SIZE,     PMIX_PID,     PMIX_INT,
    PMIX_INT8,   PMIX_INT16,  PMIX_INT32,  PMIX_INT64,    PMIX_UINT,    PMIX_UINT8,
    PMIX_UINT16, PMIX_UINT32, PMIX_UINT64, PMIX_FLOAT,    PMIX_DOUBLE,  PMIX_TIMEVAL,
    PMIX_TIME,   PMIX_STATUS, PMIX_PROC_RANK, PMIX_PROC,  PMIX_BYTE_OBJECT, PMIX_DATA_ARRAY,
};
#define NTYPES (sizeof types / sizeof types[0])

static pmix_proc_t me;

/* Storage for the pointer-valued types of one value (no library allocation, so
 * nothing needs releasing). */
struct store {
    char str[64];
    char bytes[40];
    pmix_proc_t proc;
    char s1[32];
    pmix_info_t infos[3];
    pmix_data_array_t darray;
};

/* The value rank `r` publishes for type index `t`. */
static void make_value(pmix_value_t *v, size_t t, pmix_rank_t r, struct store *s)
{
    memset(v, 0, sizeof *v);
    v->type = types[t];
    switch (types[t]) {
    case PMIX_BOOL: v->data.flag = (r % 2) == 1; break;
    case PMIX_BYTE: v->data.byte = (uint8_t)(0xA0 + r); break;
    case PMIX_STRING:
        snprintf(s->str, sizeof s->str, "string of rank %u", r);
        v->data.string = s->str;
        break;
    case PMIX_SIZE: v->data.size = (size_t)1 << 40 | r; break;
    case PMIX_PID: v->data.pid = (pid_t)(100000 + r); break;
    case PMIX_INT: v->data.integer = -1000 - (int)r; break;
    case PMIX_INT8: v->data.int8 = (int8_t)(-100 + (int)r); break;
    case PMIX_INT16: v->data.int16 = (int16_t)(-30000 + (int)r); break;
    case PMIX_INT32: v->data.int32 = INT32_MIN + (int32_t)r; break;
    case PMIX_INT64: v->data.int64 = INT64_MIN + (int64_t)r; break;
    case PMIX_UINT: v->data.uint = 4000000000u + r; break;
    case PMIX_UINT8: v->data.uint8 = (uint8_t)(250 - r % 200); break;
    case PMIX_UINT16: v->data.uint16 = (uint16_t)(65000 + r); break;
    case PMIX_UINT32: v->data.uint32 = UINT32_MAX - r; break;
    case PMIX_UINT64: v->data.uint64 = UINT64_MAX - r; break;
    case PMIX_FLOAT: v->data.fval = 1.5f + (float)r; break;
    case PMIX_DOUBLE: v->data.dval = -2.25e100 + (double)r; break;
    case PMIX_TIMEVAL:
        v->data.tv.tv_sec = 1700000000 + r;
        v->data.tv.tv_usec = 999999 - r;
        break;
    case PMIX_TIME: v->data.time = (time_t)1600000000 + r; break;
    case PMIX_STATUS: v->data.status = PMIX_ERR_NOT_FOUND - (int)r; break;
    case PMIX_PROC_RANK: v->data.rank = r * 3 + 1; break;
    case PMIX_PROC:
        PMIX_LOAD_PROCID(&s->proc, "some.other.nspace", r + 7);
        v->data.proc = &s->proc;
        break;
    case PMIX_BYTE_OBJECT:
        for (size_t i = 0; i < sizeof s->bytes; i++) {
            s->bytes[i] = (char)(i * 7 + r); /* includes NUL bytes */
        }
        v->data.bo.bytes = s->bytes;
        v->data.bo.size = sizeof s->bytes - (r % 5);
        break;
    case PMIX_DATA_ARRAY:
        memset(s->infos, 0, sizeof s->infos);
        PMIX_LOAD_KEY(s->infos[0].key, "pg.inner.u32");
        s->infos[0].value.type = PMIX_UINT32;
        s->infos[0].value.data.uint32 = r + 11;
        PMIX_LOAD_KEY(s->infos[1].key, "pg.inner.str");
        snprintf(s->s1, sizeof s->s1, "inner %u", r);
        s->infos[1].value.type = PMIX_STRING;
        s->infos[1].value.data.string = s->s1;
        PMIX_LOAD_KEY(s->infos[2].key, "pg.inner.bool");
        s->infos[2].value.type = PMIX_BOOL;
        s->infos[2].value.data.flag = true;
        s->darray.type = PMIX_INFO;
        s->darray.size = 3;
        s->darray.array = s->infos;
        v->data.darray = &s->darray;
        break;
    default: break;
    }
}

/* Whether `a` (what we got) equals `b` (what we expected). */
static bool same(const pmix_value_t *a, const pmix_value_t *b)
{
    if (a->type != b->type) {
        return false;
    }
    switch (a->type) {
    case PMIX_BOOL: return a->data.flag == b->data.flag;
    case PMIX_BYTE: return a->data.byte == b->data.byte;
    case PMIX_STRING:
        return a->data.string && b->data.string && 0 == strcmp(a->data.string, b->data.string);
    case PMIX_SIZE: return a->data.size == b->data.size;
    case PMIX_PID: return a->data.pid == b->data.pid;
    case PMIX_INT: return a->data.integer == b->data.integer;
    case PMIX_INT8: return a->data.int8 == b->data.int8;
    case PMIX_INT16: return a->data.int16 == b->data.int16;
    case PMIX_INT32: return a->data.int32 == b->data.int32;
    case PMIX_INT64: return a->data.int64 == b->data.int64;
    case PMIX_UINT: return a->data.uint == b->data.uint;
    case PMIX_UINT8: return a->data.uint8 == b->data.uint8;
    case PMIX_UINT16: return a->data.uint16 == b->data.uint16;
    case PMIX_UINT32: return a->data.uint32 == b->data.uint32;
    case PMIX_UINT64: return a->data.uint64 == b->data.uint64;
    case PMIX_FLOAT: return a->data.fval == b->data.fval;
    case PMIX_DOUBLE: return a->data.dval == b->data.dval;
    case PMIX_TIMEVAL:
        return a->data.tv.tv_sec == b->data.tv.tv_sec && a->data.tv.tv_usec == b->data.tv.tv_usec;
    case PMIX_TIME: return a->data.time == b->data.time;
    case PMIX_STATUS: return a->data.status == b->data.status;
    case PMIX_PROC_RANK: return a->data.rank == b->data.rank;
    case PMIX_PROC:
        return a->data.proc && b->data.proc && PMIX_CHECK_PROCID(a->data.proc, b->data.proc);
    case PMIX_BYTE_OBJECT:
        return a->data.bo.size == b->data.bo.size &&
               (0 == a->data.bo.size || 0 == memcmp(a->data.bo.bytes, b->data.bo.bytes, a->data.bo.size));
    case PMIX_DATA_ARRAY: {
        const pmix_data_array_t *x = a->data.darray, *y = b->data.darray;
        if (!x || !y || x->type != PMIX_INFO || y->type != PMIX_INFO || x->size != y->size) {
            return false;
        }
        const pmix_info_t *xi = x->array, *yi = y->array;
        for (size_t i = 0; i < x->size; i++) {
            if (!PMIX_CHECK_KEY(&xi[i], yi[i].key) || !same(&xi[i].value, &yi[i].value)) {
                return false;
            }
        }
        return true;
    }
    default: return false;
    }
}

int main(int argc, char **argv)
{
    bool collect = argc > 1 && 0 == strcmp(argv[1], "collect");
    if (argc != 2 || (!collect && 0 != strcmp(argv[1], "nocollect"))) {
        fprintf(stderr, "usage: put_get collect|nocollect\n");
        return 2;
    }
    RT_INIT(&me);
    uint32_t n = rt_job_size(me.nspace, 0);
    CHECK(n > 0, "job size %u", n);
    if (0 == n) {
        CHECK_DONE();
    }

    char key[PMIX_MAX_KEYLEN + 1];
    struct store s;
    pmix_value_t val;
    int put_ok = 1;
    for (size_t t = 0; t < NTYPES; t++) {
        make_value(&val, t, me.rank, &s);
        snprintf(key, sizeof key, "pg.%s", PMIx_Data_type_string(types[t]));
        put_ok &= PMIX_SUCCESS == PMIx_Put(PMIX_GLOBAL, key, &val);
    }
    CHECK(put_ok, "put %zu values, one per type", NTYPES);
    /* One LOCAL key too: everyone here is on the same node, so peers see it. */
    make_value(&val, 2, me.rank, &s);
    CHECK_RC(PMIx_Put(PMIX_LOCAL, "pg.local", &val), PMIX_SUCCESS, "Put LOCAL");
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit");

    pmix_info_t info;
    bool yes = true;
    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    CHECK_RC(PMIx_Fence(NULL, 0, collect ? &info : NULL, collect ? 1 : 0), PMIX_SUCCESS,
             collect ? "collecting Fence" : "non-collecting Fence");
    PMIX_INFO_DESTRUCT(&info);

    for (size_t t = 0; t < NTYPES; t++) {
        uint32_t bad = 0, first_bad = UINT32_MAX;
        pmix_status_t first_rc = PMIX_SUCCESS;
        snprintf(key, sizeof key, "pg.%s", PMIx_Data_type_string(types[t]));
        for (uint32_t r = 0; r < n; r++) {
            pmix_proc_t p;
            PMIX_LOAD_PROCID(&p, me.nspace, r);
            pmix_value_t *got = NULL;
            pmix_status_t rc = PMIx_Get(&p, key, NULL, 0, &got);
            make_value(&val, t, r, &s);
            if (PMIX_SUCCESS != rc || NULL == got || !same(got, &val)) {
                if (0 == bad++) {
                    first_bad = r;
                    first_rc = rc;
                }
            }
            if (got) {
                PMIX_VALUE_RELEASE(got);
            }
        }
        CHECK(0 == bad, "%s from all %u ranks (%u wrong; first: rank %u, %s)", key, n, bad,
              first_bad, PMIx_Error_string(first_rc));
    }
    uint32_t bad = 0;
    for (uint32_t r = 0; r < n; r++) {
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, me.nspace, r);
        pmix_value_t *got = NULL;
        make_value(&val, 2, r, &s);
        if (PMIX_SUCCESS != PMIx_Get(&p, "pg.local", NULL, 0, &got) || !got || !same(got, &val)) {
            bad++;
        }
        if (got) {
            PMIX_VALUE_RELEASE(got);
        }
    }
    CHECK(0 == bad, "LOCAL key from all %u ranks on this node (%u wrong)", n, bad);

    /* A key nobody posted: with PMIX_IMMEDIATE the answer is NOT_FOUND at once. */
    pmix_proc_t peer;
    PMIX_LOAD_PROCID(&peer, me.nspace, (me.rank + 1) % n);
    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, PMIX_IMMEDIATE, &yes, PMIX_BOOL);
    pmix_value_t *v = NULL;
    CHECK_RC(PMIx_Get(&peer, "pg.never.posted", &info, 1, &v), PMIX_ERR_NOT_FOUND,
             "Get of a key never posted, PMIX_IMMEDIATE");
    PMIX_INFO_DESTRUCT(&info);

    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "final Fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
