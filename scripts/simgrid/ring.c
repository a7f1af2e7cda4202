/* ring: each rank passes a token of 4 KiB around the ring, 8 rounds,
 * with some computation between rounds. Uncontended: one message in
 * flight at a time. */
#include <mpi.h>
#include <string.h>
int main(int argc, char **argv) {
  static double buf[512];
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  for (int round = 0; round < 8; round++) {
    if (rank == 0) {
      MPI_Send(buf, 512, MPI_DOUBLE, next, round, MPI_COMM_WORLD);
      MPI_Recv(buf, 512, MPI_DOUBLE, prev, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buf, 512, MPI_DOUBLE, prev, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      for (int i = 0; i < 512; i++) buf[i] += 1.0;
      MPI_Send(buf, 512, MPI_DOUBLE, next, round, MPI_COMM_WORLD);
    }
  }
  MPI_Finalize();
  return 0;
}
