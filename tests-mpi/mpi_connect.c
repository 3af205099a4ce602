/* MPI_Comm_connect / MPI_Comm_accept between two separate jobs.
 *
 *   mpi_connect server NAME   opens a port, publishes it as NAME (MPI_Publish_name), accepts
 *   mpi_connect client NAME   looks NAME up (MPI_Lookup_name), connects
 *
 * With Open MPI the two jobs find each other through a shared name service, e.g. both
 * mpiruns started with --ompi-server file:URIFILE of one ompi-server. The two sides may
 * also be two applications of one MPMD job (pmixrun -n 2 ./mpi_connect server N : -n 2
 * ./mpi_connect client N): each side works in the part of MPI_COMM_WORLD that has its
 * MPI_APPNUM (all of it for a job of one application), and a barrier over
 * MPI_COMM_WORLD puts the publish before the lookup (separate jobs must be started in
 * that order, as tests-mpi/connect.sh does). After connecting,
 * server rank 0 sends 4242 to client rank 0, which answers 4243; the two sides merge and
 * allreduce rank+1; then they disconnect and the server unpublishes the name. */
#include "mpitest.h"

int main(int argc, char **argv)
{
    int rank = -1, size = -1;
    CHECK(MPI_Init(&argc, &argv) == MPI_SUCCESS, "MPI_Init");
    int *appnum = NULL, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag);
    MPI_Comm side;
    MPI_Comm_split(MPI_COMM_WORLD, flag ? *appnum : 0, 0, &side);
    MPI_Comm_rank(side, &rank);
    MPI_Comm_size(side, &size);
    if (argc < 3) {
        fprintf(stderr, "usage: %s server|client NAME\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int server = strcmp(argv[1], "server") == 0;
    const char *name = argv[2];
    mpitest_check_pmix(rank);
    MPI_Comm_set_errhandler(side, MPI_ERRORS_RETURN);

    char port[MPI_MAX_PORT_NAME] = "";
    MPI_Comm inter = MPI_COMM_NULL;
    int rc;
    if (server) {
        if (rank == 0) {
            rc = MPI_Open_port(MPI_INFO_NULL, port);
            CHECK(rc == MPI_SUCCESS, "server: MPI_Open_port -> %s", port);
            if (rc == MPI_SUCCESS)
                rc = MPI_Publish_name(name, MPI_INFO_NULL, port);
            CHECK(rc == MPI_SUCCESS, "server: MPI_Publish_name %s", name);
            /* Without a port nobody can connect: end the job now instead of hanging. */
            if (rc != MPI_SUCCESS)
                MPI_Abort(side, 3);
            printf("connect server published %s\n", name);
            fflush(stdout);
        }
        MPI_Barrier(MPI_COMM_WORLD); /* the client's lookup comes after this */
        rc = MPI_Comm_accept(port, MPI_INFO_NULL, 0, side, &inter);
        CHECK(rc == MPI_SUCCESS, "server %d: MPI_Comm_accept", rank);
    } else {
        MPI_Barrier(MPI_COMM_WORLD); /* in one MPMD job: after the server's publish */
        if (rank == 0) {
            rc = MPI_Lookup_name(name, MPI_INFO_NULL, port);
            CHECK(rc == MPI_SUCCESS, "client: MPI_Lookup_name %s -> %s", name, port);
            if (rc != MPI_SUCCESS)
                MPI_Abort(side, 3);
        }
        rc = MPI_Comm_connect(port, MPI_INFO_NULL, 0, side, &inter);
        CHECK(rc == MPI_SUCCESS, "client %d: MPI_Comm_connect", rank);
    }
    if (inter == MPI_COMM_NULL) {
        printf("FAIL rank %d: no intercommunicator\n", rank);
        MPI_Abort(side, 3);
    }

    int rsize = -1;
    MPI_Comm_remote_size(inter, &rsize);
    if (rank == 0) {
        int v = 4242;
        if (server) {
            MPI_Send(&v, 1, MPI_INT, 0, 1, inter);
            MPI_Recv(&v, 1, MPI_INT, 0, 2, inter, MPI_STATUS_IGNORE);
            CHECK(v == 4243, "server: client answered %d want 4243", v);
        } else {
            MPI_Recv(&v, 1, MPI_INT, 0, 1, inter, MPI_STATUS_IGNORE);
            CHECK(v == 4242, "client: server sent %d want 4242", v);
            v++;
            MPI_Send(&v, 1, MPI_INT, 0, 2, inter);
        }
    }
    MPI_Comm all;
    MPI_Intercomm_merge(inter, server ? 0 : 1, &all);
    int asize = -1;
    MPI_Comm_size(all, &asize);
    CHECK(asize == size + rsize, "%s %d: merged size %d want %d", argv[1], rank, asize,
          size + rsize);
    long mine = 1, sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, all);
    CHECK(sum == asize, "%s %d: merged allreduce %ld want %d", argv[1], rank, sum, asize);
    printf("connect %s rank=%d size=%d remote=%d\n", argv[1], rank, size, rsize);
    MPI_Comm_free(&all);
    MPI_Comm_disconnect(&inter);
    if (server && rank == 0) {
        CHECK(MPI_Unpublish_name(name, MPI_INFO_NULL, port) == MPI_SUCCESS, "server: unpublish");
        MPI_Close_port(port);
    }

    int bad = check_failures, anybad = 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, side);
    CHECK(anybad == 0, "%s %d: no rank reported a failure", argv[1], rank);
    MPI_Comm_free(&side);
    MPI_Finalize();
    CHECK_DONE();
}
