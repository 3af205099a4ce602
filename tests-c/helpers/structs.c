/* create/free, construct/destruct and load/xfer of the descriptive structs; valgrind
 * checks that every library allocation is released by the matching free. */
#include <pmix.h>
#include <string.h>
#include "check.h"

int main(void)
{
    pmix_envar_t *ev;
    pmix_coord_t *coords;
    pmix_geometry_t *geo;
    pmix_device_distance_t *dd;
    pmix_node_pid_t *np;
    pmix_regex2_t *rx;
    pmix_regattr_t *ra, rcopy;
    pmix_app_t *apps;
    pmix_query_t *q;
    pmix_pdata_t *pd;
    pmix_proc_info_t *pi;
    pmix_topology_t *topo;
    pmix_cpuset_t *cpu;
    pmix_endpoint_t *ep;
    pmix_device_t *dev;
    pmix_resource_unit_t *ru;
    pmix_byte_object_t *bo;
    pmix_data_array_t *da;
    pmix_fabric_t fab;
    pmix_proc_t proc;
    uint32_t u = 11;
    pmix_status_t rc;

    PMIX_ENVAR_CREATE(ev, 2);
    PMIX_ENVAR_LOAD(&ev[0], "PATH", "/bin", ':');
    CHECK(0 == strcmp(ev[0].envar, "PATH") && ':' == ev[0].separator && NULL == ev[1].envar, "envar load");
    PMIX_ENVAR_FREE(ev, 2);

    PMIX_COORD_CREATE(coords, 2, 3);
    CHECK(NULL != coords && 3 == coords[1].dims && 0 == coords[1].coord[2], "coord create with dims");
    PMIX_COORD_FREE(coords, 2);

    PMIX_GEOMETRY_CREATE(geo, 1);
    geo->uuid = strdup("u");
    geo->coordinates = PMIx_Coord_create(2, 1);
    geo->ncoords = 1;
    PMIX_GEOMETRY_FREE(geo, 1);

    PMIX_DEVICE_DIST_CREATE(dd, 2);
    CHECK(UINT16_MAX == dd[1].mindist && UINT16_MAX == dd[1].maxdist, "device distance defaults");
    dd[0].uuid = strdup("d");
    PMIX_DEVICE_DIST_FREE(dd, 2);

    np = PMIx_Node_pid_create(2);
    CHECK(UINT32_MAX == np[0].nodeid && -1 == np[0].pid, "node pid defaults");
    np[1].hostname = strdup("host");
    PMIx_Node_pid_free(np, 2);

    rx = PMIx_Regex2_create(1);
    rx->type = strdup("native");
    rx->bytes = (uint8_t *) strdup("abc");
    rx->len = 4;
    PMIx_Regex2_destruct(rx);
    CHECK(NULL == rx->type && NULL == rx->bytes, "regex2 destruct resets");
    PMIx_Regex2_free(rx, 1);

    PMIX_REGATTR_CREATE(ra, 1);
    PMIX_REGATTR_LOAD(ra, "PMIX_TIMEOUT", PMIX_TIMEOUT, PMIX_INT, "seconds to wait");
    PMIX_REGATTR_LOAD(ra, NULL, NULL, PMIX_INT, "second line");
    PMIX_REGATTR_XFER(&rcopy, ra);
    CHECK(0 == strcmp(rcopy.name, "PMIX_TIMEOUT") && 0 == strcmp(rcopy.string, PMIX_TIMEOUT)
              && 2 == PMIx_Argv_count(rcopy.description), "regattr load + xfer");
    PMIX_REGATTR_DESTRUCT(&rcopy);
    PMIX_REGATTR_FREE(ra, 1);

    PMIX_APP_CREATE(apps, 2);
    apps[0].cmd = strdup("a.out");
    PMIX_ARGV_APPEND_UNIQUE(rc, &apps[0].argv, "a.out");
    CHECK_RC(rc, PMIX_SUCCESS, "argv append into an app");
    PMIX_APP_INFO_CREATE(&apps[0], 2);
    CHECK(2 == apps[0].ninfo && PMIX_INFO_IS_END(&apps[0].info[1]), "app info create");
    PMIX_INFO_LOAD(&apps[0].info[0], "k", "v", PMIX_STRING);
    PMIX_APP_FREE(apps, 2);
    CHECK(NULL == apps, "PMIX_APP_FREE NULLs");

    PMIX_QUERY_CREATE(q, 1);
    PMIX_ARGV_APPEND(rc, q->keys, PMIX_QUERY_NAMESPACES);
    PMIX_QUERY_QUALIFIERS_CREATE(q, 1);
    PMIX_INFO_LOAD(&q->qualifiers[0], PMIX_NSPACE, "ns", PMIX_STRING);
    PMIX_QUERY_RELEASE(q);

    PMIX_PDATA_CREATE(pd, 2);
    PMIX_LOAD_PROCID(&proc, "pub", 0);
    PMIX_PDATA_LOAD(&pd[0], &proc, "key", &u, PMIX_UINT32);
    PMIX_PDATA_XFER(&pd[1], &pd[0]);
    CHECK(0 == strcmp(pd[1].proc.nspace, "pub") && 0 == strcmp(pd[1].key, "key")
              && PMIX_UINT32 == pd[1].value.type, "pdata load + xfer");
    PMIX_PDATA_FREE(pd, 2);

    PMIX_PROC_INFO_CREATE(pi, 1);
    pi->hostname = strdup("h");
    pi->executable_name = strdup("e");
    PMIX_PROC_INFO_FREE(pi, 1);

    PMIX_TOPOLOGY_CREATE(topo, 1);
    topo->source = strdup("hwloc");
    PMIX_TOPOLOGY_FREE(topo, 1);
    PMIX_CPUSET_CREATE(cpu, 1);
    cpu->source = strdup("hwloc");
    PMIX_CPUSET_FREE(cpu, 1);

    PMIX_ENDPOINT_CREATE(ep, 1);
    ep->osname = strdup("eth0");
    ep->endpt.bytes = strdup("xyz");
    ep->endpt.size = 4;
    PMIX_ENDPOINT_FREE(ep, 1);

    PMIX_DEVICE_CREATE(dev, 1);
    dev->uuid = strdup("dev");
    PMIX_DEVICE_FREE(dev, 1);
    PMIX_RESOURCE_UNIT_CREATE(ru, 3);
    CHECK(0 == ru[2].count && PMIX_DEVTYPE_UNKNOWN == ru[2].type, "resource unit construct");
    PMIX_RESOURCE_UNIT_FREE(ru, 3);

    PMIX_BYTE_OBJECT_CREATE(bo, 2);
    {
        char *d = strdup("data");
        size_t dsz = 5;
        PMIX_BYTE_OBJECT_LOAD(&bo[1], d, dsz);
        CHECK(NULL == d && 0 == dsz && 5 == bo[1].size, "byte object load takes ownership");
    }
    PMIX_BYTE_OBJECT_FREE(bo, 2);

    /* data arrays of several element types, filled and freed */
    PMIX_DATA_ARRAY_CREATE(da, 2, PMIX_STRING);
    ((char **) da->array)[0] = strdup("s0");
    PMIX_DATA_ARRAY_FREE(da);
    PMIX_DATA_ARRAY_CREATE(da, 2, PMIX_VALUE);
    PMIX_VALUE_LOAD(&((pmix_value_t *) da->array)[1], "x", PMIX_STRING);
    PMIX_DATA_ARRAY_FREE(da);
    PMIX_DATA_ARRAY_CREATE(da, 2, PMIX_PROC);
    CHECK(PMIX_RANK_UNDEF == ((pmix_proc_t *) da->array)[1].rank, "proc array constructed");
    PMIX_DATA_ARRAY_FREE(da);
    PMIX_DATA_ARRAY_CREATE(da, 1, PMIX_DATA_ARRAY);
    PMIx_Data_array_construct(&((pmix_data_array_t *) da->array)[0], 2, PMIX_INFO);
    PMIX_DATA_ARRAY_FREE(da);
    PMIX_DATA_ARRAY_CREATE(da, 0, PMIX_INFO);
    CHECK(NULL == da, "zero-length create gives NULL");
    {
        pmix_data_array_t x;
        PMIx_Data_array_construct(&x, 3, 9999);
        CHECK(0 == x.size && NULL == x.array, "unknown element type gives an empty array");
    }

    PMIx_Fabric_construct(&fab);
    CHECK(SIZE_MAX == fab.index && NULL == fab.name && NULL == fab.info, "fabric construct");
    CHECK_DONE();
}
