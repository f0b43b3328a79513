/* libdmx_scalapack's p?gemm_ (test build, symbols prefixed dmxsp_test_) against Debian's
 * ScaLAPACK in one process: random grids (row-major BLACS grids of every shape that fits, ranks
 * outside the grid included), all four types, op pairs N/T/C, submatrix offsets ia/ja, block
 * sizes, rsrc/csrc, alpha and beta including 0, k = 0. Both results must agree within rounding
 * on every local element (padding included).
 *
 * Usage: test_gemm_compare [ncases [seed]]. */
#include "dmxt_util.h"
#include "sp_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int numroc_(const int *n, const int *nb, const int *iproc, const int *isrcproc, const int *nprocs);
void descinit_(int *desc, const int *m, const int *n, const int *mb, const int *nb,
               const int *irsrc, const int *icsrc, const int *ictxt, const int *lld, int *info);

#define DECL_GEMM(name, T)                                                                         \
    void name(const char *ta, const char *tb, const int *m, const int *n, const int *k,            \
              const T *alpha, T *a, const int *ia, const int *ja, const int *desca, T *b,          \
              const int *ib, const int *jb, const int *descb, const T *beta, T *c, const int *ic,  \
              const int *jc, const int *descc);
DECL_GEMM(psgemm_, float)
DECL_GEMM(pdgemm_, double)
DECL_GEMM(pcgemm_, float)
DECL_GEMM(pzgemm_, double)
DECL_GEMM(dmxsp_test_psgemm_, float)
DECL_GEMM(dmxsp_test_pdgemm_, double)
DECL_GEMM(dmxsp_test_pcgemm_, float)
DECL_GEMM(dmxsp_test_pzgemm_, double)

typedef struct mat {
    int rows, cols, mb, nb, rsrc, csrc, i, j; /* submatrix rows x cols at 1-based (i, j) */
    int desc[9], lr, lc;
    void *d;
} mat;

static size_t esz(int t)
{
    return t == 0 ? 4 : t == 1 ? 8 : t == 2 ? 8 : 16;
}

static void put(int t, void *d, size_t k, double re, double im)
{
    switch (t) {
    case 0: ((float *)d)[k] = (float)re; break;
    case 1: ((double *)d)[k] = re; break;
    case 2: ((float *)d)[2 * k] = (float)re, ((float *)d)[2 * k + 1] = (float)im; break;
    default: ((double *)d)[2 * k] = re, ((double *)d)[2 * k + 1] = im; break;
    }
}

static void get(int t, const void *d, size_t k, double *re, double *im)
{
    *im = 0;
    switch (t) {
    case 0: *re = ((const float *)d)[k]; break;
    case 1: *re = ((const double *)d)[k]; break;
    case 2: *re = ((const float *)d)[2 * k], *im = ((const float *)d)[2 * k + 1]; break;
    default: *re = ((const double *)d)[2 * k], *im = ((const double *)d)[2 * k + 1]; break;
    }
}

/* Random descriptor for a rows x cols submatrix, local array filled from its seed. */
static void make(mat *x, dmxt_rng *g, int t, int rows, int cols, int ctxt, int pr, int pc, int myr,
                 int myc, int id)
{
    x->rows = rows, x->cols = cols;
    x->mb = spt_int(g, 1, 8), x->nb = spt_int(g, 1, 8);
    x->rsrc = spt_int(g, 0, pr - 1), x->csrc = spt_int(g, 0, pc - 1);
    x->i = spt_int(g, 1, 4), x->j = spt_int(g, 1, 4);
    int M = x->i - 1 + rows, N = x->j - 1 + cols, info;
    x->lr = myr >= 0 ? numroc_(&M, &x->mb, &myr, &x->rsrc, &pr) : 0;
    x->lc = myr >= 0 ? numroc_(&N, &x->nb, &myc, &x->csrc, &pc) : 0;
    int lld = (x->lr > 0 ? x->lr : 1) + spt_int(g, 0, 2);
    if (myr >= 0)
        descinit_(x->desc, &M, &N, &x->mb, &x->nb, &x->rsrc, &x->csrc, &ctxt, &lld, &info);
    size_t n = (size_t)lld * (size_t)(x->lc > 0 ? x->lc : 1);
    x->d = calloc(n, esz(t));
    for (size_t k = 0; k < n; k++)
        put(t, x->d, k,
            (double)((k * 37 + (size_t)id * 11 + (size_t)(myr * 5 + myc)) % 23) / 7.0 - 1.5,
            (double)((k * 13 + (size_t)id * 3) % 19) / 9.0 - 1.0);
}

int main(int argc, char **argv)
{
    int me, np;
    SPT_CHECK_MPI(MPI_Init(&argc, &argv));
    int ncases = argc > 1 ? atoi(argv[1]) : 150;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 20240611u;
    Cblacs_pinfo(&me, &np);
    int ctxts[16], shapes[16][2], ng = 0;
    for (int pr = 1; pr <= np && ng < 16; pr++)
        for (int pc = 1; pr * pc <= np && ng < 16; pc++) {
            Cblacs_get(0, 0, &ctxts[ng]);
            Cblacs_gridinit(&ctxts[ng], "Row", pr, pc);
            shapes[ng][0] = pr, shapes[ng][1] = pc;
            ng++;
        }
    long bad = 0, checks = 0;
    const char ops[3] = {'N', 'T', 'C'};
    for (int cs = 0; cs < ncases; cs++) {
        dmxt_rng g = spt_seed(seed, (uint64_t)cs, 7);
        int q = spt_int(&g, 0, ng - 1), pr = shapes[q][0], pc = shapes[q][1], myr = -1, myc = -1;
        int t = spt_int(&g, 0, 3);
        char ta = ops[spt_int(&g, 0, 2)], tb = ops[spt_int(&g, 0, 2)];
        int m = spt_int(&g, 1, 30), n = spt_int(&g, 1, 30),
            k = spt_int(&g, 0, 5) == 0 ? 0 : spt_int(&g, 1, 40);
        double al[2] = {spt_int(&g, 0, 4) == 0 ? 0.0 : spt_unit(&g) * 2 - 1, spt_unit(&g)};
        double be[2] = {spt_int(&g, 0, 3) == 0 ? 0.0 : spt_unit(&g) * 2 - 1, spt_unit(&g)};
        if (t < 2)
            al[1] = be[1] = 0;
        if (ctxts[q] >= 0) {
            int a, b;
            Cblacs_gridinfo(ctxts[q], &a, &b, &myr, &myc);
        }
        mat A, B, C, C2;
        make(&A, &g, t, ta == 'N' ? m : k, ta == 'N' ? k : m, ctxts[q], pr, pc, myr, myc, 1);
        make(&B, &g, t, tb == 'N' ? k : n, tb == 'N' ? n : k, ctxts[q], pr, pc, myr, myc, 2);
        make(&C, &g, t, m, n, ctxts[q], pr, pc, myr, myc, 3);
        if (A.rows == 0 || A.cols == 0) /* k = 0: descriptors still need a valid shape */
            A.desc[SPT_M] = A.desc[SPT_M] > 0 ? A.desc[SPT_M] : 1;
        size_t nc = (size_t)(myr >= 0 ? C.desc[SPT_LLD] : 1) * (size_t)(C.lc > 0 ? C.lc : 1);
        C2 = C;
        C2.d = malloc(nc * esz(t));
        memcpy(C2.d, C.d, nc * esz(t));
        if (myr >= 0) {
            float fa[2] = {(float)al[0], (float)al[1]}, fb[2] = {(float)be[0], (float)be[1]};
#define CALL(fn, T, ALPHA, BETA, X)                                                                \
    fn(&ta, &tb, &m, &n, &k, (const T *)ALPHA, A.d, &A.i, &A.j, A.desc, B.d, &B.i, &B.j, B.desc,   \
       (const T *)BETA, X.d, &C.i, &C.j, C.desc)
            switch (t) {
            case 0:
                CALL(psgemm_, float, fa, fb, C);
                CALL(dmxsp_test_psgemm_, float, fa, fb, C2);
                break;
            case 1:
                CALL(pdgemm_, double, al, be, C);
                CALL(dmxsp_test_pdgemm_, double, al, be, C2);
                break;
            case 2:
                CALL(pcgemm_, float, fa, fb, C);
                CALL(dmxsp_test_pcgemm_, float, fa, fb, C2);
                break;
            default:
                CALL(pzgemm_, double, al, be, C);
                CALL(dmxsp_test_pzgemm_, double, al, be, C2);
                break;
            }
            double tol = t == 0 || t == 2 ? 2e-4 : 1e-10, worst = 0;
            for (size_t e = 0; e < nc; e++) {
                double r1, i1, r2, i2;
                get(t, C.d, e, &r1, &i1);
                get(t, C2.d, e, &r2, &i2);
                double d = hypot(r1 - r2, i1 - i2) / (1.0 + hypot(r1, i1));
                worst = d > worst ? d : worst;
            }
            checks++;
            if (worst > tol * (k + 1)) {
                bad++;
                fprintf(stderr,
                        "FAIL case %d: p%cgemm %c%c m %d n %d k %d grid %dx%d rank %d: rel "
                        "diff %.3g\n",
                        cs, "sdcz"[t], ta, tb, m, n, k, pr, pc, me, worst);
            }
        }
        free(A.d);
        free(B.d);
        free(C.d);
        free(C2.d);
    }
    long tot[2] = {bad, checks}, sum[2];
    SPT_CHECK_MPI(MPI_Allreduce(tot, sum, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    if (me == 0)
        printf("%ld passed, %ld failed\n", sum[1] - sum[0], sum[0]);
    for (int q = 0; q < ng; q++)
        if (ctxts[q] >= 0)
            Cblacs_gridexit(ctxts[q]);
    SPT_CHECK_MPI(MPI_Finalize());
    return sum[0] == 0 ? 0 : 1;
}
