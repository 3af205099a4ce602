/* Eight threads use the helper API at once, starting together (so the library's
 * lazily built tables are first touched concurrently): info lists, Value_xfer from one
 * shared read-only value, Data_pack/unpack round trips, Error_string and the
 * attribute lookups. Every result is checked; a thread reports its failure count. */
#include <pthread.h>
#include <stdint.h>
#include "misuse.h"

#define NTHREADS 8
#define ITERS 300

static pthread_barrier_t start;
static pmix_value_t shared; /* read by every thread, written by none */

struct result {
    int id;
    int failures;
};

#define T_CHECK(cond) do { if (!(cond)) { r->failures++; } } while (0)

static void *worker(void *arg)
{
    struct result *r = arg;
    char key[64];

    pthread_barrier_wait(&start);
    for (int it = 0; it < ITERS; it++) {
        uint32_t mine = (uint32_t)(r->id * 100000 + it), got = 0;
        int32_t n;

        /* an info list of three items, converted and read back */
        void *list = PMIx_Info_list_start();
        pmix_data_array_t da;
        snprintf(key, sizeof(key), "t%d.k%d", r->id, it);
        T_CHECK(PMIX_SUCCESS == PMIx_Info_list_add(list, key, &mine, PMIX_UINT32));
        T_CHECK(PMIX_SUCCESS == PMIx_Info_list_add(list, "s", key, PMIX_STRING));
        T_CHECK(PMIX_SUCCESS == PMIx_Info_list_add_unique(list, key, &mine, PMIX_UINT32, true));
        T_CHECK(2 == PMIx_Info_list_get_size(list));
        T_CHECK(PMIX_SUCCESS == PMIx_Info_list_convert(list, &da));
        if (2 == da.size) {
            pmix_info_t *in = da.array;
            T_CHECK(0 == strcmp(in[0].key, key) && mine == in[0].value.data.uint32);
            T_CHECK(0 == strcmp(in[1].value.data.string, key));
        }
        PMIx_Data_array_destruct(&da);
        PMIx_Info_list_release(list);

        /* a deep copy of the shared value */
        pmix_value_t copy;
        PMIx_Value_construct(&copy);
        T_CHECK(PMIX_SUCCESS == PMIx_Value_xfer(&copy, &shared));
        T_CHECK(PMIX_EQUAL == PMIx_Value_compare(&copy, &shared));
        PMIx_Value_destruct(&copy);

        /* pack and unpack a uint32 and a string */
        pmix_data_buffer_t buf;
        char *s = key, *so = NULL;
        PMIx_Data_buffer_construct(&buf);
        T_CHECK(PMIX_SUCCESS == PMIx_Data_pack(NULL, &buf, &mine, 1, PMIX_UINT32));
        T_CHECK(PMIX_SUCCESS == PMIx_Data_pack(NULL, &buf, &s, 1, PMIX_STRING));
        n = 1;
        T_CHECK(PMIX_SUCCESS == PMIx_Data_unpack(NULL, &buf, &got, &n, PMIX_UINT32) && got == mine);
        n = 1;
        T_CHECK(PMIX_SUCCESS == PMIx_Data_unpack(NULL, &buf, &so, &n, PMIX_STRING) && so &&
                0 == strcmp(so, key));
        free(so);
        PMIx_Data_buffer_destruct(&buf);

        /* the static tables */
        T_CHECK(0 == strcmp(PMIx_Error_string(PMIX_ERR_NOT_FOUND), PMIx_Error_string(PMIX_ERR_NOT_FOUND)));
        T_CHECK(PMIX_ERR_TIMEOUT == PMIx_Error_code("PMIX_ERR_TIMEOUT"));
        T_CHECK(0 == strcmp(PMIx_Get_attribute_string("PMIX_JOB_SIZE"), PMIX_JOB_SIZE));
    }
    return NULL;
}

int main(void)
{
    pthread_t th[NTHREADS];
    struct result res[NTHREADS];
    pmix_info_t *infos;
    pmix_data_array_t *arr;
    pmix_status_t rc;

    /* the shared value: a data array of two infos, one holding a nested array */
    PMIX_INFO_CREATE(infos, 2);
    PMIX_INFO_LOAD(&infos[0], "a", "shared string", PMIX_STRING);
    PMIX_DATA_ARRAY_CREATE(arr, 3, PMIX_UINT64);
    ((uint64_t *)arr->array)[2] = 42;
    PMIX_INFO_LOAD(&infos[1], "b", arr, PMIX_DATA_ARRAY);
    PMIX_DATA_ARRAY_FREE(arr);
    arr = calloc(1, sizeof(*arr));
    arr->type = PMIX_INFO;
    arr->size = 2;
    arr->array = infos;
    PMIx_Value_construct(&shared);
    rc = PMIx_Value_load(&shared, arr, PMIX_DATA_ARRAY);
    CHECK_RC(rc, PMIX_SUCCESS, "shared value loaded");
    PMIX_DATA_ARRAY_FREE(arr);

    pthread_barrier_init(&start, NULL, NTHREADS);
    for (int i = 0; i < NTHREADS; i++) {
        res[i].id = i;
        res[i].failures = 0;
        CHECK(0 == pthread_create(&th[i], NULL, worker, &res[i]), "thread %d started", i);
    }
    for (int i = 0; i < NTHREADS; i++) {
        pthread_join(th[i], NULL);
        CHECK(0 == res[i].failures, "thread %d: %d iterations, %d failed checks", i, ITERS, res[i].failures);
    }
    pthread_barrier_destroy(&start);
    PMIx_Value_destruct(&shared);
    CHECK_DONE();
}
