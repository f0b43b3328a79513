/* SPDX-License-Identifier: BSD-3-Clause */
/* A plain ScaLAPACK program: nothing from dmx in its source or build (it is linked with
 * -lscalapack-openmpi only). It redistributes a matrix with pdgemr2d_ between two grids and
 * transposes it with pdtran_, checks every element, and reports which shared object the loader
 * bound pdgemr2d_ to. Used for the preload and relink recipes (tests/scalapack/CMakeLists.txt).
 *
 * Usage: plain_prog [expected-library-substring]  (exit status 1 if the result is wrong or the
 * symbol came from elsewhere)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void Cblacs_pinfo(int *mypnum, int *nprocs);
void Cblacs_get(int ctxt, int what, int *val);
void Cblacs_gridinit(int *ctxt, const char *order, int nprow, int npcol);
void Cblacs_gridinfo(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_gridexit(int ctxt);
void pdgemr2d_(const int *m, const int *n, double *a, const int *ia, const int *ja, int *desca,
               double *b, const int *ib, const int *jb, int *descb, const int *ictxt);
void pdtran_(const int *m, const int *n, const double *alpha, double *a, const int *ia,
             const int *ja, int *desca, const double *beta, double *c, const int *ic, const int *jc,
             int *descc);

static int numroc(int n, int nb, int p, int src, int np)
{
    int dist = (p - src + np) % np, nblocks = n / nb, loc = (nblocks / np) * nb;
    int extra = nblocks % np;
    return loc + (dist < extra ? nb : dist == extra ? n % nb : 0);
}

/* Global index of local index l on process p (0-based). */
static int l2g(int l, int nb, int p, int src, int np)
{
    return ((l / nb) * np + (p - src + np) % np) * nb + l % nb;
}

static double value(int i, int j)
{
    return 1000.0 * i + j + 0.25;
}

typedef struct dist {
    int ctxt, nprow, npcol, myrow, mycol, desc[9], locr, locc;
    double *data;
} dist;

/* A matrix on a new grid (order "Row"/"Col"), or on the grid of @p on if order is NULL. */
static void make(dist *d, const char *order, const dist *on, int pr, int pc, int m, int n, int mb,
                 int nb)
{
    if (order) {
        Cblacs_get(0, 0, &d->ctxt);
        Cblacs_gridinit(&d->ctxt, order, pr, pc);
    } else {
        /* cppcheck-suppress nullPointer ; callers pass on whenever order is NULL */
        d->ctxt = on->ctxt;
    }
    Cblacs_gridinfo(d->ctxt, &d->nprow, &d->npcol, &d->myrow, &d->mycol);
    int in = d->myrow >= 0 && d->myrow < pr && d->mycol >= 0 && d->mycol < pc;
    d->locr = in ? numroc(m, mb, d->myrow, 0, pr) : 0;
    d->locc = in ? numroc(n, nb, d->mycol, 0, pc) : 0;
    int lld = d->locr > 1 ? d->locr : 1;
    int desc[9] = {1, in ? d->ctxt : -1, m, n, mb, nb, 0, 0, lld};
    memcpy(d->desc, desc, sizeof desc);
    d->data = calloc((size_t)lld * (size_t)(d->locc > 1 ? d->locc : 1), sizeof(double));
    if (!in)
        d->ctxt = -1;
}

static int check(const dist *d, int transposed)
{
    int bad = 0;
    for (int lj = 0; lj < d->locc; lj++)
        for (int li = 0; li < d->locr; li++) {
            int i = l2g(li, d->desc[4], d->myrow, 0, d->nprow);
            int j = l2g(lj, d->desc[5], d->mycol, 0, d->npcol);
            double want = transposed ? 2.0 * value(j, i) : value(i, j);
            bad += d->data[li + (size_t)lj * (size_t)d->desc[8]] != want;
        }
    return bad;
}

static const char *library_of(const char *sym)
{
    Dl_info info;
    void *p = dlsym(RTLD_DEFAULT, sym);
    if (p == NULL || dladdr(p, &info) == 0 || info.dli_fname == NULL)
        return "(unknown)";
    return info.dli_fname;
}

int main(int argc, char **argv)
{
    int me, np;
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS)
        return 2;
    Cblacs_pinfo(&me, &np);
    int pr = np >= 4 ? 2 : 1, pc = np >= 4 ? 2 : np;
    const int m = 37, n = 29, one = 1;

    dist a, b, c;
    make(&a, "Row", NULL, pr, pc, m, n, 4, 3); /* source: pr x pc, 4 x 3 blocks */
    make(&b, "Col", NULL, 1, np, m, n, 5, 2);  /* target: 1 x np, 5 x 2 blocks */
    make(&c, NULL, &a, pr, pc, n, m, 3, 4);    /* transpose, on A's grid */
    int all;
    Cblacs_get(0, 0, &all);
    Cblacs_gridinit(&all, "Row", 1, np);

    for (int lj = 0; lj < a.locc; lj++)
        for (int li = 0; li < a.locr; li++)
            a.data[li + (size_t)lj * (size_t)a.desc[8]] =
                value(l2g(li, 4, a.myrow, 0, pr), l2g(lj, 3, a.mycol, 0, pc));

    pdgemr2d_(&m, &n, a.data, &one, &one, a.desc, b.data, &one, &one, b.desc, &all);
    int bad = check(&b, 0);
    if (a.ctxt >= 0) {
        const double alpha = 2.0, beta = 0.0;
        pdtran_(&n, &m, &alpha, a.data, &one, &one, a.desc, &beta, c.data, &one, &one, c.desc);
        bad += check(&c, 1);
    }

    int tot = 0;
    MPI_Allreduce(&bad, &tot, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    const char *lib = library_of("pdgemr2d_");
    const char *libt = library_of("pdtran_");
    int wrong_lib = argc > 1 && (strstr(lib, argv[1]) == NULL || strstr(libt, argv[1]) == NULL);
    if (me == 0)
        printf("pdgemr2d_ from %s, pdtran_ from %s: %d wrong elements%s\n", lib, libt, tot,
               wrong_lib ? " (NOT the expected library)" : "");
    if (a.ctxt >= 0)
        Cblacs_gridexit(a.ctxt);
    if (b.ctxt >= 0)
        Cblacs_gridexit(b.ctxt);
    Cblacs_gridexit(all);
    free(a.data);
    free(b.data);
    free(c.data);
    MPI_Finalize();
    return tot == 0 && !wrong_lib ? 0 : 1;
}
