/* Print what PMIx_Query_info answers a client for PMIX_QUERY_ATTRIBUTE_SUPPORT, in the
 * JSON form of `pmix_info --attrs --json`: {"attributes": {function: [{"name", "key",
 * "type"}, ...]}}. Run under pmixrun -n 1; the optional argument is a comma-separated
 * list of functions (as pmix_info's --attrs FUNCS). With the argument --abi it prints
 * the answers to PMIX_QUERY_STABLE_ABI_VERSION and PMIX_QUERY_PROVISIONAL_ABI_VERSION
 * instead: {"stable_abi": "...", "provisional_abi": "..."}. info_check.py compares the
 * output with pmix_info's. Errors go to stderr with exit status 1. */
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void json_string(const char *s)
{
    putchar('"');
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if ('"' == c || '\\' == c) {
            printf("\\%c", c);
        } else if (c < 0x20) {
            printf("\\u%04x", c);
        } else {
            putchar(c);
        }
    }
    putchar('"');
}

/* One function's attributes: "name": [{...}, ...]. */
static int print_function(const pmix_info_t *fn)
{
    if (PMIX_DATA_ARRAY != fn->value.type || NULL == fn->value.data.darray ||
        PMIX_REGATTR != fn->value.data.darray->type) {
        fprintf(stderr, "attr_query: %s is not an array of regattrs\n", fn->key);
        return -1;
    }
    const pmix_regattr_t *ra = fn->value.data.darray->array;
    json_string(fn->key);
    printf(": [");
    for (size_t j = 0; j < fn->value.data.darray->size; j++) {
        printf("%s{\"name\": ", j ? ", " : "");
        json_string(ra[j].name);
        printf(", \"key\": ");
        json_string(ra[j].string);
        printf(", \"type\": %u}", (unsigned)ra[j].type);
    }
    printf("]");
    return 0;
}

/* The PMIX_QUERY_ATTRIBUTE_SUPPORT array inside the first PMIX_QUERY_RESULTS. */
static const pmix_data_array_t *support_of(const pmix_info_t *res, size_t nres)
{
    for (size_t i = 0; i < nres; i++) {
        if (!PMIX_CHECK_KEY(&res[i], PMIX_QUERY_RESULTS) ||
            PMIX_DATA_ARRAY != res[i].value.type) {
            continue;
        }
        const pmix_info_t *in = res[i].value.data.darray->array;
        for (size_t k = 0; k < res[i].value.data.darray->size; k++) {
            if (PMIX_CHECK_KEY(&in[k], PMIX_QUERY_ATTRIBUTE_SUPPORT) &&
                PMIX_DATA_ARRAY == in[k].value.type) {
                return in[k].value.data.darray;
            }
        }
    }
    return NULL;
}

/* The string answer to `key` inside the first PMIX_QUERY_RESULTS, or NULL. */
static const char *string_of(const pmix_info_t *res, size_t nres, const char *key)
{
    for (size_t i = 0; i < nres; i++) {
        if (!PMIX_CHECK_KEY(&res[i], PMIX_QUERY_RESULTS) ||
            PMIX_DATA_ARRAY != res[i].value.type) {
            continue;
        }
        const pmix_info_t *in = res[i].value.data.darray->array;
        for (size_t k = 0; k < res[i].value.data.darray->size; k++) {
            if (PMIX_CHECK_KEY(&in[k], key) && PMIX_STRING == in[k].value.type) {
                return in[k].value.data.string;
            }
        }
    }
    return NULL;
}

/* The two ABI levels, as JSON. */
static int print_abi(void)
{
    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    PMIx_Argv_append_nosize(&q.keys, PMIX_QUERY_STABLE_ABI_VERSION);
    PMIx_Argv_append_nosize(&q.keys, PMIX_QUERY_PROVISIONAL_ABI_VERSION);
    pmix_info_t *res = NULL;
    size_t nres = 0;
    pmix_status_t rc = PMIx_Query_info(&q, 1, &res, &nres);
    const char *st = string_of(res, nres, PMIX_QUERY_STABLE_ABI_VERSION);
    const char *pr = string_of(res, nres, PMIX_QUERY_PROVISIONAL_ABI_VERSION);
    int status = 0;
    if (PMIX_SUCCESS != rc || NULL == st || NULL == pr) {
        fprintf(stderr, "attr_query: ABI query: %s\n", PMIx_Error_string(rc));
        status = 1;
    } else {
        printf("{\"stable_abi\": ");
        json_string(st);
        printf(", \"provisional_abi\": ");
        json_string(pr);
        printf("}\n");
    }
    PMIX_INFO_FREE(res, nres);
    PMIX_QUERY_DESTRUCT(&q);
    return status;
}

static int finalize(int status)
{
    pmix_status_t rc = PMIx_Finalize(NULL, 0);
    if (PMIX_SUCCESS != rc) {
        fprintf(stderr, "attr_query: PMIx_Finalize: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    return status;
}

int main(int argc, char **argv)
{
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (PMIX_SUCCESS != rc) {
        fprintf(stderr, "attr_query: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    if (argc > 1 && 0 == strcmp(argv[1], "--abi")) {
        return finalize(print_abi());
    }
    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    PMIx_Argv_append_nosize(&q.keys, PMIX_QUERY_ATTRIBUTE_SUPPORT);
    if (argc > 1) {
        char **fns = PMIx_Argv_split(argv[1], ',');
        for (size_t i = 0; fns && fns[i]; i++) {
            PMIx_Argv_append_nosize(&q.keys, fns[i]);
        }
        PMIx_Argv_free(fns);
    }
    pmix_info_t *res = NULL;
    size_t nres = 0;
    int status = 0;
    rc = PMIx_Query_info(&q, 1, &res, &nres);
    const pmix_data_array_t *fns = PMIX_SUCCESS == rc ? support_of(res, nres) : NULL;
    if (NULL == fns || PMIX_INFO != fns->type) {
        fprintf(stderr, "attr_query: PMIx_Query_info: %s, no attribute support\n",
                PMIx_Error_string(rc));
        status = 1;
    } else {
        const pmix_info_t *f = fns->array;
        printf("{\"attributes\": {");
        for (size_t i = 0; i < fns->size && 0 == status; i++) {
            printf("%s", i ? ", " : "");
            status = print_function(&f[i]) ? 1 : 0;
        }
        printf("}}\n");
    }
    PMIX_INFO_FREE(res, nres);
    PMIX_QUERY_DESTRUCT(&q);
    return finalize(status);
}
