/* MPI hello: Init, rank/size, Barrier, Allreduce (checks the sum), Finalize.
 * Usage: mpi_hello [EXPECTED_SIZE]. Also runs as a singleton (no mpirun). */
#include "mpitest.h"

int main(int argc, char **argv)
{
    int rank = -1, size = -1;
    int rc = MPI_Init(&argc, &argv);
    CHECK(rc == MPI_SUCCESS, "MPI_Init");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1)
        CHECK(size == atoi(argv[1]), "rank %d: size %d want %s", rank, size, argv[1]);

    mpitest_check_pmix(rank);

    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS, "rank %d: MPI_Barrier", rank);

    /* Sum of rank+1 over all ranks is size*(size+1)/2. */
    long mine = rank + 1, sum = 0;
    rc = MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS && sum == (long)size * (size + 1) / 2,
          "rank %d: allreduce sum %ld want %ld", rank, sum, (long)size * (size + 1) / 2);

    char host[256] = "";
    gethostname(host, sizeof host);
    printf("hello rank=%d size=%d host=%s\n", rank, size, host);

    /* A second collective after the output, so a rank that failed is seen by all. */
    int bad = check_failures, anybad = 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(anybad == 0, "rank %d: no rank reported a failure", rank);
    MPI_Finalize();
    CHECK_DONE();
}
