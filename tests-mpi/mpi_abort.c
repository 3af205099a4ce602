/* MPI_Abort from one rank: the last rank aborts with code ABORT_CODE (argv[1], default 42)
 * after a barrier; the others wait in a receive that never completes. The job must end
 * with that exit code (the driver checks), and nothing may hang. */
#include "mpitest.h"

int main(int argc, char **argv)
{
    int rank = -1, size = -1;
    int code = argc > 1 ? atoi(argv[1]) : 42;
    CHECK(MPI_Init(&argc, &argv) == MPI_SUCCESS, "MPI_Init");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    mpitest_check_pmix(rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == size - 1) {
        printf("abort rank=%d code=%d\n", rank, code);
        fflush(stdout);
        MPI_Abort(MPI_COMM_WORLD, code);
    } else {
        int never;
        MPI_Recv(&never, 1, MPI_INT, size - 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    /* Not reached: MPI_Abort ends the whole job. */
    printf("FAIL rank %d: still running after MPI_Abort\n", rank);
    MPI_Finalize();
    return 1;
}
