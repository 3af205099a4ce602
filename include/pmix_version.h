/*
 * pmix_version.h - version of the PMIx API these headers describe (pmix-rs).
 *
 * pmix-rs is a Rust implementation of the PMIx library that is binary compatible with
 * OpenPMIx's libpmix.so.2. These headers declare the API of the OpenPMIx 7.0 development
 * line ("master"); the numbers below say so, and PMIx_Get_version() reports the same.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */

#ifndef PMIx_VERSION_H
#define PMIx_VERSION_H

/* Release numbers (long integers, as OpenPMIx defines them). */
#define PMIX_VERSION_MAJOR 7L
#define PMIX_VERSION_MINOR 0L
#define PMIX_VERSION_RELEASE 0L

/* One number for compile-time comparisons: 0xMMMMmmrr (16-bit major, 8-bit minor,
 * 8-bit release). A running library reports its own value under the
 * PMIX_VERSION_NUMERIC key of PMIx_Get. */
#define PMIX_NUMERIC_VERSION 0x00070000

/* Capability flags. Only whether a name is defined carries meaning ("these headers
 * have feature X"), so test them with #ifdef; the values are arbitrary.
 *   BASE, LTO, INMEMHELP  - helper macros are calls into the library
 *   UPCALLS2              - pmix_server_module_t has the *2 up-calls
 *   STOP_PRGTHRD          - PMIx_Progress_thread_stop exists
 *   GET_NUMBER_FN         - PMIx_Value_get_number exists
 *   REGEX2                - PMIx_generate_regex2 / pmix_regex2_t exist
 *   GROUP_FT, GROUP_JOIN_COMPLETES - group fault tolerance and join semantics
 *   CLI_QUAL_VALUE, CLI_ORDER      - qualified values and connection ordering
 *   IOF_FILE_PATTERN, IOF_DELIVER_LOCAL, IOF_FLOW_CONTROL - I/O forwarding features
 *   TOOL_FINALIZED, DEVICE_ENUM, MCA_FW_VERSION - assorted tool/device features
 *   DATA_DELETE           - the PMIX_DEL_* scopes of PMIx_Put exist */
#define PMIX_CAP_BASE                   0
#define PMIX_CAP_LTO                    1
#define PMIX_CAP_INMEMHELP              2
#define PMIX_CAP_UPCALLS2               3
#define PMIX_CAP_STOP_PRGTHRD           4
#define PMIX_CAP_GET_NUMBER_FN          5
#define PMIX_CAP_REGEX2                 6
#define PMIX_CAP_GROUP_FT               7
#define PMIX_CAP_CLI_QUAL_VALUE         8
#define PMIX_CAP_IOF_FILE_PATTERN       9
#define PMIX_CAP_CLI_ORDER              10
#define PMIX_CAP_TOOL_FINALIZED         11
#define PMIX_CAP_IOF_DELIVER_LOCAL      12
#define PMIX_CAP_GROUP_JOIN_COMPLETES   13
#define PMIX_CAP_IOF_FLOW_CONTROL       14
#define PMIX_CAP_DEVICE_ENUM            15
#define PMIX_CAP_MCA_FW_VERSION         16
#define PMIX_CAP_DATA_DELETE            17

/* Legacy mask of the first three flags; kept for old code, do not extend. */
#define PMIX_CAPABILITIES (PMIX_CAP_BASE | PMIX_CAP_LTO | PMIX_CAP_INMEMHELP)

#endif /* PMIx_VERSION_H */
