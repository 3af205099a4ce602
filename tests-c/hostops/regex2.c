/* regex2: PMIx_generate_regex2 / PMIx_parse_regex2 (the "raw" scheme) and
 * PMIx_Progress, without a server. A generated regex parses back to its input; a
 * scheme this library cannot decode is PMIX_ERR_NOT_SUPPORTED; malformed or NULL
 * arguments are PMIX_ERR_BAD_PARAM. */
#include <string.h>

#include <pmix.h>
#include <pmix_server.h>

#include "check.h"

int main(void)
{
    const char *in = "node01,node02,node[3-4]";
    pmix_regex2_t r;
    memset(&r, 0, sizeof r);
    CHECK_RC(PMIx_generate_regex2(in, NULL, 0, &r), PMIX_SUCCESS, "generate_regex2");
    CHECK(r.type && 0 == strcmp(r.type, "raw"), "scheme raw");
    CHECK(r.len == strlen(in) + 1 && r.bytes && 0 == r.bytes[r.len - 1], "len counts the NUL");
    char *out = NULL;
    CHECK_RC(PMIx_parse_regex2(&r, NULL, 0, &out), PMIX_SUCCESS, "parse_regex2");
    CHECK(out && 0 == strcmp(out, in), "round trip: %s", out ? out : "(null)");
    free(out);

    out = NULL;
    r.len--; /* drop the terminator */
    CHECK_RC(PMIx_parse_regex2(&r, NULL, 0, &out), PMIX_ERR_BAD_PARAM, "raw bytes without NUL");
    r.len++;
    char *saved = r.type;
    r.type = "compress";
    CHECK_RC(PMIx_parse_regex2(&r, NULL, 0, &out), PMIX_ERR_NOT_SUPPORTED, "unknown scheme");
    r.type = NULL;
    CHECK_RC(PMIx_parse_regex2(&r, NULL, 0, &out), PMIX_ERR_BAD_PARAM, "NULL scheme");
    r.type = saved;
    CHECK(NULL == out, "no output on failure");
    CHECK_RC(PMIx_parse_regex2(NULL, NULL, 0, &out), PMIX_ERR_BAD_PARAM, "parse NULL regex");
    CHECK_RC(PMIx_parse_regex2(&r, NULL, 0, NULL), PMIX_ERR_BAD_PARAM, "parse NULL output");
    CHECK_RC(PMIx_generate_regex2(NULL, NULL, 0, &r), PMIX_ERR_BAD_PARAM, "generate NULL");
    CHECK_RC(PMIx_generate_regex2(in, NULL, 0, NULL), PMIX_ERR_BAD_PARAM, "generate into NULL");
    free(r.type);
    free(r.bytes);

    pmix_regex2_t e;
    CHECK_RC(PMIx_generate_regex2("", NULL, 0, &e), PMIX_SUCCESS, "generate of an empty list");
    CHECK_RC(PMIx_parse_regex2(&e, NULL, 0, &out), PMIX_SUCCESS, "parse it back");
    CHECK(out && 0 == strcmp(out, ""), "empty round trip");
    free(out);
    free(e.type);
    free(e.bytes);

    PMIx_Progress(); /* a no-op: the library progresses by itself */
    CHECK(1, "PMIx_Progress returned");
    CHECK_DONE();
}
