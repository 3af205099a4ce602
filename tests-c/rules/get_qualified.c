/* get_qualified: rule "a key posted with PMIX_QUALIFIED_VALUE is stored with its
 * qualifiers; a Get naming qualifiers in info selects the matching entry and returns the
 * primary value only". Each rank posts "gq.bw" twice, qualified by device "a" and "b",
 * re-posts "a" (which replaces it), and readers select by qualifier. An unqualified Get
 * never sees a qualified value; an unmatched qualifier is NOT_FOUND.
 * Run: pmixrun -n 2 get_qualified */
#include "rules.h"

static pmix_status_t put_qualified(const char *key, int v, const char *dev)
{
    pmix_data_array_t *da;
    PMIX_DATA_ARRAY_CREATE(da, 2, PMIX_INFO);
    pmix_info_t *it = da->array;
    PMIX_INFO_LOAD(&it[0], key, &v, PMIX_INT);
    PMIX_INFO_LOAD(&it[1], "gq.dev", dev, PMIX_STRING);
    PMIX_INFO_SET_QUALIFIER(&it[1]);
    pmix_value_t val;
    PMIX_VALUE_CONSTRUCT(&val);
    val.type = PMIX_DATA_ARRAY;
    val.data.darray = da;
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, PMIX_QUALIFIED_VALUE, &val);
    PMIX_DATA_ARRAY_FREE(da);
    return rc;
}

static pmix_status_t get_qual(const pmix_proc_t *p, const char *key, const char *dev, int *out)
{
    pmix_info_t q;
    PMIX_INFO_CONSTRUCT(&q);
    PMIX_INFO_LOAD(&q, "gq.dev", dev, PMIX_STRING);
    PMIX_INFO_SET_QUALIFIER(&q);
    pmix_status_t rc = get_int(p, key, &q, 1, out);
    PMIX_INFO_DESTRUCT(&q);
    return rc;
}

int main(void)
{
    RULES_INIT();
    pmix_proc_t peer;
    proc_of(&peer, (me.rank + 1) % nprocs);
    int base = 100 * (int)me.rank, pb = 100 * (int)peer.rank;
    CHECK_RC(put_qualified("gq.bw", base + 1, "a"), PMIX_SUCCESS, "Put gq.bw qualified by a");
    CHECK_RC(put_qualified("gq.bw", base + 2, "b"), PMIX_SUCCESS, "Put gq.bw qualified by b");
    CHECK_RC(put_qualified("gq.bw", base + 3, "a"), PMIX_SUCCESS, "re-Put gq.bw for a");
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit");
    collect("collecting Fence");

    int v = -1;
    CHECK_RC(get_qual(&peer, "gq.bw", "b", &v), PMIX_SUCCESS, "peer: Get qualified by b");
    CHECK(pb + 2 == v, "the matching entry's primary value (%d)", v);
    v = -1;
    CHECK_RC(get_qual(&peer, "gq.bw", "a", &v), PMIX_SUCCESS, "peer: Get qualified by a");
    CHECK(pb + 3 == v, "a re-post with the same qualifiers replaced the entry (%d)", v);
    CHECK_RC(get_qual(&peer, "gq.bw", "c", &v), PMIX_ERR_NOT_FOUND, "peer: no entry for c");
    v = -1;
    CHECK_RC(get_qual(&me, "gq.bw", "b", &v), PMIX_SUCCESS, "self: Get qualified by b");
    CHECK(base + 2 == v, "own qualified value (%d)", v);
    pmix_info_t imm;
    flag_info(&imm, PMIX_IMMEDIATE);
    CHECK_RC(get_int(&peer, "gq.bw", &imm, 1, &v), PMIX_ERR_NOT_FOUND,
             "an unqualified Get never sees qualified values");
    PMIX_INFO_DESTRUCT(&imm);

    barrier("final Fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
