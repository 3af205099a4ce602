/* Differential test: built once against our headers and library and once against
 * Debian's OpenPMIx 4.2.2 (-DDIFF_REFERENCE), it prints one "id<TAB>result" line per
 * observation; tests-c/diff/compare.py diffs the two outputs. Only helpers that 4.2.2
 * has are used (functions, or the header macros both versions provide).
 *
 * Observations: status texts of every code, the enum printers over their range, data
 * type names, Value_load/xfer/compare/unload/string, Data_copy and Data_pack/unpack
 * round trips of every data type, ordering by Value_compare, Info_load/xfer/string,
 * the info list, data arrays, argv/setenv macros, attribute name lookups and
 * compression round trips. */
#include <pmix.h>
#include <pmix_tool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#ifdef DIFF_REFERENCE
#    include "../refinit.h"
#endif

/* One observation line; newlines and tabs inside results are escaped. */
static void out(const char *id, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#include <stdarg.h>
static void out(const char *id, const char *fmt, ...)
{
    char buf[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    printf("%s\t", id);
    for (const char *p = buf; *p; p++) {
        if ('\n' == *p) {
            fputs("\\n", stdout);
        } else if ('\t' == *p) {
            fputs("\\t", stdout);
        } else {
            putchar(*p);
        }
    }
    putchar('\n');
}

/* A status as its number: status texts differ between versions (they are compared
 * once, in the error_string section), the codes must not. */
static const char *rcname(pmix_status_t rc)
{
    static char bufs[4][16];
    static int next;
    char *b = bufs[next++ % 4];
    snprintf(b, sizeof(bufs[0]), "rc=%d", (int)rc);
    return b;
}

static const char *cmpname(pmix_value_cmp_t c)
{
    switch (c) {
    case PMIX_EQUAL: return "EQUAL";
    case PMIX_VALUE1_GREATER: return "V1";
    case PMIX_VALUE2_GREATER: return "V2";
    case PMIX_VALUE_TYPE_DIFFERENT: return "TYPE_DIFFERENT";
    case PMIX_VALUE_INCOMPATIBLE_OBJECTS: return "INCOMPATIBLE";
    case PMIX_VALUE_COMPARISON_NOT_AVAIL: return "NOT_AVAIL";
    default: return "?";
    }
}

/* ---- sample data of every type both versions support ---- */

static bool b_true = true;
static uint8_t u8 = 200;
static char *str = "hello world";
static size_t sz = 123456789;
static pid_t pid = 4321;
static int ival = -77;
static int8_t i8 = -8;
static int16_t i16 = -1600;
static int32_t i32 = -320000;
static int64_t i64 = -6400000000LL;
static unsigned int uval = 77;
static uint16_t u16 = 16000;
static uint32_t u32 = 3200000;
static uint64_t u64 = 6400000000ULL;
static float fval = 1.25f;
static double dval = -2.5;
static struct timeval tv = {10, 20};
static time_t tm = 1700000000;
static pmix_status_t st = PMIX_ERR_NOT_FOUND;
static pmix_rank_t rank = 7;
static pmix_proc_t proc;
static pmix_byte_object_t bo;
static pmix_persistence_t persist = PMIX_PERSIST_SESSION;
static pmix_scope_t scope = PMIX_GLOBAL;
static pmix_data_range_t range = PMIX_RANGE_NAMESPACE;
static pmix_proc_state_t pstate = PMIX_PROC_STATE_RUNNING;
static pmix_proc_info_t pinfo;
static pmix_data_array_t darray;
static uint32_t darray_items[3] = {1, 2, 3};
static pmix_envar_t envar;
static pmix_coord_t coord;
static uint32_t coord_items[2] = {4, 5};
static pmix_regattr_t regattr;
static pmix_job_state_t jstate = PMIX_JOB_STATE_RUNNING;
static pmix_link_state_t lstate = PMIX_LINK_UP;
static pmix_nspace_t nspace = "nspace-x";
static pmix_data_type_t dtype = PMIX_STRING;
static pmix_info_directives_t dirs = PMIX_INFO_REQD;
static pmix_iof_channel_t chan = PMIX_FWD_STDOUT_CHANNEL;
static pmix_alloc_directive_t adir = PMIX_ALLOC_EXTEND;
static pmix_geometry_t geometry;
static pmix_device_distance_t devdist;
static pmix_endpoint_t endpoint;
static pmix_device_type_t devtype = PMIX_DEVTYPE_GPU;
static pmix_locality_t loc = PMIX_LOCALITY_SHARE_NODE;

struct sample {
    const char *name;
    pmix_data_type_t type;
    void *data; /* as PMIx_Value_load takes it */
    size_t slot; /* size of one pack/unpack slot */
};

static struct sample samples[] = {
    {"BOOL", PMIX_BOOL, &b_true, sizeof(bool)},
    {"BYTE", PMIX_BYTE, &u8, 1},
    {"STRING", PMIX_STRING, NULL /* str */, sizeof(char *)},
    {"SIZE", PMIX_SIZE, &sz, sizeof(size_t)},
    {"PID", PMIX_PID, &pid, sizeof(pid_t)},
    {"INT", PMIX_INT, &ival, sizeof(int)},
    {"INT8", PMIX_INT8, &i8, 1},
    {"INT16", PMIX_INT16, &i16, 2},
    {"INT32", PMIX_INT32, &i32, 4},
    {"INT64", PMIX_INT64, &i64, 8},
    {"UINT", PMIX_UINT, &uval, sizeof(unsigned)},
    {"UINT8", PMIX_UINT8, &u8, 1},
    {"UINT16", PMIX_UINT16, &u16, 2},
    {"UINT32", PMIX_UINT32, &u32, 4},
    {"UINT64", PMIX_UINT64, &u64, 8},
    {"FLOAT", PMIX_FLOAT, &fval, sizeof(float)},
    {"DOUBLE", PMIX_DOUBLE, &dval, sizeof(double)},
    {"TIMEVAL", PMIX_TIMEVAL, &tv, sizeof(struct timeval)},
    {"TIME", PMIX_TIME, &tm, sizeof(time_t)},
    {"STATUS", PMIX_STATUS, &st, sizeof(pmix_status_t)},
    {"PROC_RANK", PMIX_PROC_RANK, &rank, sizeof(pmix_rank_t)},
    {"PROC", PMIX_PROC, &proc, sizeof(pmix_proc_t)},
    {"BYTE_OBJECT", PMIX_BYTE_OBJECT, &bo, sizeof(pmix_byte_object_t)},
    {"PERSIST", PMIX_PERSIST, &persist, 1},
    {"SCOPE", PMIX_SCOPE, &scope, 1},
    {"DATA_RANGE", PMIX_DATA_RANGE, &range, 1},
    {"PROC_STATE", PMIX_PROC_STATE, &pstate, 1},
    {"PROC_INFO", PMIX_PROC_INFO, &pinfo, sizeof(pmix_proc_info_t)},
    {"DATA_ARRAY", PMIX_DATA_ARRAY, &darray, sizeof(pmix_data_array_t)},
    {"ENVAR", PMIX_ENVAR, &envar, sizeof(pmix_envar_t)},
    {"COORD", PMIX_COORD, &coord, sizeof(pmix_coord_t)},
    {"REGATTR", PMIX_REGATTR, &regattr, sizeof(pmix_regattr_t)},
    {"JOB_STATE", PMIX_JOB_STATE, &jstate, 1},
    {"LINK_STATE", PMIX_LINK_STATE, &lstate, 1},
    {"PROC_NSPACE", PMIX_PROC_NSPACE, &nspace, sizeof(pmix_nspace_t)},
    {"DATA_TYPE", PMIX_DATA_TYPE, &dtype, 2},
    {"INFO_DIRECTIVES", PMIX_INFO_DIRECTIVES, &dirs, 4},
    {"IOF_CHANNEL", PMIX_IOF_CHANNEL, &chan, 2},
    {"ALLOC_DIRECTIVE", PMIX_ALLOC_DIRECTIVE, &adir, 1},
    {"GEOMETRY", PMIX_GEOMETRY, &geometry, sizeof(pmix_geometry_t)},
    {"DEVICE_DIST", PMIX_DEVICE_DIST, &devdist, sizeof(pmix_device_distance_t)},
    {"ENDPOINT", PMIX_ENDPOINT, &endpoint, sizeof(pmix_endpoint_t)},
    {"DEVTYPE", PMIX_DEVTYPE, &devtype, 8},
    {"LOCTYPE", PMIX_LOCTYPE, &loc, 2},
};
#define NSAMPLES (sizeof(samples) / sizeof(samples[0]))

static void init_samples(void)
{
    samples[2].data = str;
    PMIX_LOAD_PROCID(&proc, "job-a", 3);
    bo.bytes = "\001\002\003\377";
    bo.size = 4;
    PMIX_LOAD_PROCID(&pinfo.proc, "job-b", 1);
    pinfo.hostname = "host0";
    pinfo.executable_name = "a.out";
    pinfo.pid = 99;
    pinfo.exit_code = 0;
    pinfo.state = PMIX_PROC_STATE_RUNNING;
    darray.type = PMIX_UINT32;
    darray.size = 3;
    darray.array = darray_items;
    envar.envar = "PATH";
    envar.value = "/bin";
    envar.separator = ':';
    coord.view = PMIX_COORD_LOGICAL_VIEW;
    coord.coord = coord_items;
    coord.dims = 2;
    regattr.name = "PMIX_TIMEOUT";
    PMIX_LOAD_KEY(regattr.string, "pmix.timeout");
    regattr.type = PMIX_INT;
    regattr.description = NULL;
    geometry.fabric = 1;
    geometry.uuid = "uuid-1";
    geometry.osname = "mlx5_0";
    geometry.coordinates = &coord;
    geometry.ncoords = 1;
    devdist.uuid = "uuid-2";
    devdist.osname = "eth0";
    devdist.type = PMIX_DEVTYPE_NETWORK;
    devdist.mindist = 1;
    devdist.maxdist = 9;
    endpoint.uuid = "uuid-3";
    endpoint.osname = "ib0";
    endpoint.endpt.bytes = "\010\011";
    endpoint.endpt.size = 2;
}

/* ---- sections ---- */

static void status_texts(void)
{
    char id[64];
    for (int code = 10; code >= -1400; code--) {
        snprintf(id, sizeof(id), "error_string.%d", code);
        out(id, "%s", PMIx_Error_string(code));
    }
}

static void enum_printers(void)
{
    char id[96];
    for (int x = 0; x < 256; x++) {
#define P(fn, T)                                                \
    snprintf(id, sizeof(id), #fn ".%d", x);                     \
    out(id, "%s", fn((T)x))
        P(PMIx_Proc_state_string, pmix_proc_state_t);
        P(PMIx_Scope_string, pmix_scope_t);
        P(PMIx_Persistence_string, pmix_persistence_t);
        P(PMIx_Data_range_string, pmix_data_range_t);
        P(PMIx_Job_state_string, pmix_job_state_t);
        P(PMIx_Link_state_string, pmix_link_state_t);
        P(PMIx_Alloc_directive_string, pmix_alloc_directive_t);
#undef P
    }
    for (int x = 0; x < 90; x++) {
        snprintf(id, sizeof(id), "PMIx_Data_type_string.%d", x);
        out(id, "%s", PMIx_Data_type_string((pmix_data_type_t)x));
    }
    for (int x = 0; x < 16; x++) {
        snprintf(id, sizeof(id), "PMIx_IOF_channel_string.%d", x);
        out(id, "%s", PMIx_IOF_channel_string((pmix_iof_channel_t)x));
    }
    for (int bit = 0; bit < 64; bit++) {
        snprintf(id, sizeof(id), "PMIx_Device_type_string.bit%d", bit);
        out(id, "%s", PMIx_Device_type_string((pmix_device_type_t)1 << bit));
    }
    out("PMIx_Device_type_string.0", "%s", PMIx_Device_type_string(0));
    for (int x = -8; x < 8; x++) {
        snprintf(id, sizeof(id), "PMIx_Value_comparison_string.%d", x);
        out(id, "%s", PMIx_Value_comparison_string((pmix_value_cmp_t)x));
    }
    for (int bit = 0; bit < 32; bit++) {
        char *s = PMIx_Info_directives_string((pmix_info_directives_t)1 << bit);
        snprintf(id, sizeof(id), "PMIx_Info_directives_string.bit%d", bit);
        out(id, "%s", s ? s : "(null)");
        free(s);
    }
}

static void attributes(void)
{
    const char *names[] = {"PMIX_JOB_SIZE", "PMIX_TIMEOUT", "PMIX_HOSTNAME", "PMIX_RANK",
                           "PMIX_NSPACE", "PMIX_OPTIONAL", "PMIX_NO_SUCH_ATTRIBUTE"};
    const char *keys[] = {"pmix.job.size", "pmix.timeout", "pmix.hname", "pmix.rank",
                          "pmix.nspace", "pmix.optional", "pmix.no.such.key"};
    char id[96];
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        snprintf(id, sizeof(id), "attribute_string.%s", names[i]);
        out(id, "%s", PMIx_Get_attribute_string(names[i]));
        snprintf(id, sizeof(id), "attribute_name.%s", keys[i]);
        out(id, "%s", PMIx_Get_attribute_name(keys[i]));
    }
}

/* Value_load/xfer/compare/unload/string and Data_copy of every sample. */
static void values(void)
{
    char id[96];
    for (size_t i = 0; i < NSAMPLES; i++) {
        struct sample *s = &samples[i];
        pmix_value_t v, w;
        pmix_status_t rc;
        void *copy = NULL;
        PMIX_VALUE_CONSTRUCT(&v);
        PMIX_VALUE_CONSTRUCT(&w);
        rc = PMIx_Value_load(&v, s->data, s->type);
        snprintf(id, sizeof(id), "value.%s.load", s->name);
        out(id, "%s", rcname(rc));
        rc = PMIx_Value_xfer(&w, &v);
        snprintf(id, sizeof(id), "value.%s.xfer", s->name);
        out(id, "%s type=%s", rcname(rc), PMIx_Data_type_string(w.type));
        snprintf(id, sizeof(id), "value.%s.compare_copy", s->name);
        out(id, "%s", cmpname(PMIx_Value_compare(&v, &w)));
        {
            /* unload: simple types need storage; others come back malloc'd */
            union { char big[sizeof(pmix_proc_t) + 64]; uint64_t align; } storage;
            void *data = storage.big;
            size_t n = 0;
            int simple = s->type != PMIX_STRING && s->type != PMIX_BYTE_OBJECT &&
                         s->type != PMIX_PROC_INFO && s->type != PMIX_DATA_ARRAY &&
                         s->type != PMIX_ENVAR && s->type != PMIX_COORD && s->type != PMIX_REGATTR &&
                         s->type != PMIX_GEOMETRY && s->type != PMIX_DEVICE_DIST &&
                         s->type != PMIX_ENDPOINT;
            if (!simple) {
                data = NULL;
            }
            memset(storage.big, 0, sizeof(storage.big));
            rc = PMIx_Value_unload(&v, &data, &n);
            snprintf(id, sizeof(id), "value.%s.unload", s->name);
            out(id, "%s", rcname(rc));
            if (PMIX_SUCCESS == rc && simple) {
                snprintf(id, sizeof(id), "value.%s.unload_same", s->name);
                out(id, "%d", 0 == memcmp(storage.big, s->data, s->slot));
            }
            if (PMIX_SUCCESS == rc && !simple && NULL != data) {
                pmix_value_t back;
                PMIX_VALUE_CONSTRUCT(&back);
                /* reload what came out and compare with the original */
                rc = PMIx_Value_load(&back, PMIX_STRING == s->type ? data : data, s->type);
                snprintf(id, sizeof(id), "value.%s.unload_reload", s->name);
                out(id, "%s %s", rcname(rc), cmpname(PMIx_Value_compare(&v, &back)));
                PMIX_VALUE_DESTRUCT(&back);
                /* the unloaded copy is left to process exit: releasing it would need
                 * per-type code, and this program does not run under valgrind */
            }
        }
        {
            char *text = PMIx_Value_string(&v);
            snprintf(id, sizeof(id), "value.%s.string", s->name);
            out(id, "%s", text ? text : "(null)");
            free(text);
        }
        rc = PMIx_Data_copy(&copy, s->data, s->type);
        snprintf(id, sizeof(id), "data_copy.%s", s->name);
        if (PMIX_SUCCESS == rc && NULL != copy) {
            pmix_value_t back;
            pmix_status_t rc2;
            PMIX_VALUE_CONSTRUCT(&back);
            rc2 = PMIx_Value_load(&back, copy, s->type);
            out(id, "%s reload=%s %s", rcname(rc), rcname(rc2),
                cmpname(PMIx_Value_compare(&v, &back)));
            PMIX_VALUE_DESTRUCT(&back);
            /* the copy is left to process exit, as for unload above */
        } else {
            out(id, "%s", rcname(rc));
        }
        PMIX_VALUE_DESTRUCT(&v);
        PMIX_VALUE_DESTRUCT(&w);
    }
}

/* Pack two items of each type, unpack them, reload and compare with the originals. */
static void pack_unpack(void)
{
    char id[96];
    for (size_t i = 0; i < NSAMPLES; i++) {
        struct sample *s = &samples[i];
        pmix_data_buffer_t buf;
        pmix_status_t rc;
        char src[2 * 600], dst[2 * 600];
        void *item = PMIX_STRING == s->type ? (void *)&samples[2].data : s->data;
        int32_t n = 2;
        memcpy(src, item, s->slot);
        memcpy(src + s->slot, item, s->slot);
        memset(dst, 0, sizeof(dst));
        PMIX_DATA_BUFFER_CONSTRUCT(&buf);
        rc = PMIx_Data_pack(NULL, &buf, src, 2, s->type);
        snprintf(id, sizeof(id), "pack.%s", s->name);
        out(id, "%s", rcname(rc));
        rc = PMIx_Data_unpack(NULL, &buf, dst, &n, s->type);
        snprintf(id, sizeof(id), "unpack.%s", s->name);
        out(id, "%s n=%d", rcname(rc), n);
        if (PMIX_SUCCESS == rc) {
            for (int k = 0; k < n; k++) {
                pmix_value_t a, b;
                void *pa = PMIX_STRING == s->type ? *(void **)(src + k * s->slot) : src + k * s->slot;
                void *pb = PMIX_STRING == s->type ? *(void **)(dst + k * s->slot) : dst + k * s->slot;
                PMIX_VALUE_CONSTRUCT(&a);
                PMIX_VALUE_CONSTRUCT(&b);
                PMIx_Value_load(&a, pa, s->type);
                PMIx_Value_load(&b, pb, s->type);
                snprintf(id, sizeof(id), "unpack.%s.item%d", s->name, k);
                out(id, "%s", cmpname(PMIx_Value_compare(&a, &b)));
                PMIX_VALUE_DESTRUCT(&a);
                PMIX_VALUE_DESTRUCT(&b);
            }
            /* unpacked strings are freed; struct contents are left to process exit
             * (4.2.2 crashes destructing some of its own unpacked types) */
            if (PMIX_STRING == s->type) {
                free(*(char **)dst);
                free(*(char **)(dst + s->slot));
            }
        }
        n = 1;
        rc = PMIx_Data_unpack(NULL, &buf, dst, &n, s->type);
        snprintf(id, sizeof(id), "unpack.%s.past_end", s->name);
        out(id, "%s", rcname(rc));
        PMIX_DATA_BUFFER_DESTRUCT(&buf);
    }
    {
        /* a type mismatch */
        pmix_data_buffer_t buf;
        char *so = NULL;
        int32_t n = 1;
        pmix_status_t rc;
        PMIX_DATA_BUFFER_CONSTRUCT(&buf);
        PMIx_Data_pack(NULL, &buf, &u32, 1, PMIX_UINT32);
        rc = PMIx_Data_unpack(NULL, &buf, &so, &n, PMIX_STRING);
        out("unpack.mismatch", "%s", rcname(rc));
        PMIX_DATA_BUFFER_DESTRUCT(&buf);
    }
}

/* Ordering: pairs of values of one type. */
static void ordering(void)
{
    struct { const char *name; pmix_data_type_t t; int64_t a, b; } ints[] = {
        {"INT.1_2", PMIX_INT, 1, 2}, {"INT.-1_1", PMIX_INT, -1, 1}, {"INT.256_1", PMIX_INT, 256, 1},
        {"INT.5_5", PMIX_INT, 5, 5},
        {"UINT32.1_2", PMIX_UINT32, 1, 2}, {"UINT32.256_1", PMIX_UINT32, 256, 1},
        {"UINT32.7_7", PMIX_UINT32, 7, 7},
        {"INT64.-1_1", PMIX_INT64, -1, 1}, {"INT64.65536_2", PMIX_INT64, 65536, 2},
        {"SIZE.1_2", PMIX_SIZE, 1, 2}, {"SIZE.256_1", PMIX_SIZE, 256, 1},
        {"UINT8.1_2", PMIX_UINT8, 1, 2}, {"INT8.-1_1", PMIX_INT8, -1, 1},
        {"UINT16.256_1", PMIX_UINT16, 256, 1}, {"INT16.-1_1", PMIX_INT16, -1, 1},
        {"PROC_RANK.1_256", PMIX_PROC_RANK, 1, 256}, {"STATUS.-1_-2", PMIX_STATUS, -1, -2},
    };
    char id[96];
    for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
        pmix_value_t a, b;
        union { int64_t i64; int32_t i32; int16_t i16; int8_t i8; } ua, ub;
        size_t w = PMIX_INT64 == ints[i].t || PMIX_SIZE == ints[i].t ? 8
                 : PMIX_UINT8 == ints[i].t || PMIX_INT8 == ints[i].t ? 1
                 : PMIX_UINT16 == ints[i].t || PMIX_INT16 == ints[i].t ? 2 : 4;
        if (8 == w) { ua.i64 = ints[i].a; ub.i64 = ints[i].b; }
        else if (4 == w) { ua.i32 = (int32_t)ints[i].a; ub.i32 = (int32_t)ints[i].b; }
        else if (2 == w) { ua.i16 = (int16_t)ints[i].a; ub.i16 = (int16_t)ints[i].b; }
        else { ua.i8 = (int8_t)ints[i].a; ub.i8 = (int8_t)ints[i].b; }
        PMIX_VALUE_CONSTRUCT(&a);
        PMIX_VALUE_CONSTRUCT(&b);
        PMIx_Value_load(&a, &ua, ints[i].t);
        PMIx_Value_load(&b, &ub, ints[i].t);
        snprintf(id, sizeof(id), "order.%s", ints[i].name);
        out(id, "%s", cmpname(PMIx_Value_compare(&a, &b)));
        PMIX_VALUE_DESTRUCT(&a);
        PMIX_VALUE_DESTRUCT(&b);
    }
    {
        struct { const char *name; pmix_data_type_t t; double a, b; } fl[] = {
            {"DOUBLE.1.5_-2", PMIX_DOUBLE, 1.5, -2}, {"DOUBLE.2_3", PMIX_DOUBLE, 2, 3},
            {"DOUBLE.0_-0", PMIX_DOUBLE, 0.0, -0.0}, {"FLOAT.1_2", PMIX_FLOAT, 1, 2},
            {"FLOAT.-1_1", PMIX_FLOAT, -1, 1},
        };
        for (size_t i = 0; i < sizeof(fl) / sizeof(fl[0]); i++) {
            pmix_value_t a, b;
            float fa = (float)fl[i].a, fb = (float)fl[i].b;
            PMIX_VALUE_CONSTRUCT(&a);
            PMIX_VALUE_CONSTRUCT(&b);
            if (PMIX_FLOAT == fl[i].t) {
                PMIx_Value_load(&a, &fa, PMIX_FLOAT);
                PMIx_Value_load(&b, &fb, PMIX_FLOAT);
            } else {
                PMIx_Value_load(&a, &fl[i].a, PMIX_DOUBLE);
                PMIx_Value_load(&b, &fl[i].b, PMIX_DOUBLE);
            }
            snprintf(id, sizeof(id), "order.%s", fl[i].name);
            out(id, "%s", cmpname(PMIx_Value_compare(&a, &b)));
        }
    }
    {
        const char *sa[] = {"a", "ab", "b", "", "abc"};
        const char *sb[] = {"b", "b", "b", "a", "abd"};
        for (size_t i = 0; i < 5; i++) {
            pmix_value_t a, b;
            PMIX_VALUE_CONSTRUCT(&a);
            PMIX_VALUE_CONSTRUCT(&b);
            PMIx_Value_load(&a, sa[i], PMIX_STRING);
            PMIx_Value_load(&b, sb[i], PMIX_STRING);
            snprintf(id, sizeof(id), "order.STRING.%s_%s", sa[i], sb[i]);
            out(id, "%s", cmpname(PMIx_Value_compare(&a, &b)));
            PMIX_VALUE_DESTRUCT(&a);
            PMIX_VALUE_DESTRUCT(&b);
        }
    }
    {
        pmix_byte_object_t x = {"\001\002", 2}, y = {"\002", 1}, z = {"\001\003", 2};
        pmix_value_t a, b, c;
        PMIx_Value_load(&a, &x, PMIX_BYTE_OBJECT);
        PMIx_Value_load(&b, &y, PMIX_BYTE_OBJECT);
        PMIx_Value_load(&c, &z, PMIX_BYTE_OBJECT);
        out("order.BYTE_OBJECT.long_short", "%s", cmpname(PMIx_Value_compare(&a, &b)));
        out("order.BYTE_OBJECT.same_len", "%s", cmpname(PMIx_Value_compare(&a, &c)));
        PMIX_VALUE_DESTRUCT(&a);
        PMIX_VALUE_DESTRUCT(&b);
        PMIX_VALUE_DESTRUCT(&c);
    }
    {
        pmix_proc_t p1, p2;
        pmix_value_t a, b;
        PMIX_LOAD_PROCID(&p1, "aaa", 5);
        PMIX_LOAD_PROCID(&p2, "aab", 1);
        PMIx_Value_load(&a, &p1, PMIX_PROC);
        PMIx_Value_load(&b, &p2, PMIX_PROC);
        out("order.PROC.ns", "%s", cmpname(PMIx_Value_compare(&a, &b)));
        PMIX_VALUE_DESTRUCT(&b);
        PMIX_LOAD_PROCID(&p2, "aaa", 256);
        PMIx_Value_load(&b, &p2, PMIX_PROC);
        out("order.PROC.rank_5_256", "%s", cmpname(PMIx_Value_compare(&a, &b)));
        PMIX_VALUE_DESTRUCT(&a);
        PMIX_VALUE_DESTRUCT(&b);
    }
}

static void infos(void)
{
    pmix_info_t info, copy, *arr;
    pmix_status_t rc;
    char *s;
    void *list;
    pmix_data_array_t da;
    char id[96];

    rc = PMIx_Info_load(&info, "pmix.job.size", &u32, PMIX_UINT32);
    out("info.load", "%s key=%s type=%s", rcname(rc), info.key, PMIx_Data_type_string(info.value.type));
    PMIX_INFO_REQUIRED(&info);
    rc = PMIx_Info_xfer(&copy, &info);
    out("info.xfer", "%s key=%s flags=%u cmp=%s", rcname(rc), copy.key, (unsigned)copy.flags,
        cmpname(PMIx_Value_compare(&info.value, &copy.value)));
    s = PMIx_Info_string(&copy);
    out("info.string", "%s", s ? s : "(null)");
    free(s);
    PMIX_INFO_DESTRUCT(&copy);
    PMIX_INFO_DESTRUCT(&info);

    list = PMIx_Info_list_start();
    rc = PMIx_Info_list_add(list, "k1", "v1", PMIX_STRING);
    out("info_list.add", "%s", rcname(rc));
    rc = PMIx_Info_list_add(list, "k2", &u32, PMIX_UINT32);
    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, "k3", &b_true, PMIX_BOOL);
    rc = PMIx_Info_list_xfer(list, &info);
    out("info_list.xfer", "%s", rcname(rc));
    rc = PMIx_Info_list_convert(list, &da);
    out("info_list.convert", "%s type=%s size=%zu", rcname(rc), PMIx_Data_type_string(da.type), da.size);
    arr = da.array;
    for (size_t i = 0; i < da.size; i++) {
        snprintf(id, sizeof(id), "info_list.item%zu", i);
        out(id, "key=%s type=%s end=%d", arr[i].key, PMIx_Data_type_string(arr[i].value.type),
            PMIX_INFO_IS_END(&arr[i]) ? 1 : 0);
    }
    PMIX_DATA_ARRAY_DESTRUCT(&da);
    PMIx_Info_list_release(list);
    PMIX_INFO_DESTRUCT(&info);
    list = PMIx_Info_list_start();
    rc = PMIx_Info_list_convert(list, &da);
    out("info_list.convert_empty", "%s", rcname(rc));
    PMIx_Info_list_release(list);

    PMIX_INFO_CREATE(arr, 3);
    out("info.create.end", "%d%d%d", PMIX_INFO_IS_END(&arr[0]) ? 1 : 0, PMIX_INFO_IS_END(&arr[1]) ? 1 : 0,
        PMIX_INFO_IS_END(&arr[2]) ? 1 : 0);
    PMIX_INFO_FREE(arr, 3);
}

static void arrays_argv(void)
{
    pmix_data_array_t *da;
    char **argv = NULL, *joined;
    int cnt;
    pmix_status_t rc;

    PMIX_DATA_ARRAY_CREATE(da, 4, PMIX_UINT16);
    out("darray.create", "type=%s size=%zu array=%d", PMIx_Data_type_string(da->type), da->size, NULL != da->array);
    PMIX_DATA_ARRAY_FREE(da);
    PMIX_DATA_ARRAY_CREATE(da, 2, PMIX_PROC);
    out("darray.create_proc", "rank=%u", (unsigned)((pmix_proc_t *)da->array)[1].rank);
    PMIX_DATA_ARRAY_FREE(da);

    PMIX_ARGV_SPLIT(argv, "a::b:c:", ':');
    PMIX_ARGV_COUNT(cnt, argv);
    out("argv.split", "count=%d", cnt);
    PMIX_ARGV_APPEND(rc, argv, "d");
    PMIX_ARGV_PREPEND(rc, argv, "z");
    PMIX_ARGV_APPEND_UNIQUE(rc, &argv, "a");
    out("argv.append_unique_existing", "%s", rcname(rc));
    PMIX_ARGV_JOIN(joined, argv, ',');
    out("argv.join", "%s", joined);
    free(joined);
    PMIX_ARGV_FREE(argv);
    argv = NULL;
    PMIX_SETENV(rc, "DIFF_X", "1", &argv);
    PMIX_SETENV(rc, "DIFF_X", "2", &argv);
    out("setenv.overwrite", "%s %s", rcname(rc), argv ? argv[0] : "(null)");
    PMIX_ARGV_FREE(argv);
}

static void compression(void)
{
    char big[8192];
    uint8_t *c = NULL, *d = NULL;
    size_t cn = 0, dn = 0;
    bool ok;
    for (size_t i = 0; i < sizeof(big); i++) {
        big[i] = "pmix-data;"[i % 10];
    }
    ok = PMIx_Data_compress((uint8_t *)big, sizeof(big), &c, &cn);
    out("compress.big", "%d smaller=%d", ok, ok && cn < sizeof(big));
    if (ok) {
        ok = PMIx_Data_decompress(c, cn, &d, &dn);
        out("decompress.big", "%d same=%d", ok, ok && dn == sizeof(big) && 0 == memcmp(d, big, dn));
        free(c);
        free(d);
    }
}

int main(void)
{
#ifdef DIFF_REFERENCE
    if (0 != reference_init()) {
        return 1;
    }
#endif
    setvbuf(stdout, NULL, _IOLBF, 0);
    init_samples();
    status_texts();
    enum_printers();
    attributes();
    values();
    pack_unpack();
    ordering();
    infos();
    arrays_argv();
    compression();
    return 0;
}
