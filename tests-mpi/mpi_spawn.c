/* MPI_Comm_spawn: the parent job (any size) spawns NCHILD copies of this binary (argv[1],
 * default 2) that talk to it over the intercommunicator:
 *   - parent rank 0 sends child i the value 100+i; the child answers 1000+value;
 *   - both sides merge the intercommunicator and allreduce rank+1 over all of them;
 *   - both sides disconnect.
 * A child knows it is one by MPI_Comm_get_parent != MPI_COMM_NULL.
 * With MPITEST_SPAWN_ENV=NAME=VALUE the children are started as `env NAME=VALUE <this
 * binary>`: under PRRTE a spawned job gets prterun's environment, not the -x settings of
 * the first job, so that is how children swap our libpmix in as their parents did. */
#include "mpitest.h"

static int as_child(void)
{
    int rank = -1, size = -1, psize = -1;
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_remote_size(parent, &psize);
    mpitest_check_pmix(rank);

    int v = -1;
    MPI_Recv(&v, 1, MPI_INT, 0, 1, parent, MPI_STATUS_IGNORE);
    CHECK(v == 100 + rank, "child %d: got %d from parent want %d", rank, v, 100 + rank);
    v += 1000;
    MPI_Send(&v, 1, MPI_INT, 0, 2, parent);

    /* high=1: children come after the parents in the merged communicator. */
    MPI_Comm all;
    MPI_Intercomm_merge(parent, 1, &all);
    int arank = -1, asize = -1;
    MPI_Comm_rank(all, &arank);
    MPI_Comm_size(all, &asize);
    CHECK(asize == size + psize && arank == psize + rank, "child %d: merged rank %d/%d", rank,
          arank, asize);
    long mine = arank + 1, sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, all);
    CHECK(sum == (long)asize * (asize + 1) / 2, "child %d: merged allreduce %ld", rank, sum);
    printf("spawn child rank=%d size=%d parents=%d\n", rank, size, psize);
    MPI_Comm_free(&all);
    MPI_Comm_disconnect(&parent);
    MPI_Finalize();
    CHECK_DONE();
}

int main(int argc, char **argv)
{
    CHECK(MPI_Init(&argc, &argv) == MPI_SUCCESS, "MPI_Init");
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL)
        return as_child();

    int rank = -1, size = -1;
    int nchild = argc > 1 ? atoi(argv[1]) : 2;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    mpitest_check_pmix(rank);

    MPI_Comm inter;
    int errs[64];
    const char *swap = getenv("MPITEST_SPAWN_ENV");
    char *cargv[] = {(char *)swap, argv[0], NULL};
    int rc = swap != NULL && swap[0] != '\0'
                 ? MPI_Comm_spawn("env", cargv, nchild, MPI_INFO_NULL, 0, MPI_COMM_WORLD,
                                  &inter, errs)
                 : MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, nchild, MPI_INFO_NULL, 0,
                                  MPI_COMM_WORLD, &inter, errs);
    CHECK(rc == MPI_SUCCESS, "parent %d: MPI_Comm_spawn of %d children", rank, nchild);
    if (rc != MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 3);
    int csize = -1;
    MPI_Comm_remote_size(inter, &csize);
    CHECK(csize == nchild, "parent %d: %d children want %d", rank, csize, nchild);

    if (rank == 0) {
        for (int i = 0; i < nchild; i++) {
            int v = 100 + i;
            MPI_Send(&v, 1, MPI_INT, i, 1, inter);
        }
        for (int i = 0; i < nchild; i++) {
            int v = -1;
            MPI_Recv(&v, 1, MPI_INT, i, 2, inter, MPI_STATUS_IGNORE);
            CHECK(v == 1100 + i, "parent 0: child %d answered %d want %d", i, v, 1100 + i);
        }
    }
    MPI_Comm all;
    MPI_Intercomm_merge(inter, 0, &all);
    int arank = -1, asize = -1;
    MPI_Comm_rank(all, &arank);
    MPI_Comm_size(all, &asize);
    CHECK(asize == size + nchild && arank == rank, "parent %d: merged rank %d/%d", rank, arank,
          asize);
    long mine = arank + 1, sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, all);
    CHECK(sum == (long)asize * (asize + 1) / 2, "parent %d: merged allreduce %ld", rank, sum);
    printf("spawn parent rank=%d size=%d children=%d\n", rank, size, csize);
    MPI_Comm_free(&all);
    MPI_Comm_disconnect(&inter);

    int bad = check_failures, anybad = 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(anybad == 0, "parent %d: no parent reported a failure", rank);
    MPI_Finalize();
    CHECK_DONE();
}
