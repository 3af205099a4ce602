/* MPI_Allreduce over message sizes that take different paths through Open MPI's
 * collectives and transports: 1, 1000 and 262144 longs (8 B, 8 KB, 2 MB), each once into a
 * separate buffer and once MPI_IN_PLACE; then MPI_Bcast of 1 MB from the last rank and a
 * MAX reduction of the ranks. Element i of rank r is r + i, so the sum of element i is
 * size*i + size*(size-1)/2. */
#include "mpitest.h"

static const int COUNTS[] = {1, 1000, 262144};

/* Allreduce `count` longs (in place or not) and check every element; returns failures. */
static int sum_check(int rank, int size, int count, int in_place)
{
    long *in = malloc(sizeof(long) * (size_t)count);
    long *out = malloc(sizeof(long) * (size_t)count);
    if (in == NULL || out == NULL) {
        free(in);
        free(out);
        return 1;
    }
    for (int i = 0; i < count; i++) {
        in[i] = rank + i;
        out[i] = -1;
    }
    int rc = in_place ? MPI_Allreduce(MPI_IN_PLACE, in, count, MPI_LONG, MPI_SUM, MPI_COMM_WORLD)
                      : MPI_Allreduce(in, out, count, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    const long *res = in_place ? in : out;
    int bad = rc != MPI_SUCCESS;
    for (int i = 0; i < count && !bad; i++)
        if (res[i] != (long)size * i + (long)size * (size - 1) / 2)
            bad = 1 + i;
    free(in);
    free(out);
    return bad;
}

int main(int argc, char **argv)
{
    int rank = -1, size = -1;
    CHECK(MPI_Init(&argc, &argv) == MPI_SUCCESS, "MPI_Init");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    mpitest_check_pmix(rank);

    for (size_t c = 0; c < sizeof COUNTS / sizeof COUNTS[0]; c++)
        for (int in_place = 0; in_place < 2; in_place++) {
            int bad = sum_check(rank, size, COUNTS[c], in_place);
            CHECK(bad == 0, "rank %d: allreduce of %d longs%s (first bad element %d)", rank,
                  COUNTS[c], in_place ? " in place" : "", bad - 1);
        }

    /* Bcast 1 MB from the last rank: byte i is (i * 7 + root) mod 251. */
    int root = size - 1, n = 1 << 20, bad = 0;
    unsigned char *buf = malloc((size_t)n);
    CHECK(buf != NULL, "rank %d: bcast buffer", rank);
    if (buf != NULL) {
        for (int i = 0; i < n; i++)
            buf[i] = rank == root ? (unsigned char)((i * 7 + root) % 251) : 0;
        CHECK(MPI_Bcast(buf, n, MPI_UNSIGNED_CHAR, root, MPI_COMM_WORLD) == MPI_SUCCESS,
              "rank %d: MPI_Bcast", rank);
        for (int i = 0; i < n && !bad; i++)
            bad = buf[i] != (unsigned char)((i * 7 + root) % 251);
        CHECK(!bad, "rank %d: 1 MB bcast from rank %d arrived intact", rank, root);
        free(buf);
    }

    int max = -1;
    MPI_Allreduce(&rank, &max, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(max == size - 1, "rank %d: max rank %d want %d", rank, max, size - 1);
    printf("allreduce rank=%d size=%d\n", rank, size);

    int failed = check_failures, anybad = 0;
    MPI_Allreduce(&failed, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(anybad == 0, "rank %d: no rank reported a failure", rank);
    MPI_Finalize();
    CHECK_DONE();
}
