/* collmix: one of each collective the time-independent format records,
 * plus a barrier, with MPI_Wait on a non-blocking pair. */
#include <mpi.h>
int main(int argc, char **argv) {
  static double a[256], b[256 * 16];
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Bcast(a, 128, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Reduce(a, b, 32, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Allreduce(a, b, 16, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Alltoall(a, 8, MPI_DOUBLE, b, 8, MPI_DOUBLE, MPI_COMM_WORLD);
  MPI_Gather(a, 16, MPI_DOUBLE, b, 16, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Allgather(a, 4, MPI_DOUBLE, b, 4, MPI_DOUBLE, MPI_COMM_WORLD);
  MPI_Request r[2];
  MPI_Irecv(b, 32, MPI_DOUBLE, (rank + size - 1) % size, 7, MPI_COMM_WORLD, &r[0]);
  MPI_Isend(a, 32, MPI_DOUBLE, (rank + 1) % size, 7, MPI_COMM_WORLD, &r[1]);
  MPI_Wait(&r[0], MPI_STATUS_IGNORE);
  MPI_Wait(&r[1], MPI_STATUS_IGNORE);
  MPI_Finalize();
  return 0;
}
