/* A stand-in for NVIDIA's <cuda.h>, to test that pmix_cuda.h yields to it.
 * FAKE_CUDA_VERSION picks what it provides:
 *   13040: CUDA 13.4 with the host-communications types (deliberately other enumerator
 *          names and values, so a redefinition or a mix-up would not compile or fail);
 *   12080: an older CUDA with cuuint64_t only. */
#ifndef FAKE_CUDA_H
#define FAKE_CUDA_H
#include <stdint.h>

#define CUDA_VERSION FAKE_CUDA_VERSION
typedef uint64_t cuuint64_t;

#if FAKE_CUDA_VERSION >= 13040
typedef enum CUcommsStatus_enum {
    FAKE_COMMS_OK = 0,
    FAKE_COMMS_BAD = -7
} CUcommsStatus;
typedef enum CUcommsReductionOp_enum {
    FAKE_OP_SUM = 10,
    FAKE_OP_MAX = 11
} CUcommsReductionOp;
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
#endif
#endif
