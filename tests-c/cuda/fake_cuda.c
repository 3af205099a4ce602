/* fake_cuda: pmix_cuda.h included after a <cuda.h> (tests-c/cuda/fake/cuda.h, built
 * with FAKE_CUDA_VERSION 13040 and 12080). With 13.4 types present ours must step aside
 * (a second definition would not compile); with an older CUDA ours fill in, on top of
 * CUDA's cuuint64_t. */
#include <cuda.h>
#include <pmix_cuda.h>

#include "check.h"

int main(void)
{
    void *obj = NULL;
    const CUhostCommunicationsVtable *vt = NULL;
#if FAKE_CUDA_VERSION >= 13040
    CHECK(PMIX_CUDA_HAVE_COMMS_TYPES == 1, "CUDA's types in use");
    CUcommsReductionOp op = FAKE_OP_SUM;
    CHECK(op == 10, "CUDA's enumerators in use");
#else
    CHECK(PMIX_CUDA_HAVE_COMMS_TYPES == 0, "our types in use");
    CUcommsReductionOp op = CU_COMMS_REDUCTION_OP_SUM;
    CHECK(op == 0, "our enumerators in use");
#endif
    cuuint64_t x = 1;
    CHECK(sizeof x == 8, "cuuint64_t from cuda.h");
    CHECK_RC(pmix_cuda_comms_create(NULL, 0, &obj, &vt), PMIX_ERR_INIT, "create before Init");
    CHECK_DONE();
}
