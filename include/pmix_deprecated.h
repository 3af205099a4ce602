/*
 * pmix_deprecated.h - names OpenPMIx has retired but still defines, so that existing
 * programs keep compiling. New code should not use them. Included at the end of
 * pmix_common.h; there is no need to include it directly.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */

#ifndef PMIx_DEPRECATED_H
#define PMIx_DEPRECATED_H

/* Normally reached from the end of pmix_common.h; included directly, it pulls that in
 * first (whose own include of this file is then skipped by the guard). */
#include <pmix_common.h>

#if defined(c_plusplus) || defined(__cplusplus)
extern "C" {
#endif

/* ------------------------------------------------------------------------------------
 * Retired data type numbers. Values of these types may still arrive from older peers and
 * are still decoded, but nothing should produce them.
 * ------------------------------------------------------------------------------------ */
#define PMIX_BUFFER                     26  /* use PMIX_DATA_BUFFER */
#define PMIX_COMPRESSED_STRING          42  /* use PMIX_STRING */
#define PMIX_REGEX                      49  /* use PMIX_REGEX2 */

/* ------------------------------------------------------------------------------------
 * Retired functions
 * ------------------------------------------------------------------------------------ */

/* Encode a comma-separated list of names (e.g. host names) into a compact string.
 * On success *regex receives a malloc'd result owned by the caller (free). input must
 * not be NULL. Replaced by PMIx_generate_regex2. */
PMIX_EXPORT pmix_status_t PMIx_generate_regex(const char *input, char **regex);

/* Encode the ranks on each node (nodes separated by ';', ranks as ',' lists or 'a-b'
 * ranges, in the node order given to PMIx_generate_regex) into a compact string; *ppn receives a malloc'd result owned by the caller. No replacement:
 * PMIx_generate_regex2 covers the use. */
PMIX_EXPORT pmix_status_t PMIx_generate_ppn(const char *input, char **ppn);

/* Old name of PMIx_tool_attach_to_server with no server argument: connect a tool that
 * is already initialised to the server selected by info. proc receives the tool's
 * identifier (may be NULL). */
PMIX_EXPORT pmix_status_t PMIx_tool_connect_to_server(pmix_proc_t *proc,
                                                      pmix_info_t info[], size_t ninfo);

/* ------------------------------------------------------------------------------------
 * Retired status names (generated; see pmix-sys/src/status.rs). A retired value is never
 * given a new meaning.
 * ------------------------------------------------------------------------------------ */
#include <pmix_status_deprecated_gen.h>

/* Old name of PMIX_JOB_STATE_AWAITING_ALLOC. */
#define PMIX_JOB_STATE_PREPPED          1

/* ------------------------------------------------------------------------------------
 * Retired attribute keys (generated; see pmix-sys/src/attrs.rs). The library ignores
 * most of them.
 * ------------------------------------------------------------------------------------ */
#include <pmix_attrs_deprecated_gen.h>

#if defined(c_plusplus) || defined(__cplusplus)
}
#endif

#endif /* PMIx_DEPRECATED_H */
