// C++ through the C header only: transposes a block-cyclic matrix with dmx_transform_once and
// checks every element against the formula it was filled with.
#include <dmx.h>

#include <cstdio>
#include <vector>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int64_t m = 12; // m x m, 1-column blocks on a 1 x size grid
    int64_t lc = 0;
    for (int64_t j = rank; j < m; j += size)
        lc++;
    std::vector<double> b((size_t)(m * (lc ? lc : 1))), a(b.size(), -1.0);
    for (int64_t jj = 0; jj < lc; jj++)
        for (int64_t i = 0; i < m; i++)
            b[(size_t)(i + jj * m)] = 100.0 * (double)i + (double)(rank + jj * size);
    dmx_layout *B = nullptr, *A = nullptr;
    dmx_status st = dmx_layout_create_block_cyclic(MPI_COMM_WORLD, m, m, m, 1, 1, size, 'R', 0, 0,
                                                   b.data(), m, &B);
    if (st == DMX_SUCCESS)
        st = dmx_layout_create_block_cyclic(MPI_COMM_WORLD, m, m, m, 1, 1, size, 'R', 0, 0,
                                            a.data(), m, &A);
    if (st == DMX_SUCCESS)
        st = dmx_transform_once(DMX_DOUBLE, DMX_OP_T, dmx_scalar{1.0, 0.0}, B, dmx_scalar{0.0, 0.0},
                                A);
    long wrong = st != DMX_SUCCESS, total = 0;
    for (int64_t jj = 0; st == DMX_SUCCESS && jj < lc; jj++)
        for (int64_t i = 0; i < m; i++)
            wrong += a[(size_t)(i + jj * m)] != 100.0 * (double)(rank + jj * size) + (double)i;
    MPI_Allreduce(&wrong, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        std::printf("cxx_plain: %s, %ld wrong\n%d passed, %d failed\n", dmx_status_string(st),
                    total, total == 0, total != 0);
    dmx_layout_destroy(&A);
    dmx_layout_destroy(&B);
    MPI_Finalize();
    return total == 0 ? 0 : 1;
}
