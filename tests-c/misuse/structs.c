/* Misuse of the struct lifecycles and loaders: construct/destruct/free of NULL,
 * create(0) and create(SIZE_MAX), loaders with NULL and over-length inputs and
 * unknown types. Each family goes through one macro so none is forgotten. */
#include <stdint.h>
#include "misuse.h"

/* NULL to construct/destruct/free, zero and huge create, then a real create/free. */
#define LIFECYCLE(T, name)                                                                  \
    do {                                                                                    \
        T *p_;                                                                              \
        SURVIVES(PMIx_##name##_construct(NULL), #name "_construct(NULL)");                  \
        SURVIVES(PMIx_##name##_destruct(NULL), #name "_destruct(NULL)");                    \
        SURVIVES(PMIx_##name##_free(NULL, 5), #name "_free(NULL, 5)");                      \
        CHECK(NULL == PMIx_##name##_create(0), #name "_create(0) is NULL");                 \
        CHECK(NULL == PMIx_##name##_create(SIZE_MAX), #name "_create(SIZE_MAX) is NULL");   \
        p_ = PMIx_##name##_create(2);                                                       \
        CHECK(NULL != p_, #name "_create(2)");                                              \
        PMIx_##name##_destruct(&p_[0]);                                                     \
        PMIx_##name##_construct(&p_[1]);                                                    \
        PMIx_##name##_free(p_, 2);                                                          \
    } while (0)

int main(void)
{
    struct hostile h = hostile_inputs();
    pmix_coord_t *c, cs;
    pmix_byte_object_t bo;
    pmix_envar_t ev;
    pmix_pdata_t pd, pd2;
    pmix_app_t app;
    pmix_query_t q;
    pmix_regattr_t ra, ra2;
    pmix_fabric_t fab;
    pmix_proc_t proc;
    uint32_t u32 = 5;

    LIFECYCLE(pmix_geometry_t, Geometry);
    LIFECYCLE(pmix_device_t, Device);
    LIFECYCLE(pmix_device_distance_t, Device_distance);
    LIFECYCLE(pmix_node_pid_t, Node_pid);
    LIFECYCLE(pmix_regex2_t, Regex2);
    LIFECYCLE(pmix_resource_unit_t, Resource_unit);
    LIFECYCLE(pmix_byte_object_t, Byte_object);
    LIFECYCLE(pmix_endpoint_t, Endpoint);
    LIFECYCLE(pmix_envar_t, Envar);
    LIFECYCLE(pmix_proc_info_t, Proc_info);
    LIFECYCLE(pmix_pdata_t, Pdata);
    LIFECYCLE(pmix_regattr_t, Regattr);
    LIFECYCLE(pmix_app_t, App);
    LIFECYCLE(pmix_query_t, Query);
    LIFECYCLE(pmix_topology_t, Topology);
    LIFECYCLE(pmix_cpuset_t, Cpuset);

    /* coords: their create takes dimensions and a count */
    SURVIVES(PMIx_Coord_construct(NULL), "Coord_construct(NULL)");
    SURVIVES(PMIx_Coord_destruct(NULL), "Coord_destruct(NULL)");
    SURVIVES(PMIx_Coord_free(NULL, 3), "Coord_free(NULL, 3)");
    CHECK(NULL == PMIx_Coord_create(3, 0), "Coord_create(3, 0) is NULL");
    CHECK(NULL == PMIx_Coord_create(SIZE_MAX, 2), "Coord_create(SIZE_MAX dims) is NULL");
    CHECK(NULL == PMIx_Coord_create(2, SIZE_MAX), "Coord_create(SIZE_MAX coords) is NULL");
    c = PMIx_Coord_create(0, 2);
    CHECK(NULL != c && 0 == c[1].dims && NULL == c[1].coord, "Coord_create(0 dims, 2)");
    PMIx_Coord_free(c, 2);
    PMIx_Coord_construct(&cs);
    PMIx_Coord_destruct(&cs);

    /* byte objects and envars */
    SURVIVES(PMIx_Byte_object_load(NULL, NULL, 10), "Byte_object_load(NULL)");
    PMIx_Byte_object_load(&bo, NULL, 1000);
    CHECK(NULL == bo.bytes && 0 == bo.size, "Byte_object_load(NULL data, 1000) has size 0");
    PMIx_Byte_object_destruct(&bo);
    SURVIVES(PMIx_Envar_load(NULL, "A", "B", ':'), "Envar_load(NULL)");
    PMIx_Envar_construct(&ev);
    PMIx_Envar_load(&ev, NULL, NULL, 0);
    CHECK(NULL == ev.envar && NULL == ev.value, "Envar_load of NULL strings");
    PMIx_Envar_load(&ev, h.key600, h.key600, ':');
    CHECK(NULL != ev.envar && 599 == strlen(ev.envar), "Envar_load of long strings");
    PMIx_Envar_destruct(&ev);

    /* pdata */
    SURVIVES(PMIx_Pdata_load(NULL, NULL, "k", &u32, PMIX_UINT32), "Pdata_load(NULL)");
    PMIx_Pdata_load(&pd, NULL, h.key_nonul, &u32, 9999);
    CHECK(PMIX_UNDEF == pd.value.type && PMIX_MAX_KEYLEN == strnlen(pd.key, sizeof(pd.key)),
          "Pdata_load of an unterminated key and type 9999: key truncated, value UNDEF");
    memset(proc.nspace, 'n', sizeof(proc.nspace));
    proc.rank = PMIX_RANK_INVALID;
    PMIx_Pdata_load(&pd, &proc, NULL, NULL, PMIX_STRING);
    CHECK(PMIX_MAX_NSLEN == strnlen(pd.proc.nspace, sizeof(pd.proc.nspace)),
          "Pdata_load of an unterminated namespace terminates it");
    SURVIVES(PMIx_Pdata_xfer(NULL, &pd), "Pdata_xfer(NULL dest)");
    SURVIVES(PMIx_Pdata_xfer(&pd2, NULL), "Pdata_xfer(NULL src)");
    SURVIVES(PMIx_Pdata_xfer(&pd, &pd), "Pdata_xfer onto itself");
    pd.value.type = 9999;
    PMIx_Pdata_xfer(&pd2, &pd);
    CHECK(PMIX_UNDEF == pd2.value.type, "Pdata_xfer of a value of type 9999 copies no value");
    PMIx_Pdata_destruct(&pd2);
    PMIx_Pdata_destruct(&pd);

    /* apps and queries */
    SURVIVES(PMIx_App_info_create(NULL, 3), "App_info_create(NULL)");
    PMIx_App_construct(&app);
    PMIx_App_info_create(&app, SIZE_MAX);
    CHECK(NULL == app.info && 0 == app.ninfo, "App_info_create(SIZE_MAX) allocates nothing");
    PMIx_App_info_create(&app, 0);
    CHECK(NULL == app.info && 0 == app.ninfo, "App_info_create(0)");
    PMIx_App_destruct(&app);
    SURVIVES(PMIx_App_release(NULL), "App_release(NULL)");
    SURVIVES(PMIx_Query_qualifiers_create(NULL, 2), "Query_qualifiers_create(NULL)");
    PMIx_Query_construct(&q);
    PMIx_Query_qualifiers_create(&q, SIZE_MAX);
    CHECK(NULL == q.qualifiers && 0 == q.nqual, "Query_qualifiers_create(SIZE_MAX) allocates nothing");
    PMIx_Query_destruct(&q);
    SURVIVES(PMIx_Query_release(NULL), "Query_release(NULL)");

    /* regattrs */
    SURVIVES(PMIx_Regattr_load(NULL, "N", "k", PMIX_INT, "d"), "Regattr_load(NULL)");
    PMIx_Regattr_construct(&ra);
    PMIx_Regattr_load(&ra, NULL, NULL, 9999, NULL);
    CHECK(NULL == ra.name && '\0' == ra.string[0] && NULL == ra.description, "Regattr_load of NULLs");
    PMIx_Regattr_load(&ra, h.key600, h.key_nonul, PMIX_INT, h.key600);
    CHECK(PMIX_MAX_KEYLEN == strnlen(ra.string, sizeof(ra.string)) && 1 == PMIx_Argv_count(ra.description),
          "Regattr_load of long and unterminated strings");
    SURVIVES(PMIx_Regattr_xfer(NULL, &ra), "Regattr_xfer(NULL dest)");
    SURVIVES(PMIx_Regattr_xfer(&ra2, NULL), "Regattr_xfer(NULL src)");
    PMIx_Regattr_construct(&ra2);
    PMIx_Regattr_xfer(&ra2, &ra);
    CHECK(NULL != ra2.name && 599 == strlen(ra2.name), "Regattr_xfer copies");
    PMIx_Regattr_destruct(&ra2);
    PMIx_Regattr_destruct(&ra);

    SURVIVES(PMIx_Fabric_construct(NULL), "Fabric_construct(NULL)");
    PMIx_Fabric_construct(&fab);
    CHECK(SIZE_MAX == fab.index && NULL == fab.name, "Fabric_construct");

    CHECK_DONE();
}
