/*
 * pmix_cuda.h - a CUDA host-communications object (CUhostCommunicationsVtable, CUDA 13.4
 * developer preview) built on PMIx alone: any job started under a PMIx server can hand
 * CUDA a barrier/allreduce provider without MPI. See docs/CUDA.md for an example.
 *
 * Include <cuda.h> (if at all) BEFORE this header. CUDA is not needed to build or use it.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */

#ifndef PMIX_CUDA_H
#define PMIX_CUDA_H

#include <stdint.h>
#include <pmix.h>

#if defined(c_plusplus) || defined(__cplusplus)
extern "C" {
#endif

/*
 * Which definitions this header provides.
 *
 * PMIX_CUDA_HAVE_COMMS_TYPES = 1 means the including program already has
 * CUhostCommunicationsVtable, CUcommsReductionOp and CUcommsStatus from NVIDIA's
 * <cuda.h>, so they are not defined again here. By default it is 1 when <cuda.h>
 * announced CUDA 13.4 or later (CUDA_VERSION >= 13040), 0 otherwise. Define it to 0 or 1
 * before including this header to override the guess (for instance with a 13.x
 * <cuda.h> that lacks the preview types).
 *
 * cuuint64_t comes from <cuda.h> whenever CUDA_VERSION is defined; otherwise it is
 * defined here as uint64_t.
 */
#ifndef PMIX_CUDA_HAVE_COMMS_TYPES
#  if defined(CUDA_VERSION) && CUDA_VERSION >= 13040
#    define PMIX_CUDA_HAVE_COMMS_TYPES 1
#  else
#    define PMIX_CUDA_HAVE_COMMS_TYPES 0
#  endif
#endif

#if !defined(CUDA_VERSION)
typedef uint64_t cuuint64_t;
#endif

#if !PMIX_CUDA_HAVE_COMMS_TYPES

/*
 * THE ENUMERATOR VALUES WE ASSUME (one table; correct it here when NVIDIA's header is
 * at hand, then rebuild the library: libpmix reads these two enums from this file when
 * it is compiled, so nothing else needs editing).
 *
 * The preview documentation names the two types but not their enumerators, so every
 * name and value below is our assumption:
 *
 *   CUcommsStatus (0 = success, negative = an error the method reports):
 *     CU_COMMS_SUCCESS                 0   success
 *     CU_COMMS_ERROR_INVALID_VALUE    -1   NULL pointer, unknown object or request
 *                                          handle, communicator index out of range,
 *                                          negative size or count
 *     CU_COMMS_ERROR_OUT_OF_MEMORY    -2   more communicators (65536) or elements
 *                                          (1048576 per allreduce) than supported
 *     CU_COMMS_ERROR_NOT_SUPPORTED    -3   a reduction operation outside the table below
 *
 *   CUcommsReductionOp (every one is supported):
 *     CU_COMMS_REDUCTION_OP_SUM        0   sum, wrapping at 2^64
 *     CU_COMMS_REDUCTION_OP_MIN        1   minimum
 *     CU_COMMS_REDUCTION_OP_MAX        2   maximum
 *     CU_COMMS_REDUCTION_OP_BAND       3   bitwise and
 *     CU_COMMS_REDUCTION_OP_BOR        4   bitwise or
 *     CU_COMMS_REDUCTION_OP_BXOR       5   bitwise exclusive or
 *
 * Positive return values are ours ("implementation-defined", fatal to the CUDA
 * operation): the negated pmix_status_t of the failure, e.g. 200 for
 * PMIX_ERR_PROC_TERM_WO_SYNC (a member died); PMIx_Error_string(-rc) names it.
 */
typedef enum CUcommsStatus_enum {
    CU_COMMS_SUCCESS = 0,
    CU_COMMS_ERROR_INVALID_VALUE = -1,
    CU_COMMS_ERROR_OUT_OF_MEMORY = -2,
    CU_COMMS_ERROR_NOT_SUPPORTED = -3
} CUcommsStatus;

typedef enum CUcommsReductionOp_enum {
    CU_COMMS_REDUCTION_OP_SUM = 0,
    CU_COMMS_REDUCTION_OP_MIN = 1,
    CU_COMMS_REDUCTION_OP_MAX = 2,
    CU_COMMS_REDUCTION_OP_BAND = 3,
    CU_COMMS_REDUCTION_OP_BOR = 4,
    CU_COMMS_REDUCTION_OP_BXOR = 5
} CUcommsReductionOp;

/*
 * The vtable, member for member as CUDA's documentation lists it. Every method takes
 * the object as this_ and returns 0, a negative CUcommsStatus, or a positive fatal code.
 * Our implementation:
 *  - version: 1.
 *  - resize: grow to at least size communicators (an object starts with one); never
 *    shrinks, idempotent, needs no communication.
 *  - get_comm_id: a per-process identifier, distinct for every communicator of every
 *    object, stable for the object's life.
 *  - barrier, allreduce_uint64: start the operation and return at once with a request
 *    in *request_out. sendbuf is copied before the call returns (it may equal recvbuf);
 *    recvbuf must stay valid until test/testany reports completion, which is when the
 *    result is written into it. count 0 is a valid (empty) allreduce.
 *  - test: *flag_out = 1 and *request = NULL when the operation is complete (the request
 *    is freed then); the return value is the operation's result. A NULL *request counts
 *    as complete. Never blocks.
 *  - testany: *index_out = the first complete request's index (that entry becomes NULL,
 *    the request is freed, the return value is its result), or -1. NULL entries are
 *    skipped. Never blocks.
 *  - check_async_error: non-zero (the negated pmix_status_t) once an operation failed,
 *    a member died, or the connection to the PMIx server was lost;
 *    CU_COMMS_ERROR_INVALID_VALUE (also non-zero) for an unknown object.
 *  - retain/release: reference counting; at zero the object handle is gone, and the
 *    object itself is freed once its outstanding operations complete.
 */
typedef struct CUhostCommunicationsVtable {
    int version;
    int (*resize)(void *this_, int size);
    int (*get_comm_id)(void *this_, int comm_index, cuuint64_t *id_out);
    int (*barrier)(void *this_, int comm_index, void **request_out);
    int (*allreduce_uint64)(void *this_, int comm_index, const cuuint64_t *sendbuf,
                            cuuint64_t *recvbuf, int count, CUcommsReductionOp op,
                            void **request_out);
    int (*test)(void *this_, void **request, int *flag_out);
    int (*testany)(void *this_, int count, void **requests, int *index_out);
    int (*check_async_error)(void *this_);
    void (*retain)(void *this_);
    void (*release)(void *this_);
} CUhostCommunicationsVtable;

#endif /* !PMIX_CUDA_HAVE_COMMS_TYPES */

/*
 * Create a communications object over a set of processes and hand back the object
 * (holding one reference, dropped with (*vtable)->release(*object)) and the vtable
 * (static, never freed).
 *
 * procs/nprocs: the members, either a namespace wildcard ({nspace, PMIX_RANK_WILDCARD})
 * or an explicit list of processes; NULL with 0 means the caller's own namespace. The
 * caller must be a member. Collective: every member calls it with the same description
 * of the set and, relative to its other objects over that set, in the same order; it
 * returns when all of them have (like PMIx_Fence). PMIx_Init must have been called;
 * release every object before PMIx_Finalize.
 *
 * The object's handle is opaque (not a pointer): a stale or invalid handle passed to a
 * method gives CU_COMMS_ERROR_INVALID_VALUE, never a crash.
 *
 * Returns PMIX_SUCCESS (*object and *vtable written), PMIX_ERR_BAD_PARAM (NULL object or
 * vtable, NULL procs with nprocs > 0), PMIX_ERR_INIT (no PMIx_Init),
 * PMIX_ERR_NOT_A_MEMBER, PMIX_ERR_PROC_TERM_WO_SYNC (a member died),
 * PMIX_ERR_WOULD_BLOCK (called from a PMIx callback), PMIX_ERR_UNREACH.
 */
PMIX_EXPORT pmix_status_t pmix_cuda_comms_create(const pmix_proc_t *procs, size_t nprocs,
                                                 void **object,
                                                 const CUhostCommunicationsVtable **vtable);

#if defined(c_plusplus) || defined(__cplusplus)
}
#endif

#endif /* PMIX_CUDA_H */
