/*
 * pmix_common.h - types, constants, callbacks and helper functions shared by the client
 * (pmix.h), server (pmix_server.h) and tool (pmix_tool.h) APIs.
 *
 * pmix-rs is a Rust implementation of the PMIx library, binary compatible with OpenPMIx's
 * libpmix.so.2: every struct below has the size, alignment and field offsets of OpenPMIx
 * 4.2.2 (and of the 7.0 development line for the types that line added), and every
 * constant has OpenPMIx's value. Status codes and attribute keys come from generated
 * fragments (pmix_status_gen.h, pmix_attrs_gen.h), made from the tables in pmix-sys.
 *
 * Memory rules that hold throughout the API:
 *  - everything the library hands to the caller for keeping (strings, arrays, values) is
 *    allocated with malloc() and is released with free() or the matching *_free /
 *    *_release function, which also accepts NULL;
 *  - the *_construct functions initialise caller-owned storage, the *_destruct functions
 *    release what such storage points to (not the storage itself), the *_create functions
 *    malloc and construct an array, the *_free functions destruct an array and free it.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */

#ifndef PMIx_COMMON_H
#define PMIx_COMMON_H

#include <stdbool.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <ctype.h>
#include <sys/time.h>   /* struct timeval */
#include <sys/types.h>  /* pid_t, uid_t, gid_t */
#include <unistd.h>

/* The library exports its API with default visibility. */
#define PMIX_HAVE_VISIBILITY 1
#define PMIX_EXPORT __attribute__((__visibility__("default")))

#include <pmix_version.h>

#if defined(c_plusplus) || defined(__cplusplus)
extern "C" {
#endif

/* ------------------------------------------------------------------------------------
 * Names: namespaces, keys and ranks
 * ------------------------------------------------------------------------------------ */

/* Longest namespace and key, not counting the terminating NUL. */
#define PMIX_MAX_NSLEN     255
#define PMIX_MAX_KEYLEN    511

/* Fixed-size, NUL-terminated character arrays. */
typedef char pmix_nspace_t[PMIX_MAX_NSLEN + 1];
typedef char pmix_key_t[PMIX_MAX_KEYLEN + 1];

/* A process's rank within its namespace. The top 50 values are reserved: */
typedef uint32_t pmix_rank_t;
#define PMIX_RANK_UNDEF         UINT32_MAX          /* no particular rank (job-level data) */
#define PMIX_RANK_WILDCARD      (UINT32_MAX - 1)    /* every rank of the namespace */
#define PMIX_RANK_LOCAL_NODE    (UINT32_MAX - 2)    /* every rank on this node */
#define PMIX_RANK_INVALID       (UINT32_MAX - 3)    /* not a rank */
#define PMIX_RANK_LOCAL_PEERS   (UINT32_MAX - 4)    /* this namespace's ranks on this node */
#define PMIX_RANK_VALID         (UINT32_MAX - 50)   /* ranks below this are ordinary */
#define PMIX_RANK_IS_VALID(r)   ((r) < PMIX_RANK_VALID)

/* An application number meaning "all applications of the job". */
#define PMIX_APP_WILDCARD  UINT32_MAX

/* ------------------------------------------------------------------------------------
 * Attribute keys (pmix_info_t keys) and a few environment variable names, with the type
 * of value each key carries. Generated; see pmix-sys/src/attrs.rs.
 * ------------------------------------------------------------------------------------ */
#include <pmix_attrs_gen.h>

/* ------------------------------------------------------------------------------------
 * Process and job states
 * ------------------------------------------------------------------------------------ */

/* State of one process. Values below PMIX_PROC_STATE_UNTERMINATED mean "not yet ended";
 * values from PMIX_PROC_STATE_ERROR on mean "ended abnormally". */
typedef uint8_t pmix_proc_state_t;
#define PMIX_PROC_STATE_UNDEF                   0
#define PMIX_PROC_STATE_PREPPED                 1   /* ready to launch */
#define PMIX_PROC_STATE_LAUNCH_UNDERWAY         2
#define PMIX_PROC_STATE_RESTART                 3   /* ready to be restarted */
#define PMIX_PROC_STATE_TERMINATE               4   /* marked to be terminated */
#define PMIX_PROC_STATE_RUNNING                 5   /* started by its local daemon */
#define PMIX_PROC_STATE_CONNECTED               6   /* connected to its PMIx server */
#define PMIX_PROC_STATE_UNTERMINATED            15
#define PMIX_PROC_STATE_TERMINATED              20  /* ended normally */
#define PMIX_PROC_STATE_ERROR                   50
#define PMIX_PROC_STATE_KILLED_BY_CMD           (PMIX_PROC_STATE_ERROR + 1)
#define PMIX_PROC_STATE_ABORTED                 (PMIX_PROC_STATE_ERROR + 2)
#define PMIX_PROC_STATE_FAILED_TO_START         (PMIX_PROC_STATE_ERROR + 3)
#define PMIX_PROC_STATE_ABORTED_BY_SIG          (PMIX_PROC_STATE_ERROR + 4)
#define PMIX_PROC_STATE_TERM_WO_SYNC            (PMIX_PROC_STATE_ERROR + 5)  /* exited without PMIx_Finalize */
#define PMIX_PROC_STATE_COMM_FAILED             (PMIX_PROC_STATE_ERROR + 6)
#define PMIX_PROC_STATE_SENSOR_BOUND_EXCEEDED   (PMIX_PROC_STATE_ERROR + 7)
#define PMIX_PROC_STATE_CALLED_ABORT            (PMIX_PROC_STATE_ERROR + 8)  /* called PMIx_Abort */
#define PMIX_PROC_STATE_HEARTBEAT_FAILED        (PMIX_PROC_STATE_ERROR + 9)
#define PMIX_PROC_STATE_MIGRATING               (PMIX_PROC_STATE_ERROR + 10)
#define PMIX_PROC_STATE_CANNOT_RESTART          (PMIX_PROC_STATE_ERROR + 11)
#define PMIX_PROC_STATE_TERM_NON_ZERO           (PMIX_PROC_STATE_ERROR + 12) /* non-zero exit status */
#define PMIX_PROC_STATE_FAILED_TO_LAUNCH        (PMIX_PROC_STATE_ERROR + 13)

/* State of a whole job, with the same two boundaries. */
typedef uint8_t pmix_job_state_t;
#define PMIX_JOB_STATE_UNDEF                    0
#define PMIX_JOB_STATE_AWAITING_ALLOC           1   /* waiting for resources */
#define PMIX_JOB_STATE_LAUNCH_UNDERWAY          2
#define PMIX_JOB_STATE_RUNNING                  3   /* every process started */
#define PMIX_JOB_STATE_SUSPENDED                4
#define PMIX_JOB_STATE_CONNECTED                5   /* every process connected to its server */
#define PMIX_JOB_STATE_UNTERMINATED             15
#define PMIX_JOB_STATE_TERMINATED               20
#define PMIX_JOB_STATE_TERMINATED_WITH_ERROR    50

/* ------------------------------------------------------------------------------------
 * Status and event codes. 0 is success; errors and events are negative. Generated; see
 * pmix-sys/src/status.rs. PMIx_Error_string() names any of them.
 * ------------------------------------------------------------------------------------ */
typedef int pmix_status_t;
#include <pmix_status_gen.h>

/* True for a code in the range of system (node/fabric) events. */
#define PMIX_SYSTEM_EVENT(a) \
    ((a) <= PMIX_EVENT_SYS_BASE && PMIX_EVENT_SYS_OTHER <= (a))

/* Result of PMIx_Value_compare(). */
typedef enum {
    PMIX_EQUAL,
    PMIX_VALUE1_GREATER,
    PMIX_VALUE2_GREATER,
    PMIX_VALUE_TYPE_DIFFERENT,
    PMIX_VALUE_INCOMPATIBLE_OBJECTS,
    PMIX_VALUE_COMPARISON_NOT_AVAIL
} pmix_value_cmp_t;

/* ------------------------------------------------------------------------------------
 * Data types: the tag of a pmix_value_t and the type argument of pack/unpack/load.
 * Holes (26, 29, 42, 44, 49, 61-64) are retired numbers; see pmix_deprecated.h.
 * ------------------------------------------------------------------------------------ */
typedef uint16_t pmix_data_type_t;
#define PMIX_UNDEF                      0
#define PMIX_BOOL                       1   /* bool */
#define PMIX_BYTE                       2   /* uint8_t */
#define PMIX_STRING                     3   /* char*, NUL-terminated */
#define PMIX_SIZE                       4   /* size_t */
#define PMIX_PID                        5   /* pid_t */
#define PMIX_INT                        6
#define PMIX_INT8                       7
#define PMIX_INT16                      8
#define PMIX_INT32                      9
#define PMIX_INT64                      10
#define PMIX_UINT                       11
#define PMIX_UINT8                      12
#define PMIX_UINT16                     13
#define PMIX_UINT32                     14
#define PMIX_UINT64                     15
#define PMIX_FLOAT                      16
#define PMIX_DOUBLE                     17
#define PMIX_TIMEVAL                    18  /* struct timeval */
#define PMIX_TIME                       19  /* time_t */
#define PMIX_STATUS                     20  /* pmix_status_t */
#define PMIX_VALUE                      21  /* pmix_value_t */
#define PMIX_PROC                       22  /* pmix_proc_t */
#define PMIX_APP                        23  /* pmix_app_t */
#define PMIX_INFO                       24  /* pmix_info_t */
#define PMIX_PDATA                      25  /* pmix_pdata_t */
#define PMIX_BYTE_OBJECT                27  /* pmix_byte_object_t */
#define PMIX_KVAL                       28  /* key + value (wire only) */
#define PMIX_PERSIST                    30  /* pmix_persistence_t */
#define PMIX_POINTER                    31  /* void*, never copied across processes */
#define PMIX_SCOPE                      32  /* pmix_scope_t */
#define PMIX_DATA_RANGE                 33  /* pmix_data_range_t */
#define PMIX_COMMAND                    34  /* internal command code */
#define PMIX_INFO_DIRECTIVES            35  /* pmix_info_directives_t */
#define PMIX_DATA_TYPE                  36  /* pmix_data_type_t */
#define PMIX_PROC_STATE                 37  /* pmix_proc_state_t */
#define PMIX_PROC_INFO                  38  /* pmix_proc_info_t */
#define PMIX_DATA_ARRAY                 39  /* pmix_data_array_t */
#define PMIX_PROC_RANK                  40  /* pmix_rank_t */
#define PMIX_QUERY                      41  /* pmix_query_t */
#define PMIX_ALLOC_DIRECTIVE            43  /* pmix_alloc_directive_t */
#define PMIX_IOF_CHANNEL                45  /* pmix_iof_channel_t */
#define PMIX_ENVAR                      46  /* pmix_envar_t */
#define PMIX_COORD                      47  /* pmix_coord_t */
#define PMIX_REGATTR                    48  /* pmix_regattr_t */
#define PMIX_JOB_STATE                  50  /* pmix_job_state_t */
#define PMIX_LINK_STATE                 51  /* pmix_link_state_t */
#define PMIX_PROC_CPUSET                52  /* pmix_cpuset_t */
#define PMIX_GEOMETRY                   53  /* pmix_geometry_t */
#define PMIX_DEVICE_DIST                54  /* pmix_device_distance_t */
#define PMIX_ENDPOINT                   55  /* pmix_endpoint_t */
#define PMIX_TOPO                       56  /* pmix_topology_t */
#define PMIX_DEVTYPE                    57  /* pmix_device_type_t */
#define PMIX_LOCTYPE                    58  /* pmix_locality_t */
#define PMIX_COMPRESSED_BYTE_OBJECT     59
#define PMIX_PROC_NSPACE                60  /* pmix_nspace_t */
#define PMIX_DATA_BUFFER                65  /* pmix_data_buffer_t */
#define PMIX_STOR_MEDIUM                66  /* pmix_storage_medium_t */
#define PMIX_STOR_ACCESS                67  /* pmix_storage_accessibility_t */
#define PMIX_STOR_PERSIST               68  /* pmix_storage_persistence_t */
#define PMIX_STOR_ACCESS_TYPE           69  /* pmix_storage_access_type_t */
#define PMIX_DEVICE                     70  /* pmix_device_t */
#define PMIX_RESBLOCK_DIRECTIVE         71  /* pmix_resource_block_directive_t */
#define PMIX_RESOURCE_UNIT              72  /* pmix_resource_unit_t */
#define PMIX_NODE_PID                   73  /* pmix_node_pid_t */
#define PMIX_REGEX2                     74  /* pmix_regex2_t */
#define PMIX_ALLOC_INHERIT              75  /* pmix_alloc_inheritance_t */

/* Types from here up to this value are free for implementations to define. */
#define PMIX_DATA_TYPE_MAX     500

/* ------------------------------------------------------------------------------------
 * Small enumerations
 * ------------------------------------------------------------------------------------ */

/* Who may read a value stored with PMIx_Put. The PMIX_DEL_* scopes name the same
 * audiences but remove the key instead (the value may then be NULL; removing an absent
 * key succeeds). */
typedef uint8_t pmix_scope_t;
#define PMIX_SCOPE_UNDEF    0
#define PMIX_LOCAL          1   /* processes on this node */
#define PMIX_REMOTE         2   /* processes on other nodes */
#define PMIX_GLOBAL         3   /* everyone */
#define PMIX_INTERNAL       4   /* this process only */
#define PMIX_DEL_LOCAL      5
#define PMIX_DEL_REMOTE     6
#define PMIX_DEL_GLOBAL     7
#define PMIX_DEL_INTERNAL   8

/* Who may see published data or receive an event. */
typedef uint8_t pmix_data_range_t;
#define PMIX_RANGE_UNDEF        0
#define PMIX_RANGE_RM           1   /* the host resource manager only */
#define PMIX_RANGE_LOCAL        2   /* this node */
#define PMIX_RANGE_NAMESPACE    3   /* the caller's namespace */
#define PMIX_RANGE_SESSION      4   /* the caller's session */
#define PMIX_RANGE_GLOBAL       5   /* everyone */
#define PMIX_RANGE_CUSTOM       6   /* listed in the accompanying info */
#define PMIX_RANGE_PROC_LOCAL   7   /* the calling process */
#define PMIX_RANGE_INVALID      UINT8_MAX

/* How long published data lives. */
typedef uint8_t pmix_persistence_t;
#define PMIX_PERSIST_INDEF          0   /* until unpublished */
#define PMIX_PERSIST_FIRST_READ     1   /* until first looked up */
#define PMIX_PERSIST_PROC           2   /* until the publisher ends */
#define PMIX_PERSIST_APP            3   /* until the publisher's application ends */
#define PMIX_PERSIST_SESSION        4   /* until the session ends */
#define PMIX_PERSIST_INVALID        UINT8_MAX

/* Flags of a pmix_info_t (bit mask). The top 16 bits belong to the implementation. */
typedef uint32_t pmix_info_directives_t;
#define PMIX_INFO_REQD              0x00000001  /* the receiver must honour this entry */
#define PMIX_INFO_ARRAY_END         0x00000002  /* marks the last entry of an info array */
#define PMIX_INFO_REQD_PROCESSED    0x00000004  /* a required entry has been acted on */
#define PMIX_INFO_QUALIFIER         0x00000008  /* qualifies the entry before it */
#define PMIX_INFO_PERSISTENT        0x00000010  /* destructing the info leaves the value alone */
#define PMIX_INFO_DIR_RESERVED      0xffff0000

/* What an allocation request asks for. */
typedef uint8_t pmix_alloc_directive_t;
#define PMIX_ALLOC_NEW          1   /* a new allocation, separate from the caller's */
#define PMIX_ALLOC_EXTEND       2   /* more resources or more time */
#define PMIX_ALLOC_RELEASE      3   /* give resources back (possibly lend them) */
#define PMIX_ALLOC_REAQUIRE     4   /* take lent resources back */
#define PMIX_ALLOC_REQ_CANCEL   5   /* cancel a pending request */
#define PMIX_ALLOC_EXTERNAL     128 /* values from here on are the host's */

/* Who inherits an allocation when its owner ends. */
typedef uint8_t pmix_alloc_inheritance_t;
#define PMIX_ALLOC_INHERIT_NONE          1  /* released with the owning namespace */
#define PMIX_ALLOC_INHERIT_CHILD         2  /* kept until every child namespace ends */
#define PMIX_ALLOC_INHERIT_DEFAULT       3  /* unreserved when the owner ends */
#define PMIX_ALLOC_INHERIT_CHILD_DEFAULT 4  /* unreserved when the last child ends */

/* Operation of PMIx_Resource_block. */
typedef uint8_t pmix_resource_block_directive_t;
#define PMIX_RESOURCE_BLOCK_DEFINE      1
#define PMIX_RESOURCE_BLOCK_EXTEND      2
#define PMIX_RESOURCE_BLOCK_REMOVE      3
#define PMIX_RESOURCE_BLOCK_DELETE      4
#define PMIX_RESOURCE_BLOCK_EXTERNAL    128 /* values from here on are the host's */

/* Forwarded I/O streams (bit mask). */
typedef uint16_t pmix_iof_channel_t;
#define PMIX_FWD_NO_CHANNELS        0x0000
#define PMIX_FWD_STDIN_CHANNEL      0x0001
#define PMIX_FWD_STDOUT_CHANNEL     0x0002
#define PMIX_FWD_STDERR_CHANNEL     0x0004
#define PMIX_FWD_STDDIAG_CHANNEL    0x0008
#define PMIX_FWD_ALL_CHANNELS       0x00ff

/* Answer to a group invitation (PMIx_Group_join). */
typedef enum {
    PMIX_GROUP_DECLINE,
    PMIX_GROUP_ACCEPT
} pmix_group_opt_t;

/* Group operation passed to the host's group up-call; new values are only appended. */
typedef enum {
    PMIX_GROUP_CONSTRUCT,
    PMIX_GROUP_DESTRUCT,
    PMIX_GROUP_NONE,
    PMIX_GROUP_CANCEL
} pmix_group_operation_t;

/* Storage descriptions (bit masks that may be OR'd together). */
typedef uint64_t pmix_storage_medium_t;
#define PMIX_STORAGE_MEDIUM_UNKNOWN     0x0000000000000001
#define PMIX_STORAGE_MEDIUM_TAPE        0x0000000000000002
#define PMIX_STORAGE_MEDIUM_HDD         0x0000000000000004
#define PMIX_STORAGE_MEDIUM_SSD         0x0000000000000008
#define PMIX_STORAGE_MEDIUM_NVME        0x0000000000000010
#define PMIX_STORAGE_MEDIUM_PMEM        0x0000000000000020
#define PMIX_STORAGE_MEDIUM_RAM         0x0000000000000040

typedef uint64_t pmix_storage_accessibility_t;
#define PMIX_STORAGE_ACCESSIBILITY_NODE     0x0000000000000001
#define PMIX_STORAGE_ACCESSIBILITY_SESSION  0x0000000000000002
#define PMIX_STORAGE_ACCESSIBILITY_JOB      0x0000000000000004
#define PMIX_STORAGE_ACCESSIBILITY_RACK     0x0000000000000008
#define PMIX_STORAGE_ACCESSIBILITY_CLUSTER  0x0000000000000010
#define PMIX_STORAGE_ACCESSIBILITY_REMOTE   0x0000000000000020

typedef uint64_t pmix_storage_persistence_t;
#define PMIX_STORAGE_PERSISTENCE_TEMPORARY  0x0000000000000001
#define PMIX_STORAGE_PERSISTENCE_NODE       0x0000000000000002
#define PMIX_STORAGE_PERSISTENCE_SESSION    0x0000000000000004
#define PMIX_STORAGE_PERSISTENCE_JOB        0x0000000000000008
#define PMIX_STORAGE_PERSISTENCE_SCRATCH    0x0000000000000010
#define PMIX_STORAGE_PERSISTENCE_PROJECT    0x0000000000000020
#define PMIX_STORAGE_PERSISTENCE_ARCHIVE    0x0000000000000040

typedef uint16_t pmix_storage_access_type_t;
#define PMIX_STORAGE_ACCESS_RD      0x0001
#define PMIX_STORAGE_ACCESS_WR      0x0002
#define PMIX_STORAGE_ACCESS_RDWR    0x0003

/* ------------------------------------------------------------------------------------
 * Inline helpers (header only; nothing here calls the library)
 * ------------------------------------------------------------------------------------ */

/* The allocator of everything the library and the caller exchange: the C heap. */
static inline void *pmix_malloc(size_t n) { return malloc(n); }
static inline void pmix_free(void *m) { free(m); }
static inline void *pmix_calloc(size_t n, size_t m) { return calloc(n, m); }

/* Copy at most len characters of src into dest and always NUL-terminate dest, which must
 * hold len + 1 bytes. Stops at src's NUL, so an unterminated src is read at most len
 * bytes far. */
static inline void pmix_strncpy(char *dest, const char *src, size_t len)
{
    size_t n = 0;
    while (n < len && src[n] != '\0') {
        dest[n] = src[n];
        n++;
    }
    dest[n] = '\0';
}

/* Length of src, looking at no more than PMIX_MAX_KEYLEN + 1 bytes; 0 for NULL. */
static inline size_t pmix_keylen(const char *src)
{
    size_t n = 0;
    if (NULL == src) {
        return 0;
    }
    while (n < PMIX_MAX_KEYLEN + 1 && src[n] != '\0') {
        n++;
    }
    return n;
}

/* Length of src, looking at no more than PMIX_MAX_NSLEN + 1 bytes; 0 for NULL. */
static inline size_t pmix_nslen(const char *src)
{
    size_t n = 0;
    if (NULL == src) {
        return 0;
    }
    while (n < PMIX_MAX_NSLEN + 1 && src[n] != '\0') {
        n++;
    }
    return n;
}

/* ------------------------------------------------------------------------------------
 * Structures. Each *_STATIC_INIT gives the value *_construct would set.
 * ------------------------------------------------------------------------------------ */

/* Fabric coordinates of a process or device. coord points to dims numbers. */
typedef uint8_t pmix_coord_view_t;
#define PMIX_COORD_VIEW_UNDEF       0x00
#define PMIX_COORD_LOGICAL_VIEW     0x01
#define PMIX_COORD_PHYSICAL_VIEW    0x02

typedef struct pmix_coord {
    pmix_coord_view_t view;
    uint32_t *coord;
    size_t dims;
} pmix_coord_t;

#define PMIX_COORD_STATIC_INIT \
    { .view = PMIX_COORD_VIEW_UNDEF, .coord = NULL, .dims = 0 }

/* State of a fabric link. */
typedef uint8_t pmix_link_state_t;
#define PMIX_LINK_STATE_UNKNOWN     0
#define PMIX_LINK_DOWN              1
#define PMIX_LINK_UP                2

/* A set of processing units. source names the library that made bitmap (e.g. "hwloc"),
 * bitmap is that library's object. */
typedef struct {
    char *source;
    void *bitmap;
} pmix_cpuset_t;

#define PMIX_CPUSET_STATIC_INIT \
    { .source = NULL, .bitmap = NULL }

/* Whether PMIx_Get_cpuset reports the binding of the process or of the calling thread. */
typedef uint8_t pmix_bind_envelope_t;
#define PMIX_CPUBIND_PROCESS    0
#define PMIX_CPUBIND_THREAD     1

/* A hardware topology: source names the library, topology is its object. */
typedef struct {
    char *source;
    void *topology;
} pmix_topology_t;

#define PMIX_TOPOLOGY_STATIC_INIT \
    { .source = NULL, .topology = NULL }

/* How close two processes are (bit mask of shared resources). */
typedef uint16_t pmix_locality_t;
#define PMIX_LOCALITY_UNKNOWN           0x0000
#define PMIX_LOCALITY_NONLOCAL          0x8000
#define PMIX_LOCALITY_SHARE_HWTHREAD    0x0001
#define PMIX_LOCALITY_SHARE_CORE        0x0002
#define PMIX_LOCALITY_SHARE_L1CACHE     0x0004
#define PMIX_LOCALITY_SHARE_L2CACHE     0x0008
#define PMIX_LOCALITY_SHARE_L3CACHE     0x0010
#define PMIX_LOCALITY_SHARE_PACKAGE     0x0020
#define PMIX_LOCALITY_SHARE_NUMA        0x0040
#define PMIX_LOCALITY_SHARE_NODE        0x4000

/* Position of a device in a fabric: ncoords coordinates. */
typedef struct pmix_geometry {
    size_t fabric;
    char *uuid;
    char *osname;
    pmix_coord_t *coordinates;
    size_t ncoords;
} pmix_geometry_t;

#define PMIX_GEOMETRY_STATIC_INIT \
    { .fabric = 0, .uuid = NULL, .osname = NULL, .coordinates = NULL, .ncoords = 0 }

/* Kinds of device (bit mask). MEMORY..NODE describe resource units. */
typedef uint64_t pmix_device_type_t;
#define PMIX_DEVTYPE_UNKNOWN        0x0000000000000000
#define PMIX_DEVTYPE_BLOCK          0x0000000000000001
#define PMIX_DEVTYPE_GPU            0x0000000000000002
#define PMIX_DEVTYPE_NETWORK        0x0000000000000004
#define PMIX_DEVTYPE_OPENFABRICS    0x0000000000000008
#define PMIX_DEVTYPE_DMA            0x0000000000000010
#define PMIX_DEVTYPE_COPROC         0x0000000000000020
#define PMIX_DEVTYPE_MEMORY         0x0000000000000040
#define PMIX_DEVTYPE_CORE           0x0000000000000080
#define PMIX_DEVTYPE_HWT            0x0000000000000100
#define PMIX_DEVTYPE_CPU            0x0000000000000200
#define PMIX_DEVTYPE_NODE           0x0000000000000400

/* A device. */
typedef struct pmix_device {
    char *uuid;
    char *osname;
    pmix_device_type_t type;
} pmix_device_t;

#define PMIX_DEVICE_STATIC_INIT \
    { .uuid = NULL, .osname = NULL, .type = PMIX_DEVTYPE_UNKNOWN }

/* A count of resources of one kind (resource blocks). */
typedef struct pmix_resource_unit {
    pmix_device_type_t type;
    size_t count;
} pmix_resource_unit_t;

#define PMIX_RESOURCE_UNIT_STATIC_INIT \
    { .type = PMIX_DEVTYPE_UNKNOWN, .count = 0 }

/* Distance from a process's cpuset to a device (unknown distances are UINT16_MAX). */
typedef struct pmix_device_distance {
    char *uuid;
    char *osname;
    pmix_device_type_t type;
    uint16_t mindist;
    uint16_t maxdist;
} pmix_device_distance_t;

#define PMIX_DEVICE_DIST_STATIC_INIT \
    { .uuid = NULL, .osname = NULL, .type = PMIX_DEVTYPE_UNKNOWN, \
      .mindist = UINT16_MAX, .maxdist = UINT16_MAX }

/* A process identified by node and OS pid. */
typedef struct pmix_node_pid {
    char *hostname;
    uint32_t nodeid;
    pid_t pid;
} pmix_node_pid_t;

#define PMIX_NODE_PID_STATIC_INIT \
    { .hostname = NULL, .nodeid = UINT32_MAX, .pid = -1 }

/* A counted run of bytes (not NUL-terminated). */
typedef struct pmix_byte_object {
    char *bytes;
    size_t size;
} pmix_byte_object_t;

#define PMIX_BYTE_OBJECT_STATIC_INIT \
    { .bytes = NULL, .size = 0 }

/* An encoded list of names (PMIx_generate_regex2): type names the encoding, bytes holds
 * len bytes that need not be NUL-terminated. */
typedef struct pmix_regex2 {
    char *type;
    uint8_t *bytes;
    size_t len;
} pmix_regex2_t;

#define PMIX_REGEX2_STATIC_INIT \
    { .type = NULL, .bytes = NULL, .len = 0 }

/* A fabric endpoint of a device. */
typedef struct pmix_endpoint {
    char *uuid;
    char *osname;
    pmix_byte_object_t endpt;
} pmix_endpoint_t;

#define PMIX_ENDPOINT_STATIC_INIT \
    { .uuid = NULL, .osname = NULL, .endpt = PMIX_BYTE_OBJECT_STATIC_INIT }

/* An environment change: add value to variable envar, joining with separator. */
typedef struct {
    char *envar;
    char *value;
    char separator;
} pmix_envar_t;

#define PMIX_ENVAR_STATIC_INIT \
    { .envar = NULL, .value = NULL, .separator = '\0' }

/* A buffer for PMIx_Data_pack/unpack. Treat the fields as private: base_ptr is the
 * malloc'd storage of bytes_allocated bytes, bytes_used of which hold packed data;
 * pack_ptr and unpack_ptr are the write and read positions inside it. */
typedef struct pmix_data_buffer {
    char *base_ptr;
    char *pack_ptr;
    char *unpack_ptr;
    size_t bytes_allocated;
    size_t bytes_used;
} pmix_data_buffer_t;

#define PMIX_DATA_BUFFER_STATIC_INIT \
    { .base_ptr = NULL, .pack_ptr = NULL, .unpack_ptr = NULL, \
      .bytes_allocated = 0, .bytes_used = 0 }

/* A process: namespace plus rank. */
typedef struct pmix_proc {
    pmix_nspace_t nspace;
    pmix_rank_t rank;
} pmix_proc_t;

#define PMIX_PROC_STATIC_INIT \
    { .nspace = {0}, .rank = PMIX_RANK_UNDEF }

/* What is known about one process (process tables). */
typedef struct pmix_proc_info {
    pmix_proc_t proc;
    char *hostname;
    char *executable_name;
    pid_t pid;
    int exit_code;
    pmix_proc_state_t state;
} pmix_proc_info_t;

#define PMIX_PROC_INFO_STATIC_INIT \
    { .proc = PMIX_PROC_STATIC_INIT, .hostname = NULL, .executable_name = NULL, \
      .pid = 0, .exit_code = 0, .state = PMIX_PROC_STATE_UNDEF }

/* An array of size elements of one data type; array points to them. */
typedef struct pmix_data_array {
    pmix_data_type_t type;
    size_t size;
    void *array;
} pmix_data_array_t;

#define PMIX_DATA_ARRAY_STATIC_INIT \
    { .type = PMIX_UNDEF, .size = 0, .array = NULL }

/* A tagged value: type says which member of data is valid. Pointer members point to
 * storage owned by the value (released by PMIx_Value_destruct), except for PMIX_POINTER,
 * which is never followed. */
typedef struct pmix_value {
    pmix_data_type_t type;
    union {
        bool flag;
        uint8_t byte;
        char *string;
        size_t size;
        pid_t pid;
        int integer;
        int8_t int8;
        int16_t int16;
        int32_t int32;
        int64_t int64;
        unsigned int uint;
        uint8_t uint8;
        uint16_t uint16;
        uint32_t uint32;
        uint64_t uint64;
        float fval;
        double dval;
        struct timeval tv;
        time_t time;
        pmix_status_t status;
        pmix_rank_t rank;
        pmix_nspace_t *nspace;
        pmix_proc_t *proc;
        pmix_byte_object_t bo;
        pmix_persistence_t persist;
        pmix_scope_t scope;
        pmix_data_range_t range;
        pmix_proc_state_t state;
        pmix_proc_info_t *pinfo;
        pmix_data_array_t *darray;
        void *ptr;
        pmix_alloc_directive_t adir;
        pmix_resource_block_directive_t rbdir;
        pmix_alloc_inheritance_t inheritance;
        pmix_envar_t envar;
        pmix_coord_t *coord;
        pmix_link_state_t linkstate;
        pmix_job_state_t jstate;
        pmix_topology_t *topo;
        pmix_cpuset_t *cpuset;
        pmix_locality_t locality;
        pmix_geometry_t *geometry;
        pmix_device_type_t devtype;
        pmix_device_t *device;
        pmix_device_distance_t *devdist;
        pmix_endpoint_t *endpoint;
        pmix_data_buffer_t *dbuf;
        pmix_resource_unit_t *resunit;
        pmix_node_pid_t *nodepid;
        pmix_regex2_t *regex2;
    } data;
} pmix_value_t;

#define PMIX_VALUE_STATIC_INIT \
    { .type = PMIX_UNDEF, .data.ptr = NULL }

/* A key with a value and flags: the unit of every attribute list. */
typedef struct pmix_info {
    pmix_key_t key;
    pmix_info_directives_t flags;
    pmix_value_t value;
} pmix_info_t;

#define PMIX_INFO_STATIC_INIT \
    { .key = {0}, .flags = 0, .value = PMIX_VALUE_STATIC_INIT }

/* Answer of PMIx_Value_true / PMIx_Info_true (note: TRUE is 0). */
typedef enum {
    PMIX_BOOL_TRUE,
    PMIX_BOOL_FALSE,
    PMIX_NON_BOOL
} pmix_boolean_t;

/* One published datum found by PMIx_Lookup: who published it, the key and the value. */
typedef struct pmix_pdata {
    pmix_proc_t proc;
    pmix_key_t key;
    pmix_value_t value;
} pmix_pdata_t;

#define PMIX_LOOKUP_STATIC_INIT \
    { .proc = PMIX_PROC_STATIC_INIT, .key = {0}, .value = PMIX_VALUE_STATIC_INIT }

/* One application of a spawn request. argv and env are NULL-terminated arrays. */
typedef struct pmix_app {
    char *cmd;
    char **argv;
    char **env;
    char *cwd;
    int maxprocs;
    pmix_info_t *info;
    size_t ninfo;
} pmix_app_t;

#define PMIX_APP_STATIC_INIT \
    { .cmd = NULL, .argv = NULL, .env = NULL, .cwd = NULL, .maxprocs = 0, \
      .info = NULL, .ninfo = 0 }

/* One query: a NULL-terminated list of keys and nqual qualifiers. */
typedef struct pmix_query {
    char **keys;
    pmix_info_t *qualifiers;
    size_t nqual;
} pmix_query_t;

#define PMIX_QUERY_STATIC_INIT \
    { .keys = NULL, .qualifiers = NULL, .nqual = 0 }

/* An attribute a host or library supports: macro name, key string, value type and a
 * NULL-terminated list of description lines. */
typedef struct pmix_regattr_t {
    char *name;
    pmix_key_t string;
    pmix_data_type_t type;
    char **description;
} pmix_regattr_t;

#define PMIX_REGATTR_STATIC_INIT \
    { .name = NULL, .string = {0}, .type = PMIX_UNDEF, .description = NULL }

/* A fabric registration (PMIx_Fabric_register). name is the caller's; index, info and
 * module are filled by the library and released by PMIx_Fabric_deregister. */
typedef struct pmix_fabric_s {
    char *name;
    size_t index;
    pmix_info_t *info;
    size_t ninfo;
    void *module;
} pmix_fabric_t;

#define PMIX_FABRIC_STATIC_INIT \
    { .name = NULL, .index = SIZE_MAX, .info = NULL, .ninfo = 0, .module = NULL }

/* Zero a pmix_fabric_t (header only). */
#define PMIX_FABRIC_CONSTRUCT(x) \
    memset((x), 0, sizeof(pmix_fabric_t))

/* Operation of the host's fabric up-call. */
typedef enum {
    PMIX_FABRIC_REQUEST_INFO,
    PMIX_FABRIC_UPDATE_INFO
} pmix_fabric_operation_t;

/* ------------------------------------------------------------------------------------
 * Callbacks of the non-blocking functions. Unless a callback says otherwise, the data it
 * is handed belongs to the library and is valid only until the callback returns; copy
 * what you need.
 * ------------------------------------------------------------------------------------ */

/* Tells the owner of some data that the receiver is done with it. */
typedef void (*pmix_release_cbfunc_t)(void *cbdata);

/* Server side: delivers collected modex data (fence, direct modex). data stays valid
 * until the receiver calls release_fn(release_cbdata); release_fn may be NULL. */
typedef void (*pmix_modex_cbfunc_t)(pmix_status_t status,
                                    const char *data, size_t ndata,
                                    void *cbdata,
                                    pmix_release_cbfunc_t release_fn,
                                    void *release_cbdata);

/* Completion of a spawn: the new job's namespace (valid during the call). */
typedef void (*pmix_spawn_cbfunc_t)(pmix_status_t status,
                                    pmix_nspace_t nspace, void *cbdata);

/* Completion of an operation that returns only a status. */
typedef void (*pmix_op_cbfunc_t)(pmix_status_t status, void *cbdata);

/* Completion of a lookup: ndata published data (valid during the call). */
typedef void (*pmix_lookup_cbfunc_t)(pmix_status_t status,
                                     pmix_pdata_t data[], size_t ndata,
                                     void *cbdata);

/* An event handler calls this when it is done, to pass the event on (status
 * PMIX_SUCCESS or PMIX_EVENT_NO_ACTION_TAKEN...) or stop it (PMIX_EVENT_ACTION_COMPLETE).
 * results (owned by the handler) are handed to the next handler; cbfunc(thiscbdata) is
 * called when the library no longer needs them. */
typedef void (*pmix_event_notification_cbfunc_fn_t)(pmix_status_t status,
                                                    pmix_info_t *results, size_t nresults,
                                                    pmix_op_cbfunc_t cbfunc, void *thiscbdata,
                                                    void *notification_cbdata);

/* An event handler. source, info and results belong to the library. The handler must
 * eventually call cbfunc(status, ..., cbdata) exactly once (cbfunc may be NULL when no
 * reply is expected). */
typedef void (*pmix_notification_fn_t)(size_t evhdlr_registration_id,
                                       pmix_status_t status,
                                       const pmix_proc_t *source,
                                       pmix_info_t info[], size_t ninfo,
                                       pmix_info_t *results, size_t nresults,
                                       pmix_event_notification_cbfunc_fn_t cbfunc,
                                       void *cbdata);

/* Completion of a registration: refid identifies the handler for later removal. */
typedef void (*pmix_hdlr_reg_cbfunc_t)(pmix_status_t status,
                                       size_t refid,
                                       void *cbdata);
/* Older name of the same callback type. */
typedef void (*pmix_evhdlr_reg_cbfunc_t)(pmix_status_t status,
                                         size_t refid,
                                         void *cbdata);

/* Completion of PMIx_Get_nb: kv belongs to the library (copy it to keep it). */
typedef void (*pmix_value_cbfunc_t)(pmix_status_t status,
                                    pmix_value_t *kv, void *cbdata);

/* Delivers an array of results. info stays valid until the receiver calls
 * release_fn(release_cbdata); release_fn may be NULL, then it is valid during the call. */
typedef void (*pmix_info_cbfunc_t)(pmix_status_t status,
                                   pmix_info_t *info, size_t ninfo,
                                   void *cbdata,
                                   pmix_release_cbfunc_t release_fn,
                                   void *release_cbdata);

/* Delivers a credential: ownership of credential's bytes passes to the receiver; info
 * belongs to the caller. */
typedef void (*pmix_credential_cbfunc_t)(pmix_status_t status,
                                         pmix_byte_object_t *credential,
                                         pmix_info_t info[], size_t ninfo,
                                         void *cbdata);

/* Delivers the verdict of a credential check (status PMIX_SUCCESS means valid). */
typedef void (*pmix_validation_cbfunc_t)(pmix_status_t status,
                                         pmix_info_t info[], size_t ninfo,
                                         void *cbdata);

/* Delivers device distances; same release rule as pmix_info_cbfunc_t. */
typedef void (*pmix_device_dist_cbfunc_t)(pmix_status_t status,
                                          pmix_device_distance_t *dist,
                                          size_t ndist,
                                          void *cbdata,
                                          pmix_release_cbfunc_t release_fn,
                                          void *release_cbdata);

/* ------------------------------------------------------------------------------------
 * Helper functions and the macros that wrap them.
 *
 * These never need PMIx_Init. Unless stated otherwise a NULL object pointer makes a
 * function do nothing (void functions), return false / 0 / NULL, or return
 * PMIX_ERR_BAD_PARAM.
 * ------------------------------------------------------------------------------------ */

/* --- keys, namespaces and process ids --- */

/* Copy src (at most PMIX_MAX_KEYLEN characters) into key, NUL-terminated; zero key first.
 * A NULL src leaves key empty. */
PMIX_EXPORT void PMIx_Load_key(pmix_key_t key, const char *src);

/* True if key and str are equal (compared up to PMIX_MAX_KEYLEN characters). */
PMIX_EXPORT bool PMIx_Check_key(const char *key, const char *str);

/* True if key is reserved for the library (begins with "pmix"). */
PMIX_EXPORT bool PMIx_Check_reserved_key(const char *key);

/* Copy str (at most PMIX_MAX_NSLEN characters) into nspace, NUL-terminated; zero nspace
 * first. A NULL str leaves nspace empty. */
PMIX_EXPORT void PMIx_Load_nspace(pmix_nspace_t nspace, const char *str);

/* True if two namespaces are equal; an empty namespace matches any. */
PMIX_EXPORT bool PMIx_Check_nspace(const char *key1, const char *key2);

/* True if nspace is NULL or empty. */
PMIX_EXPORT bool PMIx_Nspace_invalid(const char *nspace);

/* Fill p with namespace ns (copied, may be NULL for empty) and rank rk. */
PMIX_EXPORT void PMIx_Load_procid(pmix_proc_t *p, const char *ns, pmix_rank_t rk);

/* Copy the process id src into dst. */
PMIX_EXPORT void PMIx_Xfer_procid(pmix_proc_t *dst, const pmix_proc_t *src);

/* True if a and b name the same process (wildcard ranks and empty namespaces match). */
PMIX_EXPORT bool PMIx_Check_procid(const pmix_proc_t *a, const pmix_proc_t *b);

/* True if a and b are equal or either is PMIX_RANK_WILDCARD. */
PMIX_EXPORT bool PMIx_Check_rank(pmix_rank_t a, pmix_rank_t b);

/* True if a is an ordinary rank (below PMIX_RANK_VALID). */
PMIX_EXPORT bool PMIx_Rank_valid(pmix_rank_t a);

/* True if p is NULL, has an empty namespace or has rank PMIX_RANK_INVALID. */
PMIX_EXPORT bool PMIx_Procid_invalid(const pmix_proc_t *p);

/* --- NULL-terminated string arrays ("argv") --- */

/* Number of strings in a (0 for NULL). */
PMIX_EXPORT int PMIx_Argv_count(char **a);

/* Append a copy of arg to *argv, growing it with realloc; *argv may be NULL (then a new
 * array is made). The array and its strings belong to the caller (PMIx_Argv_free). */
PMIX_EXPORT pmix_status_t PMIx_Argv_append_nosize(char ***argv, const char *arg);

/* Like PMIx_Argv_append_nosize, but insert at the front. */
PMIX_EXPORT pmix_status_t PMIx_Argv_prepend_nosize(char ***argv, const char *arg);

/* Like PMIx_Argv_append_nosize, but do nothing if an equal string is already there. */
PMIX_EXPORT pmix_status_t PMIx_Argv_append_unique_nosize(char ***argv, const char *arg);

/* Free every string of argv and then argv itself; NULL is ignored. */
PMIX_EXPORT void PMIx_Argv_free(char **argv);

/* Split src_string at each delimiter, dropping empty pieces. Returns a new array owned by
 * the caller (PMIx_Argv_free), or NULL for a NULL or empty input. */
PMIX_EXPORT char **PMIx_Argv_split(const char *src_string, int delimiter);

/* Like PMIx_Argv_split, but keep empty pieces. */
PMIX_EXPORT char **PMIx_Argv_split_with_empty(const char *src_string, int delimiter);

/* PMIx_Argv_split or PMIx_Argv_split_with_empty, chosen by include_empty. */
PMIX_EXPORT char **PMIx_Argv_split_inter(const char *src_string, int delimiter,
                                         bool include_empty);

/* Join the strings of argv with delimiter between them. Returns a new string owned by
 * the caller (free); a NULL or empty array gives an empty string, no memory gives NULL. */
PMIX_EXPORT char *PMIx_Argv_join(char **argv, int delimiter);

/* Deep copy of argv, owned by the caller; NULL for NULL. */
PMIX_EXPORT char **PMIx_Argv_copy(char **argv);

/* Set name=value in the environment array *env (grown as needed, stays the caller's),
 * replacing an existing entry only if overwrite is true. If *env is the process's
 * environ, the process environment is changed instead; a NULL value then unsets name.
 * env must not be NULL. */
PMIX_EXPORT pmix_status_t PMIx_Setenv(const char *name, const char *value,
                                      bool overwrite, char ***env);

/* --- pmix_value_t --- */

/* Initialise val to an empty value (type PMIX_UNDEF). */
PMIX_EXPORT void PMIx_Value_construct(pmix_value_t *val);

/* Release the storage val owns (strings, arrays, nested structures, but not a
 * PMIX_POINTER target) and reset it to PMIX_UNDEF. val itself stays the caller's. */
PMIX_EXPORT void PMIx_Value_destruct(pmix_value_t *val);

/* malloc n constructed values (NULL if n is 0 or memory is short); release with
 * PMIx_Value_free(v, n). */
PMIX_EXPORT pmix_value_t *PMIx_Value_create(size_t n);

/* Destruct the n values at v and free(v); NULL is ignored. */
PMIX_EXPORT void PMIx_Value_free(pmix_value_t *v, size_t n);

/* Read v as a boolean: a PMIX_BOOL, or a string such as "true"/"yes"/"1" or
 * "false"/"no"/"0". An empty PMIX_UNDEF value counts as true. */
PMIX_EXPORT pmix_boolean_t PMIx_Value_true(const pmix_value_t *v);

/* Store a deep copy of the datum at data (of the given type) in val. data may be NULL
 * for an empty value of that type. */
PMIX_EXPORT pmix_status_t PMIx_Value_load(pmix_value_t *val, const void *data,
                                          pmix_data_type_t type);

/* Copy val's datum out: scalars are copied into *data (which must point to storage of
 * the right size); pointer types receive a malloc'd deep copy that the caller owns. *sz
 * receives the size in bytes. */
PMIX_EXPORT pmix_status_t PMIx_Value_unload(pmix_value_t *val, void **data, size_t *sz);

/* Deep-copy src into dest (dest's old contents are not released). */
PMIX_EXPORT pmix_status_t PMIx_Value_xfer(pmix_value_t *dest, const pmix_value_t *src);

/* Compare two values of the same type. */
PMIX_EXPORT pmix_value_cmp_t PMIx_Value_compare(pmix_value_t *v1, pmix_value_t *v2);

/* Convert a numeric value to the numeric type given and store it at dest. Fails with
 * PMIX_ERR_LOST_PRECISION or PMIX_ERR_CHANGE_SIGN instead of truncating, and with
 * PMIX_ERR_BAD_PARAM for a non-numeric value. */
PMIX_EXPORT pmix_status_t PMIx_Value_get_number(const pmix_value_t *value, void *dest,
                                                pmix_data_type_t type);

/* --- pmix_data_array_t --- */

/* Set p to an empty array of the given element type. */
PMIX_EXPORT void PMIx_Data_array_init(pmix_data_array_t *p, pmix_data_type_t type);

/* Give p num constructed elements of the given type (malloc'd; p owns them). */
PMIX_EXPORT void PMIx_Data_array_construct(pmix_data_array_t *p, size_t num,
                                           pmix_data_type_t type);

/* Release the elements p owns and empty it; p itself stays the caller's. */
PMIX_EXPORT void PMIx_Data_array_destruct(pmix_data_array_t *d);

/* malloc an array object holding n constructed elements; release with
 * PMIx_Data_array_free. */
PMIX_EXPORT pmix_data_array_t *PMIx_Data_array_create(size_t n, pmix_data_type_t type);

/* Destruct p and free it; NULL is ignored. */
PMIX_EXPORT void PMIx_Data_array_free(pmix_data_array_t *p);

/* --- pmix_info_t --- */

/* Initialise p: empty key, no flags, empty value. */
PMIX_EXPORT void PMIx_Info_construct(pmix_info_t *p);

/* Release p's value (unless p is marked persistent); p stays the caller's. */
PMIX_EXPORT void PMIx_Info_destruct(pmix_info_t *p);

/* malloc n constructed infos (NULL if n is 0 or memory is short); release with
 * PMIx_Info_free(p, n). */
PMIX_EXPORT pmix_info_t *PMIx_Info_create(size_t n);

/* Destruct the n infos at p and free(p); NULL is ignored. */
PMIX_EXPORT void PMIx_Info_free(pmix_info_t *p, size_t n);

/* PMIx_Value_true applied to p's value. */
PMIX_EXPORT pmix_boolean_t PMIx_Info_true(const pmix_info_t *p);

/* Set info's key (copied) and store a deep copy of data (see PMIx_Value_load). */
PMIX_EXPORT pmix_status_t PMIx_Info_load(pmix_info_t *info, const char *key,
                                         const void *data, pmix_data_type_t type);

/* Deep-copy src (key, flags and value) into dest. */
PMIX_EXPORT pmix_status_t PMIx_Info_xfer(pmix_info_t *dest, const pmix_info_t *src);

/* Set / clear / test the flags of one info. */
PMIX_EXPORT void PMIx_Info_required(pmix_info_t *p);
PMIX_EXPORT void PMIx_Info_optional(pmix_info_t *p);
PMIX_EXPORT bool PMIx_Info_is_required(const pmix_info_t *p);
PMIX_EXPORT bool PMIx_Info_is_optional(const pmix_info_t *p);
PMIX_EXPORT void PMIx_Info_processed(pmix_info_t *p);
PMIX_EXPORT bool PMIx_Info_was_processed(const pmix_info_t *p);
PMIX_EXPORT void PMIx_Info_set_end(pmix_info_t *p);
PMIX_EXPORT bool PMIx_Info_is_end(const pmix_info_t *p);
PMIX_EXPORT void PMIx_Info_qualifier(pmix_info_t *p);
PMIX_EXPORT bool PMIx_Info_is_qualifier(const pmix_info_t *p);
PMIX_EXPORT void PMIx_Info_persistent(pmix_info_t *p);
PMIX_EXPORT bool PMIx_Info_is_persistent(const pmix_info_t *p);

/* --- info lists: an opaque, growable list of pmix_info_t --- */

/* Start a new list; the handle belongs to the caller (PMIx_Info_list_release). NULL when
 * memory is short. */
PMIX_EXPORT void *PMIx_Info_list_start(void);

/* Append key with a deep copy of the datum at value. */
PMIX_EXPORT pmix_status_t PMIx_Info_list_add(void *ptr, const char *key,
                                             const void *value, pmix_data_type_t type);

/* Like PMIx_Info_list_add, but if key is already present replace it (overwrite true) or
 * fail with PMIX_ERR_EXISTS. */
PMIX_EXPORT pmix_status_t PMIx_Info_list_add_unique(void *ptr, const char *key,
                                                    const void *value, pmix_data_type_t type,
                                                    bool overwrite);

/* Append key with a deep copy of value. */
PMIX_EXPORT pmix_status_t PMIx_Info_list_add_value(void *ptr, const char *key,
                                                   const pmix_value_t *value);

/* Like PMIx_Info_list_add_value, with the duplicate rule of PMIx_Info_list_add_unique. */
PMIX_EXPORT pmix_status_t PMIx_Info_list_add_value_unique(void *ptr, const char *key,
                                                          const pmix_value_t *value,
                                                          bool overwrite);

/* Like PMIx_Info_list_add, but insert at the front. */
PMIX_EXPORT pmix_status_t PMIx_Info_list_prepend(void *ptr, const char *key,
                                                 const void *value, pmix_data_type_t type);

/* Append info itself, without copying: the list refers to the caller's storage, which
 * must outlive the list and is not released by it. */
PMIX_EXPORT pmix_status_t PMIx_Info_list_insert(void *ptr, pmix_info_t *info);

/* Append a deep copy of info. */
PMIX_EXPORT pmix_status_t PMIx_Info_list_xfer(void *ptr, const pmix_info_t *info);

/* Like PMIx_Info_list_xfer, with the duplicate rule of PMIx_Info_list_add_unique. */
PMIX_EXPORT pmix_status_t PMIx_Info_list_xfer_unique(void *ptr, const pmix_info_t *info,
                                                     bool overwrite);

/* Copy the list into par as a PMIX_INFO array (malloc'd, owned by par; release with
 * PMIx_Data_array_destruct). An empty list gives PMIX_ERR_EMPTY. */
PMIX_EXPORT pmix_status_t PMIx_Info_list_convert(void *ptr, pmix_data_array_t *par);

/* Release the list and the copies it holds; NULL is ignored. */
PMIX_EXPORT void PMIx_Info_list_release(void *ptr);

/* Walk the list: prev NULL gives the first entry; *next receives the handle to pass as
 * prev for the following one (NULL at the end). The info stays owned by the list. */
PMIX_EXPORT pmix_info_t *PMIx_Info_list_get_info(void *ptr, void *prev, void **next);

/* Number of entries in the list (0 for NULL). */
PMIX_EXPORT size_t PMIx_Info_list_get_size(void *ptr);

/* --- construct / destruct / create / free of the other structures. *_destruct releases
 *     what the object points to; *_create mallocs n constructed objects (NULL for n == 0);
 *     *_free destructs n objects and frees the array (NULL is ignored). --- */

PMIX_EXPORT void PMIx_Coord_construct(pmix_coord_t *m);
PMIX_EXPORT void PMIx_Coord_destruct(pmix_coord_t *m);
/* Each of the number coordinates gets room for dims values. */
PMIX_EXPORT pmix_coord_t *PMIx_Coord_create(size_t dims, size_t number);
PMIX_EXPORT void PMIx_Coord_free(pmix_coord_t *m, size_t number);

PMIX_EXPORT void PMIx_Topology_construct(pmix_topology_t *t);
/* Releases the topology object, unless it is the library's own shared copy. */
PMIX_EXPORT void PMIx_Topology_destruct(pmix_topology_t *topo);
PMIX_EXPORT pmix_topology_t *PMIx_Topology_create(size_t n);
PMIX_EXPORT void PMIx_Topology_free(pmix_topology_t *t, size_t n);

PMIX_EXPORT void PMIx_Cpuset_construct(pmix_cpuset_t *cpuset);
PMIX_EXPORT void PMIx_Cpuset_destruct(pmix_cpuset_t *cpuset);
PMIX_EXPORT pmix_cpuset_t *PMIx_Cpuset_create(size_t n);
PMIX_EXPORT void PMIx_Cpuset_free(pmix_cpuset_t *c, size_t n);

PMIX_EXPORT void PMIx_Geometry_construct(pmix_geometry_t *g);
PMIX_EXPORT void PMIx_Geometry_destruct(pmix_geometry_t *g);
PMIX_EXPORT pmix_geometry_t *PMIx_Geometry_create(size_t n);
PMIX_EXPORT void PMIx_Geometry_free(pmix_geometry_t *g, size_t n);

PMIX_EXPORT void PMIx_Device_construct(pmix_device_t *d);
PMIX_EXPORT void PMIx_Device_destruct(pmix_device_t *d);
PMIX_EXPORT pmix_device_t *PMIx_Device_create(size_t n);
PMIX_EXPORT void PMIx_Device_free(pmix_device_t *d, size_t n);

PMIX_EXPORT void PMIx_Node_pid_construct(pmix_node_pid_t *d);
PMIX_EXPORT void PMIx_Node_pid_destruct(pmix_node_pid_t *d);
PMIX_EXPORT pmix_node_pid_t *PMIx_Node_pid_create(size_t n);
PMIX_EXPORT void PMIx_Node_pid_free(pmix_node_pid_t *d, size_t n);

PMIX_EXPORT void PMIx_Regex2_construct(pmix_regex2_t *d);
PMIX_EXPORT void PMIx_Regex2_destruct(pmix_regex2_t *d);
PMIX_EXPORT pmix_regex2_t *PMIx_Regex2_create(size_t n);
PMIX_EXPORT void PMIx_Regex2_free(pmix_regex2_t *d, size_t n);

PMIX_EXPORT void PMIx_Resource_unit_construct(pmix_resource_unit_t *d);
PMIX_EXPORT void PMIx_Resource_unit_destruct(pmix_resource_unit_t *d);
PMIX_EXPORT pmix_resource_unit_t *PMIx_Resource_unit_create(size_t n);
PMIX_EXPORT void PMIx_Resource_unit_free(pmix_resource_unit_t *d, size_t n);

/* Constructed distances start at UINT16_MAX ("unknown"). */
PMIX_EXPORT void PMIx_Device_distance_construct(pmix_device_distance_t *d);
PMIX_EXPORT void PMIx_Device_distance_destruct(pmix_device_distance_t *d);
PMIX_EXPORT pmix_device_distance_t *PMIx_Device_distance_create(size_t n);
PMIX_EXPORT void PMIx_Device_distance_free(pmix_device_distance_t *d, size_t n);

PMIX_EXPORT void PMIx_Byte_object_construct(pmix_byte_object_t *b);
PMIX_EXPORT void PMIx_Byte_object_destruct(pmix_byte_object_t *g);
PMIX_EXPORT pmix_byte_object_t *PMIx_Byte_object_create(size_t n);
PMIX_EXPORT void PMIx_Byte_object_free(pmix_byte_object_t *g, size_t n);
/* Hand the malloc'd buffer d of sz bytes to b: b owns it afterwards (not copied). */
PMIX_EXPORT void PMIx_Byte_object_load(pmix_byte_object_t *b, char *d, size_t sz);

PMIX_EXPORT void PMIx_Endpoint_construct(pmix_endpoint_t *e);
PMIX_EXPORT void PMIx_Endpoint_destruct(pmix_endpoint_t *e);
PMIX_EXPORT pmix_endpoint_t *PMIx_Endpoint_create(size_t n);
PMIX_EXPORT void PMIx_Endpoint_free(pmix_endpoint_t *e, size_t n);

PMIX_EXPORT void PMIx_Envar_construct(pmix_envar_t *e);
PMIX_EXPORT void PMIx_Envar_destruct(pmix_envar_t *e);
PMIX_EXPORT pmix_envar_t *PMIx_Envar_create(size_t n);
PMIX_EXPORT void PMIx_Envar_free(pmix_envar_t *e, size_t n);
/* Store copies of var and value (either may be NULL) and the separator in e. */
PMIX_EXPORT void PMIx_Envar_load(pmix_envar_t *e, char *var, char *value, char separator);

PMIX_EXPORT void PMIx_Data_buffer_construct(pmix_data_buffer_t *b);
/* Releases the buffer's storage; b stays the caller's. */
PMIX_EXPORT void PMIx_Data_buffer_destruct(pmix_data_buffer_t *b);
/* malloc one empty buffer; release with PMIx_Data_buffer_release. */
PMIX_EXPORT pmix_data_buffer_t *PMIx_Data_buffer_create(void);
/* Destruct and free b; NULL is ignored. */
PMIX_EXPORT void PMIx_Data_buffer_release(pmix_data_buffer_t *b);
/* Hand the malloc'd bytes (sz of them, packed data) to b, which owns them afterwards. */
PMIX_EXPORT void PMIx_Data_buffer_load(pmix_data_buffer_t *b, char *bytes, size_t sz);
/* Take the unread bytes out of b: *bytes (malloc'd, now the caller's) and *sz; b is left
 * empty. Nothing left gives *bytes NULL and *sz 0. */
PMIX_EXPORT void PMIx_Data_buffer_unload(pmix_data_buffer_t *b, char **bytes, size_t *sz);

PMIX_EXPORT void PMIx_Proc_construct(pmix_proc_t *p);
PMIX_EXPORT void PMIx_Proc_destruct(pmix_proc_t *p);
PMIX_EXPORT pmix_proc_t *PMIx_Proc_create(size_t n);
PMIX_EXPORT void PMIx_Proc_free(pmix_proc_t *p, size_t n);
/* Same as PMIx_Load_procid. */
PMIX_EXPORT void PMIx_Proc_load(pmix_proc_t *p, const char *nspace, pmix_rank_t rank);
/* target = "cluster:nspace" (truncated to fit). */
PMIX_EXPORT void PMIx_Multicluster_nspace_construct(pmix_nspace_t target,
                                                    pmix_nspace_t cluster,
                                                    pmix_nspace_t nspace);
/* Split target at its first ':' into cluster and nspace (both cleared first). Without a
 * ':' all of target lands in cluster and nspace stays empty. */
PMIX_EXPORT void PMIx_Multicluster_nspace_parse(pmix_nspace_t target,
                                                pmix_nspace_t cluster,
                                                pmix_nspace_t nspace);

PMIX_EXPORT void PMIx_Proc_info_construct(pmix_proc_info_t *p);
PMIX_EXPORT void PMIx_Proc_info_destruct(pmix_proc_info_t *p);
PMIX_EXPORT pmix_proc_info_t *PMIx_Proc_info_create(size_t n);
PMIX_EXPORT void PMIx_Proc_info_free(pmix_proc_info_t *p, size_t n);

PMIX_EXPORT void PMIx_Pdata_construct(pmix_pdata_t *p);
PMIX_EXPORT void PMIx_Pdata_destruct(pmix_pdata_t *p);
PMIX_EXPORT pmix_pdata_t *PMIx_Pdata_create(size_t n);
PMIX_EXPORT void PMIx_Pdata_free(pmix_pdata_t *p, size_t n);
/* Fill dest with a copy of p (may be NULL), key (copied) and a deep copy of data. */
PMIX_EXPORT void PMIx_Pdata_load(pmix_pdata_t *dest, const pmix_proc_t *p, const char *key,
                                 const void *data, pmix_data_type_t type);
/* Deep-copy src into dest. */
PMIX_EXPORT void PMIx_Pdata_xfer(pmix_pdata_t *dest, pmix_pdata_t *src);

PMIX_EXPORT void PMIx_App_construct(pmix_app_t *p);
PMIX_EXPORT void PMIx_App_destruct(pmix_app_t *p);
PMIX_EXPORT pmix_app_t *PMIx_App_create(size_t n);
/* Give p a fresh array of n constructed infos (p owns it). */
PMIX_EXPORT void PMIx_App_info_create(pmix_app_t *p, size_t n);
PMIX_EXPORT void PMIx_App_free(pmix_app_t *p, size_t n);
/* Same as PMIx_App_free(p, 1). */
PMIX_EXPORT void PMIx_App_release(pmix_app_t *p);

PMIX_EXPORT void PMIx_Query_construct(pmix_query_t *p);
PMIX_EXPORT void PMIx_Query_destruct(pmix_query_t *p);
PMIX_EXPORT pmix_query_t *PMIx_Query_create(size_t n);
/* Give p a fresh array of n constructed qualifiers (p owns it). */
PMIX_EXPORT void PMIx_Query_qualifiers_create(pmix_query_t *p, size_t n);
PMIX_EXPORT void PMIx_Query_free(pmix_query_t *p, size_t n);
/* Same as PMIx_Query_free(p, 1). */
PMIX_EXPORT void PMIx_Query_release(pmix_query_t *p);

PMIX_EXPORT void PMIx_Regattr_construct(pmix_regattr_t *p);
PMIX_EXPORT void PMIx_Regattr_destruct(pmix_regattr_t *p);
PMIX_EXPORT pmix_regattr_t *PMIx_Regattr_create(size_t n);
PMIX_EXPORT void PMIx_Regattr_free(pmix_regattr_t *p, size_t n);
/* Fill info with copies of name, key, type and a one-line description (any may be NULL). */
PMIX_EXPORT void PMIx_Regattr_load(pmix_regattr_t *info, const char *name, const char *key,
                                   pmix_data_type_t type, const char *description);
/* Deep-copy src into dest. */
PMIX_EXPORT void PMIx_Regattr_xfer(pmix_regattr_t *dest, const pmix_regattr_t *src);

/* Set every field of p to its initial value (index SIZE_MAX). */
PMIX_EXPORT void PMIx_Fabric_construct(pmix_fabric_t *p);

/* --- Macro forms. Each is a thin call to the function above; the *_FREE / *_RELEASE
 *     forms also set their pointer argument to NULL. --- */

#define PMIX_LOAD_KEY(a, b)             PMIx_Load_key(a, b)
#define PMIX_CHECK_KEY(a, b)            PMIx_Check_key((a)->key, b)
#define PMIX_CHECK_RESERVED_KEY(a)      PMIx_Check_reserved_key(a)
#define PMIX_LOAD_NSPACE(a, b)          PMIx_Load_nspace(a, b)
#define PMIX_CHECK_NSPACE(a, b)         PMIx_Check_nspace(a, b)
#define PMIX_NSPACE_INVALID(a)          PMIx_Nspace_invalid(a)
#define PMIX_LOAD_PROCID(a, b, c)       PMIx_Load_procid(a, b, c)
#define PMIX_XFER_PROCID(a, b)          PMIx_Xfer_procid(a, b)
#define PMIX_PROCID_XFER(a, b)          PMIX_XFER_PROCID(a, b)
#define PMIX_CHECK_PROCID(a, b)         PMIx_Check_procid(a, b)
#define PMIX_CHECK_RANK(a, b)           PMIx_Check_rank(a, b)
#define PMIX_PROCID_INVALID(a)          PMIx_Procid_invalid(a)

/* The argv macros store the result in r (a, the array, is an lvalue for APPEND/PREPEND). */
#define PMIX_ARGV_COUNT(r, a)           (r) = PMIx_Argv_count(a)
#define PMIX_ARGV_APPEND(r, a, b)       (r) = PMIx_Argv_append_nosize((char ***)&(a), (b))
#define PMIX_ARGV_PREPEND(r, a, b)      (r) = PMIx_Argv_prepend_nosize((char ***)&(a), (b))
/* Note: here a is already the address of the array (char ***). */
#define PMIX_ARGV_APPEND_UNIQUE(r, a, b) (r) = PMIx_Argv_append_unique_nosize(a, b)
#define PMIX_ARGV_FREE(a) \
    do { PMIx_Argv_free(a); (a) = NULL; } while (0)
#define PMIX_ARGV_SPLIT(a, b, c)        (a) = PMIx_Argv_split(b, c)
#define PMIX_ARGV_JOIN(a, b, c)         (a) = PMIx_Argv_join(b, c)
#define PMIX_ARGV_COPY(a, b)            (a) = PMIx_Argv_copy(b)
#define PMIX_SETENV(r, a, b, c)         (r) = PMIx_Setenv((a), (b), true, (c))

#define PMIX_VALUE_CONSTRUCT(m)         PMIx_Value_construct(m)
#define PMIX_VALUE_DESTRUCT(m)          PMIx_Value_destruct(m)
#define PMIX_VALUE_CREATE(m, n)         (m) = PMIx_Value_create(n)
#define PMIX_VALUE_RELEASE(m) \
    do { PMIx_Value_free(m, 1); (m) = NULL; } while (0)
#define PMIX_VALUE_FREE(m, n) \
    do { PMIx_Value_free(m, n); (m) = NULL; } while (0)
#define PMIX_CHECK_TRUE(a)              (PMIX_BOOL_TRUE == PMIx_Value_true(a) ? true : false)
#define PMIX_CHECK_BOOL(a)              (PMIX_NON_BOOL == PMIx_Value_true(a) ? false : true)
#define PMIX_VALUE_LOAD(v, d, t)        PMIx_Value_load((v), (d), (t))
#define PMIX_VALUE_UNLOAD(r, k, d, s)   (r) = PMIx_Value_unload((k), (d), (s))
/* If v is NULL a value is malloc'd for it first (r = PMIX_ERR_NOMEM if that fails). */
#define PMIX_VALUE_XFER(r, v, s)                                            \
    do {                                                                    \
        if (NULL == (v)) {                                                  \
            (v) = (pmix_value_t *)pmix_malloc(sizeof(pmix_value_t));        \
        }                                                                   \
        (r) = (NULL == (v)) ? PMIX_ERR_NOMEM : PMIx_Value_xfer((v), (s));   \
    } while (0)
#define PMIX_VALUE_XFER_DIRECT(r, v, s) (r) = PMIx_Value_xfer((v), (s))
/* Cast the number in value *m to type t and store it in n; s becomes PMIX_SUCCESS, or
 * PMIX_ERR_BAD_PARAM if *m holds no number (n is then unchanged). No range checks: use
 * PMIx_Value_get_number for those. */
#define PMIX_VALUE_GET_NUMBER(s, m, n, t)                                   \
    do {                                                                    \
        (s) = PMIX_SUCCESS;                                                 \
        switch ((m)->type) {                                                \
        case PMIX_SIZE:      (n) = (t)((m)->data.size);    break;           \
        case PMIX_INT:       (n) = (t)((m)->data.integer); break;           \
        case PMIX_INT8:      (n) = (t)((m)->data.int8);    break;           \
        case PMIX_INT16:     (n) = (t)((m)->data.int16);   break;           \
        case PMIX_INT32:     (n) = (t)((m)->data.int32);   break;           \
        case PMIX_INT64:     (n) = (t)((m)->data.int64);   break;           \
        case PMIX_UINT:      (n) = (t)((m)->data.uint);    break;           \
        case PMIX_UINT8:     (n) = (t)((m)->data.uint8);   break;           \
        case PMIX_UINT16:    (n) = (t)((m)->data.uint16);  break;           \
        case PMIX_UINT32:    (n) = (t)((m)->data.uint32);  break;           \
        case PMIX_UINT64:    (n) = (t)((m)->data.uint64);  break;           \
        case PMIX_FLOAT:     (n) = (t)((m)->data.fval);    break;           \
        case PMIX_DOUBLE:    (n) = (t)((m)->data.dval);    break;           \
        case PMIX_PID:       (n) = (t)((m)->data.pid);     break;           \
        case PMIX_PROC_RANK: (n) = (t)((m)->data.rank);    break;           \
        case PMIX_STATUS:    (n) = (t)((m)->data.status);  break;           \
        default:             (s) = PMIX_ERR_BAD_PARAM;     break;           \
        }                                                                   \
    } while (0)

#define PMIX_INFO_CONSTRUCT(m)          PMIx_Info_construct(m)
#define PMIX_INFO_DESTRUCT(m)           PMIx_Info_destruct(m)
#define PMIX_INFO_CREATE(m, n)          (m) = PMIx_Info_create(n)
#define PMIX_INFO_FREE(m, n) \
    do { PMIx_Info_free(m, n); (m) = NULL; } while (0)
#define PMIX_INFO_REQUIRED(m)           PMIx_Info_required(m)
#define PMIX_INFO_OPTIONAL(m)           PMIx_Info_optional(m)
#define PMIX_INFO_IS_REQUIRED(m)        PMIx_Info_is_required(m)
#define PMIX_INFO_IS_OPTIONAL(m)        PMIx_Info_is_optional(m)
#define PMIX_INFO_PROCESSED(m)          PMIx_Info_processed(m)
#define PMIX_INFO_WAS_PROCESSED(m)      PMIx_Info_was_processed(m)
#define PMIX_INFO_SET_END(m)            PMIx_Info_set_end(m)
#define PMIX_INFO_IS_END(m)             PMIx_Info_is_end(m)
#define PMIX_INFO_SET_QUALIFIER(i)      PMIx_Info_qualifier(i)
#define PMIX_INFO_IS_QUALIFIER(i)       PMIx_Info_is_qualifier(i)
#define PMIX_INFO_SET_PERSISTENT(ii)    PMIx_Info_persistent(ii)
#define PMIX_INFO_IS_PERSISTENT(ii)     PMIx_Info_is_persistent(ii)
#define PMIX_INFO_LOAD(i, k, d, t)      (void)PMIx_Info_load(i, k, d, t)
#define PMIX_INFO_XFER(d, s)            (void)PMIx_Info_xfer(d, s)
#define PMIX_INFO_TRUE(m)               (PMIX_BOOL_TRUE == PMIx_Info_true(m) ? true : false)

#define PMIX_INFO_LIST_START(p)               (p) = PMIx_Info_list_start()
#define PMIX_INFO_LIST_ADD(r, p, a, v, t)     (r) = PMIx_Info_list_add((p), (a), (v), (t))
#define PMIX_INFO_LIST_PREPEND(r, p, a, v, t) (r) = PMIx_Info_list_prepend((p), (a), (v), (t))
#define PMIX_INFO_LIST_INSERT(r, p, i)        (r) = PMIx_Info_list_insert((p), (i))
#define PMIX_INFO_LIST_XFER(r, p, a)          (r) = PMIx_Info_list_xfer((p), (a))
#define PMIX_INFO_LIST_CONVERT(r, p, m)       (r) = PMIx_Info_list_convert((p), (m))
#define PMIX_INFO_LIST_RELEASE(p)             PMIx_Info_list_release((p))

#define PMIX_TOPOLOGY_CONSTRUCT(m)      PMIx_Topology_construct(m)
#define PMIX_TOPOLOGY_CREATE(m, n)      (m) = PMIx_Topology_create(n)
#define PMIX_TOPOLOGY_DESTRUCT(x)       PMIx_Topology_destruct(x)
#define PMIX_TOPOLOGY_FREE(m, n) \
    do { PMIx_Topology_free(m, n); (m) = NULL; } while (0)

/* Note the argument order: n coordinates of d dimensions. */
#define PMIX_COORD_CREATE(m, n, d)      (m) = PMIx_Coord_create(d, n)
#define PMIX_COORD_CONSTRUCT(m)         PMIx_Coord_construct(m)
#define PMIX_COORD_DESTRUCT(m)          PMIx_Coord_destruct(m)
#define PMIX_COORD_FREE(m, n) \
    do { PMIx_Coord_free(m, n); (m) = NULL; } while (0)

#define PMIX_CPUSET_CONSTRUCT(m)        PMIx_Cpuset_construct(m)
#define PMIX_CPUSET_DESTRUCT(m)         PMIx_Cpuset_destruct(m)
#define PMIX_CPUSET_CREATE(m, n)        (m) = PMIx_Cpuset_create(n)
#define PMIX_CPUSET_FREE(m, n) \
    do { PMIx_Cpuset_free(m, n); (m) = NULL; } while (0)

#define PMIX_GEOMETRY_CONSTRUCT(m)      PMIx_Geometry_construct(m)
#define PMIX_GEOMETRY_DESTRUCT(m)       PMIx_Geometry_destruct(m)
#define PMIX_GEOMETRY_CREATE(m, n)      (m) = PMIx_Geometry_create(n)
#define PMIX_GEOMETRY_FREE(m, n) \
    do { PMIx_Geometry_free(m, n); (m) = NULL; } while (0)

#define PMIX_DEVICE_CONSTRUCT(m)        PMIx_Device_construct(m)
#define PMIX_DEVICE_DESTRUCT(m)         PMIx_Device_destruct(m)
#define PMIX_DEVICE_CREATE(m, n)        (m) = PMIx_Device_create(n)
#define PMIX_DEVICE_FREE(m, n) \
    do { PMIx_Device_free(m, n); (m) = NULL; } while (0)

#define PMIX_RESOURCE_UNIT_CONSTRUCT(m) PMIx_Resource_unit_construct(m)
#define PMIX_RESOURCE_UNIT_DESTRUCT(m)  PMIx_Resource_unit_destruct(m)
#define PMIX_RESOURCE_UNIT_CREATE(m, n) (m) = PMIx_Resource_unit_create(n)
#define PMIX_RESOURCE_UNIT_FREE(m, n) \
    do { PMIx_Resource_unit_free(m, n); (m) = NULL; } while (0)

#define PMIX_DEVICE_DIST_CONSTRUCT(m)   PMIx_Device_distance_construct(m)
#define PMIX_DEVICE_DIST_DESTRUCT(m)    PMIx_Device_distance_destruct(m)
#define PMIX_DEVICE_DIST_CREATE(m, n)   (m) = PMIx_Device_distance_create(n)
#define PMIX_DEVICE_DIST_FREE(m, n) \
    do { PMIx_Device_distance_free(m, n); (m) = NULL; } while (0)

#define PMIX_BYTE_OBJECT_CONSTRUCT(m)   PMIx_Byte_object_construct(m)
#define PMIX_BYTE_OBJECT_DESTRUCT(m)    PMIx_Byte_object_destruct(m)
#define PMIX_BYTE_OBJECT_CREATE(m, n)   (m) = PMIx_Byte_object_create(n)
#define PMIX_BYTE_OBJECT_FREE(m, n) \
    do { PMIx_Byte_object_free(m, n); (m) = NULL; } while (0)
/* b takes over d; d and s are cleared so the caller cannot free d twice. */
#define PMIX_BYTE_OBJECT_LOAD(b, d, s) \
    do { PMIx_Byte_object_load(b, d, s); (d) = NULL; (s) = 0; } while (0)

#define PMIX_ENDPOINT_CONSTRUCT(m)      PMIx_Endpoint_construct(m)
#define PMIX_ENDPOINT_DESTRUCT(m)       PMIx_Endpoint_destruct(m)
#define PMIX_ENDPOINT_CREATE(m, n)      (m) = PMIx_Endpoint_create(n)
#define PMIX_ENDPOINT_FREE(m, n) \
    do { PMIx_Endpoint_free(m, n); (m) = NULL; } while (0)

#define PMIX_ENVAR_CREATE(m, n)         (m) = PMIx_Envar_create(n)
#define PMIX_ENVAR_FREE(m, n) \
    do { PMIx_Envar_free(m, n); (m) = NULL; } while (0)
#define PMIX_ENVAR_CONSTRUCT(m)         PMIx_Envar_construct(m)
#define PMIX_ENVAR_DESTRUCT(m)          PMIx_Envar_destruct(m)
#define PMIX_ENVAR_LOAD(m, e, v, s)     PMIx_Envar_load(m, e, v, s)

#define PMIX_DATA_BUFFER_CREATE(m)      (m) = PMIx_Data_buffer_create()
#define PMIX_DATA_BUFFER_RELEASE(m) \
    do { PMIx_Data_buffer_release(m); (m) = NULL; } while (0)
#define PMIX_DATA_BUFFER_CONSTRUCT(m)   PMIx_Data_buffer_construct(m)
#define PMIX_DATA_BUFFER_DESTRUCT(m)    PMIx_Data_buffer_destruct(m)
#define PMIX_DATA_BUFFER_LOAD(b, d, s)  PMIx_Data_buffer_load(b, d, s)
/* d (char*) and s (size_t) are lvalues that receive the bytes and their count. */
#define PMIX_DATA_BUFFER_UNLOAD(b, d, s) \
    PMIx_Data_buffer_unload(b, (char **)&(d), (size_t *)&(s))

#define PMIX_PROC_CREATE(m, n)          (m) = PMIx_Proc_create(n)
#define PMIX_PROC_CONSTRUCT(m)          PMIx_Proc_construct(m)
#define PMIX_PROC_DESTRUCT(m)           PMIx_Proc_destruct(m)
#define PMIX_PROC_FREE(m, n) \
    do { PMIx_Proc_free(m, n); (m) = NULL; } while (0)
#define PMIX_PROC_RELEASE(m) \
    do { PMIx_Proc_free(m, 1); (m) = NULL; } while (0)
#define PMIX_PROC_LOAD(m, n, r)         PMIx_Proc_load(m, n, r)
#define PMIX_MULTICLUSTER_NSPACE_CONSTRUCT(t, c, n) PMIx_Multicluster_nspace_construct(t, c, n)
#define PMIX_MULTICLUSTER_NSPACE_PARSE(t, c, n)     PMIx_Multicluster_nspace_parse(t, c, n)

#define PMIX_PROC_INFO_CREATE(m, n)     (m) = PMIx_Proc_info_create(n)
#define PMIX_PROC_INFO_CONSTRUCT(m)     PMIx_Proc_info_construct(m)
#define PMIX_PROC_INFO_DESTRUCT(m)      PMIx_Proc_info_destruct(m)
#define PMIX_PROC_INFO_FREE(m, n) \
    do { PMIx_Proc_info_free(m, n); (m) = NULL; } while (0)
#define PMIX_PROC_INFO_RELEASE(m) \
    do { PMIx_Proc_info_free(m, 1); (m) = NULL; } while (0)

#define PMIX_PDATA_CONSTRUCT(m)         PMIx_Pdata_construct(m)
#define PMIX_PDATA_DESTRUCT(m)          PMIx_Pdata_destruct(m)
#define PMIX_PDATA_CREATE(m, n)         (m) = PMIx_Pdata_create(n)
#define PMIX_PDATA_FREE(m, n) \
    do { PMIx_Pdata_free(m, n); (m) = NULL; } while (0)
#define PMIX_PDATA_RELEASE(m) \
    do { PMIx_Pdata_free(m, 1); (m) = NULL; } while (0)
#define PMIX_PDATA_LOAD(m, p, k, v, t)  PMIx_Pdata_load(m, p, k, v, t)
#define PMIX_PDATA_XFER(d, s)           PMIx_Pdata_xfer(d, s)

#define PMIX_APP_CONSTRUCT(m)           PMIx_App_construct(m)
#define PMIX_APP_DESTRUCT(m)            PMIx_App_destruct(m)
#define PMIX_APP_CREATE(m, n)           (m) = PMIx_App_create(n)
#define PMIX_APP_INFO_CREATE(m, n)      PMIx_App_info_create(m, n)
#define PMIX_APP_RELEASE(m) \
    do { PMIx_App_free(m, 1); (m) = NULL; } while (0)
#define PMIX_APP_FREE(m, n) \
    do { PMIx_App_free(m, n); (m) = NULL; } while (0)

#define PMIX_QUERY_CONSTRUCT(m)         PMIx_Query_construct(m)
#define PMIX_QUERY_DESTRUCT(m)          PMIx_Query_destruct(m)
#define PMIX_QUERY_CREATE(m, n)         (m) = PMIx_Query_create(n)
#define PMIX_QUERY_QUALIFIERS_CREATE(m, n) PMIx_Query_qualifiers_create(m, n)
#define PMIX_QUERY_RELEASE(m) \
    do { PMIx_Query_release(m); (m) = NULL; } while (0)
#define PMIX_QUERY_FREE(m, n) \
    do { PMIx_Query_free(m, n); (m) = NULL; } while (0)

#define PMIX_REGATTR_CONSTRUCT(a)       PMIx_Regattr_construct(a)
#define PMIX_REGATTR_LOAD(a, n, k, t, v) PMIx_Regattr_load(a, n, k, t, v)
#define PMIX_REGATTR_DESTRUCT(a)        PMIx_Regattr_destruct(a)
#define PMIX_REGATTR_CREATE(m, n)       (m) = PMIx_Regattr_create(n)
#define PMIX_REGATTR_FREE(m, n) \
    do { PMIx_Regattr_free(m, n); (m) = NULL; } while (0)
#define PMIX_REGATTR_XFER(a, b)         PMIx_Regattr_xfer(a, b)

#define PMIX_DATA_ARRAY_INIT(m, t)         PMIx_Data_array_init(m, t)
#define PMIX_DATA_ARRAY_CONSTRUCT(m, n, t) PMIx_Data_array_construct(m, n, t)
#define PMIX_DATA_ARRAY_DESTRUCT(m)        PMIx_Data_array_destruct(m)
#define PMIX_DATA_ARRAY_CREATE(m, n, t)    (m) = PMIx_Data_array_create(n, t)
#define PMIX_DATA_ARRAY_FREE(m) \
    do { PMIx_Data_array_free(m); (m) = NULL; } while (0)

/* Lower-case names that older code used for the argv helpers. */
#define pmix_argv_append_nosize(a, b)        PMIx_Argv_append_nosize(a, b)
#define pmix_argv_append_unique_nosize(a, b) PMIx_Argv_append_unique_nosize(a, b)
#define pmix_argv_split(a, b)                PMIx_Argv_split(a, b)
#define pmix_argv_split_with_empty(a, b)     PMIx_Argv_split_with_empty(a, b)
#define pmix_argv_free(a)                    PMIx_Argv_free(a)
#define pmix_argv_count(a)                   PMIx_Argv_count(a)
#define pmix_argv_join(a, b)                 PMIx_Argv_join(a, b)
#define pmix_argv_prepend_nosize(a, b)       PMIx_Argv_prepend_nosize(a, b)
#define pmix_argv_copy(a)                    PMIx_Argv_copy(a)
#define pmix_setenv(a, b, c, d)              PMIx_Setenv(a, b, c, d)

#if defined(c_plusplus) || defined(__cplusplus)
}
#endif

/* Deprecated names, kept so that older code compiles. */
#include <pmix_deprecated.h>

#endif /* PMIx_COMMON_H */
