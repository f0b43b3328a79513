/* SPDX-License-Identifier: BSD-3-Clause */
/* Hand-written block-cyclic redistribution with MPI_Alltoallv: the "naive all-to-all" baseline
 * of `dmx bench redist`.
 *
 * Algorithm (what a careful MPI user writes without a library):
 *  1. For every local row and column of B, look up which process row/column of A's grid the
 *     element goes to (for op T the row of B decides A's column and vice versa). The destination
 *     rank of a local element is then a sum of two table entries: no division per element.
 *  2. Count elements per destination, prefix-sum to displacements.
 *  3. Pack: walk local B in column-major order and append every element to its destination's
 *     segment of the send buffer.
 *  4. MPI_Alltoall of the counts, prefix-sum to receive displacements, MPI_Alltoallv.
 *  5. Unpack by recomputing positions: a source rank packed its elements in increasing (column,
 *     row) order of B, so for op N walking local A column-major (for op T row-major) and taking
 *     the next element from the source rank's segment puts each element in place.
 * Everything but the two buffers (kept in a workspace) is recomputed on every call. The self
 * part goes through the buffers and MPI like the rest. Cost: 2 passes over the local data in
 * memory (pack, unpack), one all-to-all of counts and one of the data. */
#include "alltoallv_redist.h"

#include <limits.h>
#include <stdlib.h>

int64_t bench_bc_numroc(int64_t n, int64_t nb, int iproc, int nprocs)
{
    int64_t nblocks = n / nb;
    int64_t count = (nblocks / nprocs) * nb;
    int64_t extra = nblocks % nprocs;
    if (iproc < extra)
        count += nb;
    else if (iproc == extra)
        count += n % nb;
    return count;
}

int64_t bench_bc_global(int64_t l, int64_t nb, int iproc, int nprocs)
{
    return ((l / nb) * nprocs + iproc) * nb + l % nb;
}

void bench_bc_local(const bench_bc *l, int rank, int *pr, int *pc, int64_t *mloc, int64_t *nloc)
{
    if (rank < 0 || rank >= l->prow * l->pcol) {
        *pr = -1;
        *pc = -1;
        *mloc = 0;
        *nloc = 0;
        return;
    }
    *pr = rank / l->pcol;
    *pc = rank % l->pcol;
    *mloc = bench_bc_numroc(l->m, l->mb, *pr, l->prow);
    *nloc = bench_bc_numroc(l->n, l->nb, *pc, l->pcol);
}

int bench_a2a_work_init(bench_a2a_work *w, int64_t nsend, int64_t nrecv)
{
    w->scap = nsend > 0 ? nsend : 1;
    w->rcap = nrecv > 0 ? nrecv : 1;
    w->sbuf = malloc((size_t)w->scap * sizeof(double));
    w->rbuf = malloc((size_t)w->rcap * sizeof(double));
    if (w->sbuf == NULL || w->rbuf == NULL) {
        bench_a2a_work_free(w);
        return -1;
    }
    /* Touch the pages now so the first redistribution does not pay for page faults. */
    for (int64_t k = 0; k < w->scap; k++)
        w->sbuf[k] = 0.0;
    for (int64_t k = 0; k < w->rcap; k++)
        w->rbuf[k] = 0.0;
    return 0;
}

void bench_a2a_work_free(bench_a2a_work *w)
{
    free(w->sbuf);
    free(w->rbuf);
    w->sbuf = NULL;
    w->rbuf = NULL;
    w->scap = 0;
    w->rcap = 0;
}

/* Process row of A's grid owning global row i / process column owning global column j. */
static int owner_row(const bench_bc *l, int64_t i)
{
    return (int)((i / l->mb) % l->prow);
}

static int owner_col(const bench_bc *l, int64_t j)
{
    return (int)((j / l->nb) % l->pcol);
}

static int64_t max1(int64_t v)
{
    return v > 0 ? v : 1;
}

/* For the local elements of `from` (fm x fn at grid place (frow, fcol)): the rank of `to` that
 * holds element (il, jl) of op(from) is rmap[il] + cmap[jl]. */
static void owner_maps(const bench_bc *from, const bench_bc *to, int frow, int fcol, int64_t fm,
                       int64_t fn, int trans, int *rmap, int *cmap)
{
    for (int64_t il = 0; il < fm; il++) {
        int64_t i = bench_bc_global(il, from->mb, frow, from->prow);
        rmap[il] = trans ? owner_col(to, i) : owner_row(to, i) * to->pcol;
    }
    for (int64_t jl = 0; jl < fn; jl++) {
        int64_t j = bench_bc_global(jl, from->nb, fcol, from->pcol);
        cmap[jl] = trans ? owner_row(to, j) * to->pcol : owner_col(to, j);
    }
}

/* Each source's elements arrive in (column, row) order of B, that is column-major order of A
 * for op N and row-major order of A for op T; pos[s] is where source s's next one is. */
static void unpack(const double *rbuf, int64_t *pos, int trans, int64_t am, int64_t an,
                   const int *rsrc, const int *csrc, double *a, int64_t lda)
{
    if (!trans) {
        for (int64_t jl = 0; jl < an; jl++) {
            double *col = a + jl * lda;
            const int c = csrc[jl];
            for (int64_t il = 0; il < am; il++)
                col[il] = rbuf[pos[c + rsrc[il]]++];
        }
    } else {
        for (int64_t il = 0; il < am; il++) {
            double *row = a + il;
            const int r = rsrc[il];
            for (int64_t jl = 0; jl < an; jl++)
                row[jl * lda] = rbuf[pos[r + csrc[jl]]++];
        }
    }
}

int bench_a2a_redist(MPI_Comm comm, char op, const bench_bc *lb, const double *b, int64_t ldb,
                     const bench_bc *la, double *a, int64_t lda, bench_a2a_work *w)
{
    int rank, np, rc = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &np);
    const int trans = (op == 'T' || op == 't');

    int bpr, bpc, apr, apc;
    int64_t bm, bn, am, an;
    bench_bc_local(lb, rank, &bpr, &bpc, &bm, &bn);
    bench_bc_local(la, rank, &apr, &apc, &am, &an);

    /* Destination rank of local B element (il, jl) = rdst[il] + cdst[jl]; source rank of local
     * A element (il, jl) = rsrc[il] + csrc[jl]. */
    int *rdst = malloc((size_t)max1(bm) * sizeof(int));
    int *cdst = malloc((size_t)max1(bn) * sizeof(int));
    int *rsrc = malloc((size_t)max1(am) * sizeof(int));
    int *csrc = malloc((size_t)max1(an) * sizeof(int));
    int64_t *pos = malloc((size_t)np * sizeof(int64_t));
    int64_t *hist = calloc((size_t)np, sizeof(int64_t));
    int *scount = calloc((size_t)np, sizeof(int));
    int *sdispl = malloc((size_t)np * sizeof(int));
    int *rcount = malloc((size_t)np * sizeof(int));
    int *rdispl = malloc((size_t)np * sizeof(int));
    if (!rdst || !cdst || !rsrc || !csrc || !pos || !hist || !scount || !sdispl || !rcount ||
        !rdispl) {
        rc = -1;
        goto cleanup;
    }
    if (bm * bn > w->scap || am * an > w->rcap) {
        rc = -1;
        goto cleanup;
    }

    owner_maps(lb, la, bpr, bpc, bm, bn, trans, rdst, cdst);
    owner_maps(la, lb, apr, apc, am, an, trans, rsrc, csrc);

    /* Counts: rows per row-part, times the columns of each column-part. */
    for (int64_t il = 0; il < bm; il++)
        hist[rdst[il]]++;
    int64_t total = 0;
    for (int d = 0; d < np; d++)
        pos[d] = 0;
    for (int64_t jl = 0; jl < bn; jl++)
        for (int v = 0; v < np; v++)
            if (hist[v] != 0)
                pos[cdst[jl] + v] += hist[v];
    for (int d = 0; d < np; d++) {
        if (pos[d] > INT_MAX || total > INT_MAX) {
            rc = -1;
            goto cleanup;
        }
        scount[d] = (int)pos[d];
        sdispl[d] = (int)total;
        pos[d] = total;
        total += scount[d];
    }

    /* Pack in column-major order of local B. */
    double *sbuf = w->sbuf;
    for (int64_t jl = 0; jl < bn; jl++) {
        const double *col = b + jl * ldb;
        const int c = cdst[jl];
        for (int64_t il = 0; il < bm; il++)
            sbuf[pos[c + rdst[il]]++] = col[il];
    }

    rc = MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, comm);
    if (rc != MPI_SUCCESS)
        goto cleanup;
    total = 0;
    for (int s = 0; s < np; s++) {
        if (total > INT_MAX) {
            rc = -1;
            goto cleanup;
        }
        rdispl[s] = (int)total;
        pos[s] = total;
        total += rcount[s];
    }
    rc = MPI_Alltoallv(sbuf, scount, sdispl, MPI_DOUBLE, w->rbuf, rcount, rdispl, MPI_DOUBLE, comm);
    if (rc != MPI_SUCCESS)
        goto cleanup;

    unpack(w->rbuf, pos, trans, am, an, rsrc, csrc, a, lda);

cleanup:
    free(rdst);
    free(cdst);
    free(rsrc);
    free(csrc);
    free(pos);
    free(hist);
    free(scount);
    free(sdispl);
    free(rcount);
    free(rdispl);
    return rc;
}
