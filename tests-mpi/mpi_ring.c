/* Ring exchange: a token goes around the ring LAPS times; each rank adds its rank+1 on
 * every pass, so rank 0 finally holds LAPS * size*(size+1)/2. Also a simultaneous
 * neighbour exchange (MPI_Sendrecv) in both directions. */
#include "mpitest.h"

#define LAPS 3

int main(int argc, char **argv)
{
    int rank = -1, size = -1;
    CHECK(MPI_Init(&argc, &argv) == MPI_SUCCESS, "MPI_Init");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    mpitest_check_pmix(rank);

    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    long token = 0;
    for (int lap = 0; lap < LAPS; lap++) {
        if (rank == 0) {
            token += 1;
            if (size > 1) {
                MPI_Send(&token, 1, MPI_LONG, next, lap, MPI_COMM_WORLD);
                MPI_Recv(&token, 1, MPI_LONG, prev, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
        } else {
            MPI_Recv(&token, 1, MPI_LONG, prev, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            token += rank + 1;
            MPI_Send(&token, 1, MPI_LONG, next, lap, MPI_COMM_WORLD);
        }
    }
    long want = (long)LAPS * size * (size + 1) / 2;
    if (rank == 0)
        CHECK(token == want, "rank 0: ring token %ld want %ld", token, want);

    /* Every rank sends its rank to the right and receives from the left, then the reverse. */
    int got_left = -1, got_right = -1;
    MPI_Sendrecv(&rank, 1, MPI_INT, next, 100, &got_left, 1, MPI_INT, prev, 100, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(&rank, 1, MPI_INT, prev, 101, &got_right, 1, MPI_INT, next, 101,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(got_left == prev && got_right == next, "rank %d: neighbours %d/%d want %d/%d", rank,
          got_left, got_right, prev, next);
    printf("ring rank=%d size=%d\n", rank, size);

    int bad = check_failures, anybad = 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(anybad == 0, "rank %d: no rank reported a failure", rank);
    MPI_Finalize();
    CHECK_DONE();
}
