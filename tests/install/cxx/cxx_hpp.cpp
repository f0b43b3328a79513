// The C++17 wrapper: layouts and a plan as handles, a plan run twice with new scalars, a
// multiply checked against a serial product, a move, and an error arriving as dmx::error with
// its status and message.
#include <dmx.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

namespace
{
int rank_ = 0, size_ = 1, failed = 0, passed = 0;

void expect(bool ok, const char *what)
{
    int bad = !ok, anybad = 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (anybad) {
        failed++;
        if (rank_ == 0)
            std::printf("FAIL %s\n", what);
    } else {
        passed++;
    }
}

// Columns j = rank, rank + size, ... of an m x n matrix (1-column blocks on a 1 x size grid).
int64_t local_cols(int64_t n)
{
    return n > rank_ ? (n - rank_ + size_ - 1) / size_ : 0;
}
int64_t global_col(int64_t jj)
{
    return rank_ + jj * size_;
}

dmx::layout columns(int64_t m, int64_t n, std::vector<double> &mem)
{
    mem.assign((size_t)(m * std::max<int64_t>(local_cols(n), 1)), 0.0);
    return dmx::layout::block_cyclic(MPI_COMM_WORLD, m, n, m, 1, 1, size_, 'R', 0, 0, mem.data(),
                                     m);
}

void test_plan()
{
    const int64_t m = 9;
    std::vector<double> bm, am;
    dmx::layout B = columns(m, m, bm), A = columns(m, m, am);
    for (int64_t jj = 0; jj < local_cols(m); jj++)
        for (int64_t i = 0; i < m; i++)
            bm[(size_t)(i + jj * m)] = 10.0 * (double)i + (double)global_col(jj);
    dmx::plan p(dmx::transform(DMX_DOUBLE, DMX_OP_T, dmx::scalar(1.0), B, dmx::scalar(0.0), A));
    p.execute();
    p.set_scalars(0, dmx::scalar(2.0), dmx::scalar(1.0)); // A = 2 B^T + A = 3 B^T
    p.execute();
    long wrong = 0;
    for (int64_t jj = 0; jj < local_cols(m); jj++)
        for (int64_t i = 0; i < m; i++)
            wrong += am[(size_t)(i + jj * m)] != 3.0 * (10.0 * (double)global_col(jj) + (double)i);
    expect(wrong == 0, "plan: A = 3 B^T after two executions");
    expect(A.rows() == m && A.cols() == m, "layout size");

    dmx::plan moved = std::move(p); // the moved-from handle is empty and frees nothing
    expect(!p && moved, "plan moves");
    bool threw = false;
    try {
        moved.set_scalars(7, dmx::scalar(1.0), dmx::scalar(0.0));
    } catch (const dmx::error &e) {
        threw = e.status() == DMX_ERR_ARG && std::strstr(e.what(), "dmx_plan_set_scalars") &&
                std::strstr(e.what(), "out of range");
    }
    expect(threw, "a bad transform index throws dmx::error(DMX_ERR_ARG) with the message");
}

void test_gemm()
{
    const int64_t m = 8, n = 6, k = 5;
    std::vector<double> amem, bmem, cmem;
    dmx::layout A = columns(m, k, amem), B = columns(k, n, bmem), C = columns(m, n, cmem);
    auto fa = [](int64_t i, int64_t j) { return 1.0 + (double)i - 0.5 * (double)j; };
    auto fb = [](int64_t i, int64_t j) { return 0.25 * (double)(i * j) - 1.0; };
    for (int64_t jj = 0; jj < local_cols(k); jj++)
        for (int64_t i = 0; i < m; i++)
            amem[(size_t)(i + jj * m)] = fa(i, global_col(jj));
    for (int64_t jj = 0; jj < local_cols(n); jj++)
        for (int64_t i = 0; i < k; i++)
            bmem[(size_t)(i + jj * k)] = fb(i, global_col(jj));
    dmx::gemm_plan g(MPI_COMM_WORLD, DMX_DOUBLE, DMX_OP_N, DMX_OP_N, dmx::scalar(1.0), A, B,
                     dmx::scalar(0.0), C);
    g.execute();
    double err = 0.0;
    for (int64_t jj = 0; jj < local_cols(n); jj++)
        for (int64_t i = 0; i < m; i++) {
            double ref = 0.0; // the serial product
            for (int64_t l = 0; l < k; l++)
                ref += fa(i, l) * fb(l, global_col(jj));
            err = std::max(err, std::fabs(cmem[(size_t)(i + jj * m)] - ref));
        }
    expect(err < 1e-12, "gemm_plan: C = A B against the serial product");
    expect(g.info().m == m && g.info().n == n && g.info().k == k, "gemm_plan info");
}
} // namespace

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    try {
        test_plan();
        test_gemm();
    } catch (const dmx::error &e) {
        std::printf("rank %d: unexpected %s\n", rank_, e.what());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank_ == 0)
        std::printf("cxx_hpp: %d passed, %d failed\n", passed, failed);
    MPI_Finalize();
    return failed == 0 ? 0 : 1;
}
