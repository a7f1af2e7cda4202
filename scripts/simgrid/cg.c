/* cg: a conjugate-gradient-like iteration on a 1-D block row
 * decomposition: halo exchange with both neighbours (isend/irecv,
 * waitall), local work, and two dot-product allreduces per iteration. */
#include <mpi.h>
int main(int argc, char **argv) {
  static double x[1024], halo[2][64];
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  for (int it = 0; it < 5; it++) {
    MPI_Request req[4];
    MPI_Irecv(halo[0], 64, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(halo[1], 64, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(x, 64, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(x + 960, 64, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &req[3]);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    double d = 0, g;
    for (int i = 0; i < 1024; i++) { x[i] = 0.5 * x[i] + 1.0; d += x[i] * x[i]; }
    MPI_Allreduce(&d, &g, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&g, &d, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
