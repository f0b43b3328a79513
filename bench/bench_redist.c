/* dmx bench redist: A = op(B) between two block-cyclic layouts, timed for dmx, ScaLAPACK
 * (pdgemr2d for op N, pdtran for op T) and a hand-written MPI_Alltoallv redistribution.
 *
 * Method: every implementation runs on the same local arrays; the implementations of one
 * (case, op) are interleaved round-robin in every repetition so machine noise hits them alike.
 * Before each run A is filled with NaN (outside the timed region); a run is MPI_Barrier,
 * t0 = MPI_Wtime(), the operation, MPI_Wtime() - t0, and the maximum over ranks. Every run,
 * warm-up included, is verified element by element against a closed formula of the global
 * indices. The report is the median (and minimum) over the repetitions. See bench/README.md. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "bench.h"

#include "alltoallv_redist.h"
#include "dmx.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------------------------------ */
/* ScaLAPACK / BLACS (Debian libscalapack-openmpi: 32-bit integers)                            */
/* ------------------------------------------------------------------------------------------ */
#ifdef DMX_HAVE_SCALAPACK
void Cblacs_get(int icontxt, int what, int *val);
void Cblacs_gridinit(int *icontxt, const char *order, int nprow, int npcol);
void Cblacs_gridinfo(int icontxt, int *nprow, int *npcol, int *myprow, int *mypcol);
void Cblacs_gridexit(int icontxt);
void Cblacs_exit(int notdone);
int numroc_(const int *n, const int *nb, const int *iproc, const int *isrcproc, const int *nprocs);
void descinit_(int *desc, const int *m, const int *n, const int *mb, const int *nb,
               const int *irsrc, const int *icsrc, const int *ictxt, const int *lld, int *info);
void pdgemr2d_(const int *m, const int *n, const double *a, const int *ia, const int *ja,
               const int *desca, double *b, const int *ib, const int *jb, const int *descb,
               const int *ictxt);
void pdtran_(const int *m, const int *n, const double *alpha, const double *a, const int *ia,
             const int *ja, const int *desca, const double *beta, double *c, const int *ic,
             const int *jc, const int *descc);
#endif

/* ------------------------------------------------------------------------------------------ */
/* Options                                                                                      */
/* ------------------------------------------------------------------------------------------ */

typedef struct grid {
    int pr, pc; /* 0 = not given */
} grid;

typedef struct options {
    int64_t m, n;
    int64_t from_mb, from_nb, to_mb, to_nb;
    grid from_grid, to_grid;
    int reps, warmup, batch;
    int align; /* byte alignment of every matrix (0: plain malloc) */
    int op_n, op_t;
    int case_redist, case_same;
    int use[3]; /* dmx, scalapack, alltoallv */
    int json;
} options;

static void usage(FILE *f)
{
    fprintf(f, "usage: mpirun -n P dmx bench redist [options]\n"
               "Times A = op(B) between block-cyclic layouts (doubles) for dmx, ScaLAPACK\n"
               "(pdgemr2d / pdtran) and a hand-written MPI_Alltoallv redistribution.\n"
               "  --m M, --n N          size of A (B is M x N for op N, N x M for op T)\n"
               "                        (default 4096 x 4096; also --size M,N)\n"
               "  --from MB,NB          blocks of B (default 32,32); or --from-mb, --from-nb\n"
               "  --to MB,NB            blocks of A (default 128,128); or --to-mb, --to-nb\n"
               "  --grid PRxPC          process grid of both layouts; --from-grid, --to-grid set\n"
               "                        one each (default 2x2 if P >= 4, 1x2 if P == 2, else 1xP;\n"
               "                        row-major rank order, first block on process (0,0))\n"
               "  --op N|T|both         copy, transpose or both (default both)\n"
               "  --case redist|same|all  redist: the layouts above; same: A's layout for B too\n"
               "                        (default all)\n"
               "  --reps R              timed repetitions, median reported (default 10)\n"
               "  --warmup W            untimed (verified) runs first (default 1)\n"
               "  --batch K             also time dmx on K matrices in one plan, per matrix\n"
               "  --align BYTES         alignment of every local array, a power of two >= 8,\n"
               "                        or 0 for plain malloc (default 64: one cache line, as\n"
               "                        posix_memalign or MKL's allocator give; malloc gives 16)\n"
               "  --impl LIST           comma-separated subset of dmx,scalapack,alltoallv (all)\n"
               "  --json                one JSON line per measurement instead of the table\n"
               "  --help                this text\n"
               "Exit status: 0 all correct, 1 some implementation produced wrong elements,\n"
               "2 bad options, 3 an implementation failed to run (and none was wrong).\n");
}

/* Parse a whole decimal integer >= lo. */
static int parse_i64(const char *s, int64_t lo, int64_t *out)
{
    char *end = NULL;
    if (s == NULL || *s == '\0')
        return -1;
    long long v = strtoll(s, &end, 10);
    if (*end != '\0' || v < lo)
        return -1;
    *out = (int64_t)v;
    return 0;
}

static int parse_int(const char *s, int lo, int *out)
{
    int64_t v;
    if (parse_i64(s, lo, &v) != 0 || v > 1000000000)
        return -1;
    *out = (int)v;
    return 0;
}

/* "A<sep>B" with both parts integers >= 1. */
static int parse_pair(const char *s, char sep, int64_t *a, int64_t *b)
{
    char buf[64];
    if (s == NULL || strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    char *mid = strchr(buf, sep);
    if (mid == NULL && sep == 'x')
        mid = strchr(buf, 'X');
    if (mid == NULL)
        return -1;
    *mid = '\0';
    return parse_i64(buf, 1, a) == 0 && parse_i64(mid + 1, 1, b) == 0 ? 0 : -1;
}

static int parse_grid(const char *s, grid *g)
{
    int64_t a, b;
    if (parse_pair(s, 'x', &a, &b) != 0 || a > 65536 || b > 65536)
        return -1;
    g->pr = (int)a;
    g->pc = (int)b;
    return 0;
}

/* Comma-separated subset of dmx, scalapack, alltoallv. */
static int parse_impls(const char *s, int use[3])
{
    static const char *const names[3] = {"dmx", "scalapack", "alltoallv"};
    use[0] = use[1] = use[2] = 0;
    while (*s != '\0') {
        size_t len = strcspn(s, ",");
        int found = 0;
        for (int k = 0; k < 3; k++)
            if (strlen(names[k]) == len && strncmp(s, names[k], len) == 0)
                found = use[k] = 1;
        if (!found)
            return -1;
        s += len;
        if (*s == ',')
            s++;
    }
    return use[0] || use[1] || use[2] ? 0 : -1;
}

/* Returns 0 to run, 1 for --help, 2 for an error (message on stderr if loud). */
static int parse_options(int argc, char **argv, options *o, int loud)
{
    memset(o, 0, sizeof *o);
    o->m = o->n = 4096;
    o->from_mb = o->from_nb = 32;
    o->to_mb = o->to_nb = 128;
    o->reps = 10;
    o->warmup = 1;
    o->batch = 1;
    o->align = 64;
    o->op_n = o->op_t = 1;
    o->case_redist = o->case_same = 1;
    o->use[0] = o->use[1] = o->use[2] = 1;
    const char *badarg = NULL;
    for (int k = 1; k < argc; k++) {
        char name[64];
        const char *arg = argv[k], *val = NULL;
        const char *eq = strchr(arg, '=');
        if (strncmp(arg, "--", 2) == 0 && eq != NULL && (size_t)(eq - arg) < sizeof name) {
            memcpy(name, arg, (size_t)(eq - arg));
            name[eq - arg] = '\0';
            val = eq + 1;
        } else if (strlen(arg) < sizeof name) {
            strcpy(name, arg);
        } else {
            badarg = arg;
            goto bad;
        }
        if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0)
            return 1;
        if (strcmp(name, "--json") == 0) {
            o->json = 1;
            continue;
        }
        static const char *const known[] = {
            "--m",     "--n",     "--size", "--from",      "--to",      "--from-mb", "--from-nb",
            "--to-mb", "--to-nb", "--grid", "--from-grid", "--to-grid", "--reps",    "--warmup",
            "--batch", "--op",    "--case", "--impl",      "--align"};
        int is_known = 0;
        for (size_t q = 0; q < sizeof known / sizeof known[0]; q++)
            is_known |= strcmp(name, known[q]) == 0;
        if (!is_known) {
            badarg = arg;
            goto bad;
        }
        if (val == NULL) {
            if (k + 1 >= argc) {
                if (loud)
                    fprintf(stderr, "dmx bench redist: %s needs a value\n", name);
                return 2;
            }
            val = argv[++k];
        }
        int ok;
        if (strcmp(name, "--m") == 0)
            ok = parse_i64(val, 1, &o->m);
        else if (strcmp(name, "--n") == 0)
            ok = parse_i64(val, 1, &o->n);
        else if (strcmp(name, "--size") == 0)
            ok = parse_pair(val, ',', &o->m, &o->n);
        else if (strcmp(name, "--from") == 0)
            ok = parse_pair(val, ',', &o->from_mb, &o->from_nb);
        else if (strcmp(name, "--to") == 0)
            ok = parse_pair(val, ',', &o->to_mb, &o->to_nb);
        else if (strcmp(name, "--from-mb") == 0)
            ok = parse_i64(val, 1, &o->from_mb);
        else if (strcmp(name, "--from-nb") == 0)
            ok = parse_i64(val, 1, &o->from_nb);
        else if (strcmp(name, "--to-mb") == 0)
            ok = parse_i64(val, 1, &o->to_mb);
        else if (strcmp(name, "--to-nb") == 0)
            ok = parse_i64(val, 1, &o->to_nb);
        else if (strcmp(name, "--grid") == 0) {
            ok = parse_grid(val, &o->from_grid);
            o->to_grid = o->from_grid;
        } else if (strcmp(name, "--from-grid") == 0)
            ok = parse_grid(val, &o->from_grid);
        else if (strcmp(name, "--to-grid") == 0)
            ok = parse_grid(val, &o->to_grid);
        else if (strcmp(name, "--reps") == 0)
            ok = parse_int(val, 1, &o->reps);
        else if (strcmp(name, "--warmup") == 0)
            ok = parse_int(val, 0, &o->warmup);
        else if (strcmp(name, "--batch") == 0)
            ok = parse_int(val, 1, &o->batch);
        else if (strcmp(name, "--align") == 0) {
            ok = parse_int(val, 0, &o->align);
            if (ok == 0 && o->align != 0 && (o->align < 8 || (o->align & (o->align - 1)) != 0))
                ok = -1;
        } else if (strcmp(name, "--op") == 0) {
            ok = 0;
            o->op_n = strcmp(val, "N") == 0 || strcmp(val, "n") == 0 || strcmp(val, "both") == 0;
            o->op_t = strcmp(val, "T") == 0 || strcmp(val, "t") == 0 || strcmp(val, "both") == 0;
            if (!o->op_n && !o->op_t)
                ok = -1;
        } else if (strcmp(name, "--case") == 0) {
            ok = 0;
            o->case_redist = strcmp(val, "redist") == 0 || strcmp(val, "all") == 0;
            o->case_same = strcmp(val, "same") == 0 || strcmp(val, "all") == 0;
            if (!o->case_redist && !o->case_same)
                ok = -1;
        } else if (strcmp(name, "--impl") == 0) {
            ok = parse_impls(val, o->use);
        } else {
            badarg = arg;
            goto bad;
        }
        if (ok != 0) {
            if (loud)
                fprintf(stderr, "dmx bench redist: bad value for %s: '%s'\n", name, val);
            return 2;
        }
    }
    return 0;
bad:
    if (loud)
        fprintf(stderr, "dmx bench redist: unknown option '%s' (try --help)\n", badarg);
    return 2;
}

/* ------------------------------------------------------------------------------------------ */
/* Global formula, fill, verification                                                           */
/* ------------------------------------------------------------------------------------------ */

/* Value of element (i, j) of the k-th source matrix of size mb_ x nb_: distinct, exact in a
 * double as long as batch*m*n < 2^53 (checked), never 0. */
static double bval(int64_t k, int64_t i, int64_t j, int64_t mb_, int64_t nb_)
{
    return (double)((k * mb_ + i) * nb_ + j + 1);
}

/* Global indices of this rank's local rows (or columns) of a layout. */
static int64_t *global_indices(int64_t nloc, int64_t nb, int iproc, int nprocs)
{
    int64_t *g = malloc((size_t)(nloc > 0 ? nloc : 1) * sizeof(int64_t));
    if (g != NULL)
        for (int64_t l = 0; l < nloc; l++)
            g[l] = bench_bc_global(l, nb, iproc, nprocs);
    return g;
}

/* One matrix side of a benchmark: layout, this rank's part and its array. */
typedef struct side {
    bench_bc bc;
    int pr, pc;
    int64_t mloc, nloc, ld;
    int64_t *gi, *gj; /* global row / column of each local row / column */
} side;

static int side_init(side *s, const bench_bc *bc, int rank)
{
    s->bc = *bc;
    bench_bc_local(bc, rank, &s->pr, &s->pc, &s->mloc, &s->nloc);
    s->ld = s->mloc > 0 ? s->mloc : 1;
    s->gi = global_indices(s->mloc, bc->mb, s->pr, bc->prow);
    s->gj = global_indices(s->nloc, bc->nb, s->pc, bc->pcol);
    return s->gi != NULL && s->gj != NULL ? 0 : -1;
}

static void side_free(side *s)
{
    free(s->gi);
    free(s->gj);
    s->gi = s->gj = NULL;
}

/* A local array, aligned to align bytes (0: whatever malloc gives). Every implementation
 * works on the same arrays. */
static double *side_alloc(const side *s, int align)
{
    int64_t n = s->ld * (s->nloc > 0 ? s->nloc : 1);
    if (align == 0)
        return malloc((size_t)n * sizeof(double));
    void *p = NULL;
    return posix_memalign(&p, (size_t)align, (size_t)n * sizeof(double)) == 0 ? p : NULL;
}

static void fill_source(const side *s, double *b, int64_t k)
{
    for (int64_t jl = 0; jl < s->nloc; jl++)
        for (int64_t il = 0; il < s->mloc; il++)
            b[il + jl * s->ld] = bval(k, s->gi[il], s->gj[jl], s->bc.m, s->bc.n);
}

static void fill_nan(const side *s, double *a)
{
    int64_t n = s->ld * s->nloc;
    for (int64_t k = 0; k < n; k++)
        a[k] = NAN;
}

/* Wrong elements of this rank's part of A_k = op(B_k); B is bm x bn. */
static int64_t count_wrong(const side *s, const double *a, int64_t k, int trans, int64_t bm,
                           int64_t bn)
{
    int64_t wrong = 0;
    for (int64_t jl = 0; jl < s->nloc; jl++) {
        const int64_t j = s->gj[jl];
        for (int64_t il = 0; il < s->mloc; il++) {
            const int64_t i = s->gi[il];
            double want = trans ? bval(k, j, i, bm, bn) : bval(k, i, j, bm, bn);
            if (!(a[il + jl * s->ld] == want))
                wrong++;
        }
    }
    return wrong;
}

/* ------------------------------------------------------------------------------------------ */
/* Results                                                                                      */
/* ------------------------------------------------------------------------------------------ */

enum { IMPL_DMX, IMPL_SCALAPACK, IMPL_A2A, IMPL_DMX_BATCH, NIMPL };
static const char *const impl_name[NIMPL] = {"dmx", "scalapack", "alltoallv", "dmx"};

typedef struct result {
    int active;      /* still being run */
    int attempted;   /* was set up (printed even if it failed) */
    char status[32]; /* "ok", "skipped", "failed" or a dmx status name */
    char note[200];  /* why skipped / failed */
    double *t;       /* per-repetition times (max over ranks), per matrix */
    double *cpu;     /* per-repetition CPU time summed over ranks, per matrix */
    int nt;
    int64_t wrong; /* largest wrong count of any verified run (summed over ranks) */
    double t_plan; /* dmx: plan creation time, max over ranks; < 0 if none */
    double t_med, t_min, t_max;
    double cpu_med;
} result;

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Sorts v[0..n) in place; returns its median. */
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void summarize(result *r)
{
    r->t_med = r->t_min = r->t_max = r->cpu_med = -1.0;
    if (r->nt == 0)
        return;
    r->t_med = median(r->t, r->nt);
    r->t_min = r->t[0];
    r->t_max = r->t[r->nt - 1];
    r->cpu_med = median(r->cpu, r->nt);
}

/* CPU time of this process (all its threads), seconds. */
static double cpu_now(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
        return 0.0;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void set_status(result *r, const char *status, const char *note)
{
    r->active = 0;
    snprintf(r->status, sizeof r->status, "%s", status);
    snprintf(r->note, sizeof r->note, "%s", note);
}

/* ------------------------------------------------------------------------------------------ */
/* One (case, op): set up every implementation, run them interleaved, report                    */
/* ------------------------------------------------------------------------------------------ */

typedef struct bench_case {
    const char *name;
    int64_t from_mb, from_nb, to_mb, to_nb;
    grid from_grid, to_grid;
} bench_case;

typedef struct group {
    const options *o;
    const bench_case *c;
    int trans;
    int rank, np;
    side sb, sa; /* B's and A's layouts */
    double **b;  /* batch source arrays (b[0] is the one every implementation uses) */
    double **a;  /* batch target arrays */
    int nmat;    /* arrays allocated: batch if batched dmx runs, else 1 */
    result r[NIMPL];
    /* dmx */
    dmx_layout **lb, **la;
    dmx_plan *plan, *plan_batch;
    /* alltoallv */
    bench_a2a_work work;
#ifdef DMX_HAVE_SCALAPACK
    int ctxt_b, ctxt_a, ctxt_all;
    int desc_b[9], desc_a[9];
#endif
} group;

static double max_over_ranks(double t)
{
    double m;
    MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

/* All ranks agree on the worst dmx status. */
static dmx_status agree(dmx_status st)
{
    int in = (int)st, out;
    MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return (dmx_status)out;
}

static void dmx_fail(group *g, int impl, const char *what, dmx_status st)
{
    char note[200];
    snprintf(note, sizeof note, "%s: %s", what, g->rank == 0 ? dmx_last_error() : "");
    set_status(&g->r[impl], dmx_status_string(st), note);
}

static void setup_dmx(group *g)
{
    const int nlay = g->nmat;
    g->lb = calloc((size_t)nlay, sizeof *g->lb);
    g->la = calloc((size_t)nlay, sizeof *g->la);
    g->r[IMPL_DMX].attempted = g->r[IMPL_DMX].active = 1;
    if (g->nmat > 1)
        g->r[IMPL_DMX_BATCH].attempted = g->r[IMPL_DMX_BATCH].active = 1;
    if (g->lb == NULL || g->la == NULL) {
        set_status(&g->r[IMPL_DMX], "failed", "out of memory");
        set_status(&g->r[IMPL_DMX_BATCH], "failed", "out of memory");
        return;
    }
    for (int k = 0; k < nlay; k++) {
        const bench_bc *b = &g->sb.bc, *a = &g->sa.bc;
        dmx_status st =
            dmx_layout_create_block_cyclic(MPI_COMM_WORLD, b->m, b->n, b->mb, b->nb, b->prow,
                                           b->pcol, 'R', 0, 0, g->b[k], g->sb.ld, &g->lb[k]);
        st = agree(st);
        if (st == DMX_SUCCESS) {
            st = dmx_layout_create_block_cyclic(MPI_COMM_WORLD, a->m, a->n, a->mb, a->nb, a->prow,
                                                a->pcol, 'R', 0, 0, g->a[k], g->sa.ld, &g->la[k]);
            st = agree(st);
        }
        if (st != DMX_SUCCESS) {
            dmx_fail(g, IMPL_DMX, "dmx_layout_create_block_cyclic", st);
            if (g->nmat > 1)
                dmx_fail(g, IMPL_DMX_BATCH, "dmx_layout_create_block_cyclic", st);
            return;
        }
    }
    dmx_transform *tr = calloc((size_t)nlay, sizeof *tr);
    if (tr == NULL) {
        set_status(&g->r[IMPL_DMX], "failed", "out of memory");
        set_status(&g->r[IMPL_DMX_BATCH], "failed", "out of memory");
        return;
    }
    for (int k = 0; k < nlay; k++) {
        tr[k].dtype = DMX_DOUBLE;
        tr[k].op = g->trans ? DMX_OP_T : DMX_OP_N;
        tr[k].alpha.re = 1.0;
        tr[k].beta.re = 0.0;
        tr[k].b = g->lb[k];
        tr[k].a = g->la[k];
    }
    for (int pass = 0; pass < (g->nmat > 1 ? 2 : 1); pass++) {
        const int impl = pass == 0 ? IMPL_DMX : IMPL_DMX_BATCH;
        dmx_plan **p = pass == 0 ? &g->plan : &g->plan_batch;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        dmx_status st = dmx_plan_create(pass == 0 ? 1 : nlay, tr, p);
        double t = MPI_Wtime() - t0;
        g->r[impl].t_plan = max_over_ranks(t);
        st = agree(st);
        if (st != DMX_SUCCESS)
            dmx_fail(g, impl, "dmx_plan_create", st);
    }
    free(tr);
}

static void teardown_dmx(group *g)
{
    dmx_plan_destroy(&g->plan_batch);
    dmx_plan_destroy(&g->plan);
    for (int k = 0; k < g->nmat; k++) {
        if (g->la != NULL)
            dmx_layout_destroy(&g->la[k]);
        if (g->lb != NULL)
            dmx_layout_destroy(&g->lb[k]);
    }
    free(g->la);
    free(g->lb);
    g->la = g->lb = NULL;
}

static int all_ranks(int ok)
{
    int out;
    MPI_Allreduce(&ok, &out, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return out;
}

static void setup_a2a(group *g)
{
    result *r = &g->r[IMPL_A2A];
    r->attempted = r->active = 1;
    /* Every count and displacement of the hand-written version is an int. */
    const int64_t lim = 2147483647;
    int fits = g->sb.mloc * g->sb.nloc <= lim && g->sa.mloc * g->sa.nloc <= lim;
    if (!all_ranks(fits)) {
        set_status(r, "skipped", "a local part has more than INT_MAX elements");
        return;
    }
    int ok = bench_a2a_work_init(&g->work, g->sb.mloc * g->sb.nloc, g->sa.mloc * g->sa.nloc) == 0;
    if (!all_ranks(ok))
        set_status(r, "failed", "out of memory for the send/receive buffers");
}

#ifdef DMX_HAVE_SCALAPACK
static int blacs_grid(int pr, int pc)
{
    int ctxt;
    Cblacs_get(-1, 0, &ctxt);
    Cblacs_gridinit(&ctxt, "Row", pr, pc);
    return ctxt;
}

static void make_desc(int *desc, const side *s, int ctxt)
{
    int m = (int)s->bc.m, n = (int)s->bc.n, mb = (int)s->bc.mb, nb = (int)s->bc.nb;
    int zero = 0, lld = (int)s->ld, info = 0;
    if (s->pr >= 0) {
        descinit_(desc, &m, &n, &mb, &nb, &zero, &zero, &ctxt, &lld, &info);
        /* numroc_ must agree with the local sizes every implementation uses. */
        int nprow = s->bc.prow, npcol = s->bc.pcol;
        if (info != 0 || numroc_(&m, &mb, &s->pr, &zero, &nprow) != s->mloc ||
            numroc_(&n, &nb, &s->pc, &zero, &npcol) != s->nloc)
            desc[0] = -1;
    } else {
        /* Not in this grid: ScaLAPACK's redistribution routines want context -1. */
        const int d[9] = {1, -1, m, n, mb, nb, 0, 0, 1};
        memcpy(desc, d, sizeof d);
    }
}
#endif

static void setup_scalapack(group *g)
{
    result *r = &g->r[IMPL_SCALAPACK];
    r->attempted = 1;
#ifdef DMX_HAVE_SCALAPACK
    const int64_t lim = 2147483647;
    if (g->sb.bc.m > lim || g->sb.bc.n > lim || g->sb.ld > lim || g->sa.ld > lim) {
        set_status(r, "skipped", "sizes beyond 32-bit ScaLAPACK integers");
        return;
    }
    if (g->trans &&
        (g->c->from_grid.pr != g->c->to_grid.pr || g->c->from_grid.pc != g->c->to_grid.pc)) {
        set_status(r, "skipped", "pdtran needs A and B on one process grid");
        return;
    }
    r->active = 1;
    g->ctxt_all = blacs_grid(1, g->np);
    g->ctxt_b = blacs_grid(g->sb.bc.prow, g->sb.bc.pcol);
    g->ctxt_a = g->trans ? g->ctxt_b : blacs_grid(g->sa.bc.prow, g->sa.bc.pcol);
    make_desc(g->desc_b, &g->sb, g->ctxt_b);
    make_desc(g->desc_a, &g->sa, g->ctxt_a);
    if (!all_ranks(g->desc_b[0] == 1 && g->desc_a[0] == 1))
        set_status(r, "failed", "descinit_ failed or numroc_ disagrees with the layout");
#else
    set_status(r, "skipped", "built without ScaLAPACK");
#endif
}

static void teardown_scalapack(group *g)
{
#ifdef DMX_HAVE_SCALAPACK
    if (!g->r[IMPL_SCALAPACK].attempted || strcmp(g->r[IMPL_SCALAPACK].status, "skipped") == 0)
        return;
    if (g->ctxt_a >= 0 && g->ctxt_a != g->ctxt_b)
        Cblacs_gridexit(g->ctxt_a);
    if (g->ctxt_b >= 0)
        Cblacs_gridexit(g->ctxt_b);
    if (g->ctxt_all >= 0)
        Cblacs_gridexit(g->ctxt_all);
#else
    (void)g;
#endif
}

/* Run implementation impl once on every rank; returns the time (max over ranks, per matrix) or
 * a negative value if it failed, and in *cpu the CPU time of all ranks (per matrix); adds wrong
 * elements to r->wrong. */
static double run_once(group *g, int impl, double *cpu)
{
    result *r = &g->r[impl];
    const int nverify = impl == IMPL_DMX_BATCH ? g->nmat : 1;
    for (int k = 0; k < nverify; k++)
        fill_nan(&g->sa, g->a[k]);

    int err = 0;
    dmx_status st = DMX_SUCCESS;
    MPI_Barrier(MPI_COMM_WORLD);
    double c0 = cpu_now();
    double t0 = MPI_Wtime();
    switch (impl) {
    case IMPL_DMX: st = dmx_plan_execute(g->plan); break;
    case IMPL_DMX_BATCH: st = dmx_plan_execute(g->plan_batch); break;
    case IMPL_A2A:
        err = bench_a2a_redist(MPI_COMM_WORLD, g->trans ? 'T' : 'N', &g->sb.bc, g->b[0], g->sb.ld,
                               &g->sa.bc, g->a[0], g->sa.ld, &g->work);
        break;
    case IMPL_SCALAPACK:
#ifdef DMX_HAVE_SCALAPACK
    {
        const int m = (int)g->sa.bc.m, n = (int)g->sa.bc.n, one = 1;
        if (g->trans) {
            const double alpha = 1.0, beta = 0.0;
            if (g->sa.pr >= 0)
                pdtran_(&m, &n, &alpha, g->b[0], &one, &one, g->desc_b, &beta, g->a[0], &one, &one,
                        g->desc_a);
        } else {
            pdgemr2d_(&m, &n, g->b[0], &one, &one, g->desc_b, g->a[0], &one, &one, g->desc_a,
                      &g->ctxt_all);
        }
    }
#endif
    break;
    default: break;
    }
    double t = MPI_Wtime() - t0;
    double c = cpu_now() - c0;
    t = max_over_ranks(t);
    MPI_Allreduce(&c, cpu, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);

    if (impl == IMPL_DMX || impl == IMPL_DMX_BATCH) {
        st = agree(st);
        if (st != DMX_SUCCESS) {
            dmx_fail(g, impl, "dmx_plan_execute", st);
            return -1.0;
        }
    } else if (!all_ranks(err == 0)) {
        set_status(r, "failed", "the MPI_Alltoallv redistribution returned an error");
        return -1.0;
    }

    int64_t wrong = 0, total;
    for (int k = 0; k < nverify; k++)
        wrong += count_wrong(&g->sa, g->a[k], k, g->trans, g->sb.bc.m, g->sb.bc.n);
    MPI_Allreduce(&wrong, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (total > r->wrong)
        r->wrong = total;
    if (impl == IMPL_DMX_BATCH) {
        *cpu /= g->nmat;
        t /= g->nmat;
    }
    return t;
}

static void print_grid(char *buf, size_t len, grid gr)
{
    snprintf(buf, len, "%dx%d", gr.pr, gr.pc);
}

static void report_json(const group *g)
{
    const options *o = g->o;
    const bench_case *c = g->c;
    char fg[32], tg[32];
    print_grid(fg, sizeof fg, c->from_grid);
    print_grid(tg, sizeof tg, c->to_grid);
    const result *d = &g->r[IMPL_DMX];
    const int have_dmx = d->nt == o->reps && d->t_med > 0;
    for (int i = 0; i < NIMPL; i++) {
        const result *r = &g->r[i];
        if (!r->attempted)
            continue;
        const int timed = r->nt == o->reps && strcmp(r->status, "ok") == 0;
        printf("{\"bench\":\"redist\",\"impl\":\"%s\",\"case\":\"%s\",\"op\":\"%s\",\"np\":%d,"
               "\"m\":%lld,\"n\":%lld,\"dtype\":\"double\",\"from_mb\":%lld,\"from_nb\":%lld,"
               "\"to_mb\":%lld,\"to_nb\":%lld,\"from_grid\":\"%s\",\"to_grid\":\"%s\","
               "\"batch\":%d,\"reps\":%d,\"align\":%d,",
               impl_name[i], c->name, g->trans ? "T" : "N", g->np, (long long)o->m, (long long)o->n,
               (long long)c->from_mb, (long long)c->from_nb, (long long)c->to_mb,
               (long long)c->to_nb, fg, tg, i == IMPL_DMX_BATCH ? g->nmat : 1, o->reps, o->align);
        if (timed)
            printf("\"t_med\":%.9g,\"t_min\":%.9g,\"t_max\":%.9g,\"gbps\":%.6g,\"cpu_med\":%.9g,",
                   r->t_med, r->t_min, r->t_max, (double)o->m * (double)o->n * 8.0 / r->t_med / 1e9,
                   r->cpu_med);
        else
            printf("\"t_med\":null,\"t_min\":null,\"t_max\":null,\"gbps\":null,"
                   "\"cpu_med\":null,");
        if (i == IMPL_DMX || i == IMPL_DMX_BATCH) {
            if (r->t_plan >= 0)
                printf("\"t_plan\":%.9g,", r->t_plan);
            else
                printf("\"t_plan\":null,");
        }
        if (i != IMPL_DMX) {
            if (timed && have_dmx)
                printf("\"dmx_speedup\":%.4g,", r->t_med / d->t_med);
            else
                printf("\"dmx_speedup\":null,");
        }
        printf("\"wrong\":%lld,\"status\":\"%s\"", (long long)r->wrong, r->status);
        if (r->note[0] != '\0') {
            printf(",\"note\":\"");
            for (const char *p = r->note; *p; p++)
                if (*p == '"' || *p == '\\')
                    printf("\\%c", *p);
                else if ((unsigned char)*p >= 0x20)
                    putchar(*p);
            printf("\"");
        }
        printf("}\n");
    }
    fflush(stdout);
}

static void report_table(const group *g)
{
    const options *o = g->o;
    const result *d = &g->r[IMPL_DMX];
    const int have_dmx = d->nt == o->reps && d->t_med > 0;
    for (int i = 0; i < NIMPL; i++) {
        const result *r = &g->r[i];
        if (!r->attempted)
            continue;
        char impl[32], extra[160] = "";
        if (i == IMPL_DMX_BATCH)
            snprintf(impl, sizeof impl, "dmx x%d", g->nmat);
        else
            snprintf(impl, sizeof impl, "%s", impl_name[i]);
        const int timed = r->nt == o->reps && strcmp(r->status, "ok") == 0;
        if (!timed) {
            printf("%-8s %-2s %-10s %s: %s\n", g->c->name, g->trans ? "T" : "N", impl, r->status,
                   r->note);
            continue;
        }
        if (i == IMPL_DMX || i == IMPL_DMX_BATCH) {
            if (r->t_plan >= 0)
                snprintf(extra, sizeof extra, "plan %.2f ms%s", r->t_plan * 1e3,
                         i == IMPL_DMX_BATCH ? ", times per matrix" : "");
        } else if (have_dmx) {
            snprintf(extra, sizeof extra, "%.2fx", r->t_med / d->t_med);
        }
        if (r->wrong > 0)
            snprintf(extra, sizeof extra, "WRONG RESULTS");
        printf("%-8s %-2s %-10s %10.3f %10.3f %9.2f %8.2f %6lld  %s\n", g->c->name,
               g->trans ? "T" : "N", impl, r->t_med * 1e3, r->t_min * 1e3, r->cpu_med * 1e3,
               (double)o->m * (double)o->n * 8.0 / r->t_med / 1e9, (long long)r->wrong, extra);
    }
    fflush(stdout);
}

/* Runs one (case, op); returns 0, 1 if some implementation was wrong, 3 if one failed. */
static int run_group(const options *o, const bench_case *c, int trans, int rank, int np)
{
    group g;
    memset(&g, 0, sizeof g);
    g.o = o;
    g.c = c;
    g.trans = trans;
    g.rank = rank;
    g.np = np;
#ifdef DMX_HAVE_SCALAPACK
    g.ctxt_a = g.ctxt_b = g.ctxt_all = -1;
#endif
    for (int i = 0; i < NIMPL; i++) {
        g.r[i].t_plan = -1.0;
        snprintf(g.r[i].status, sizeof g.r[i].status, "ok");
        g.r[i].t = calloc((size_t)o->reps, sizeof(double));
        g.r[i].cpu = calloc((size_t)o->reps, sizeof(double));
    }
    const bench_bc bcb = {trans ? o->n : o->m, trans ? o->m : o->n, c->from_mb,
                          c->from_nb,          c->from_grid.pr,     c->from_grid.pc};
    const bench_bc bca = {o->m, o->n, c->to_mb, c->to_nb, c->to_grid.pr, c->to_grid.pc};
    g.nmat = o->use[0] ? o->batch : 1;
    int ok = side_init(&g.sb, &bcb, rank) == 0 && side_init(&g.sa, &bca, rank) == 0;
    g.b = calloc((size_t)g.nmat, sizeof(double *));
    g.a = calloc((size_t)g.nmat, sizeof(double *));
    ok = ok && g.b != NULL && g.a != NULL;
    for (int k = 0; ok && k < g.nmat; k++) {
        g.b[k] = side_alloc(&g.sb, o->align);
        g.a[k] = side_alloc(&g.sa, o->align);
        ok = g.b[k] != NULL && g.a[k] != NULL;
        if (ok) {
            fill_source(&g.sb, g.b[k], k);
            fill_nan(&g.sa, g.a[k]);
        }
    }
    for (int i = 0; ok && i < NIMPL; i++)
        ok = g.r[i].t != NULL && g.r[i].cpu != NULL;
    int rc = 0;
    if (!all_ranks(ok)) {
        if (rank == 0)
            fprintf(stderr, "dmx bench redist: out of memory for case %s\n", c->name);
        rc = 3;
        goto cleanup;
    }

    if (o->use[0])
        setup_dmx(&g);
    if (o->use[1])
        setup_scalapack(&g);
    if (o->use[2])
        setup_a2a(&g);

    /* Warm-up and timed runs, implementations interleaved. */
    for (int rep = -o->warmup; rep < o->reps; rep++) {
        for (int i = 0; i < NIMPL; i++) {
            if (!g.r[i].active)
                continue;
            double cpu = 0.0, t = run_once(&g, i, &cpu);
            if (t >= 0 && rep >= 0) {
                g.r[i].cpu[g.r[i].nt] = cpu;
                g.r[i].t[g.r[i].nt++] = t;
            }
        }
    }
    for (int i = 0; i < NIMPL; i++) {
        summarize(&g.r[i]);
        if (g.r[i].wrong > 0)
            rc = 1;
        else if (g.r[i].attempted && rc == 0 && strcmp(g.r[i].status, "ok") != 0 &&
                 strcmp(g.r[i].status, "skipped") != 0)
            rc = 3;
    }
    if (rank == 0) {
        if (o->json)
            report_json(&g);
        else
            report_table(&g);
    }

    teardown_scalapack(&g);
    teardown_dmx(&g);
    bench_a2a_work_free(&g.work);
cleanup:
    for (int k = 0; k < g.nmat; k++) {
        if (g.b != NULL)
            free(g.b[k]);
        if (g.a != NULL)
            free(g.a[k]);
    }
    free(g.b);
    free(g.a);
    side_free(&g.sb);
    side_free(&g.sa);
    for (int i = 0; i < NIMPL; i++) {
        free(g.r[i].t);
        free(g.r[i].cpu);
    }
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Entry point                                                                                  */
/* ------------------------------------------------------------------------------------------ */

/* Before MPI_Init: is this the first process of the job (or a lone process)? */
static int first_process(void)
{
    const char *vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"};
    for (size_t k = 0; k < sizeof vars / sizeof vars[0]; k++) {
        const char *v = getenv(vars[k]);
        if (v != NULL)
            return strcmp(v, "0") == 0;
    }
    return 1;
}

int dmx_cmd_bench_redist(int argc, char **argv)
{
    options o;
    /* --help works without MPI; bad options are reported once MPI knows rank 0. */
    if (parse_options(argc, argv, &o, 0) == 1) {
        if (first_process())
            usage(stdout);
        return 0;
    }

    MPI_Init(&argc, &argv);
    int rank, np, rc = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (parse_options(argc, argv, &o, rank == 0) != 0) {
        MPI_Finalize();
        return 2;
    }

    grid auto_grid = {np >= 4 ? 2 : 1, np >= 4 ? 2 : np};
    grid fg = o.from_grid.pr > 0 ? o.from_grid : auto_grid;
    grid tg = o.to_grid.pr > 0 ? o.to_grid : auto_grid;
    const char *why = NULL;
    if ((int64_t)fg.pr * fg.pc > np || (int64_t)tg.pr * tg.pc > np)
        why = "a process grid has more processes than ranks";
    else if ((double)o.batch * (double)o.m * (double)o.n >= 9007199254740992.0)
        why = "batch*m*n must stay below 2^53 (exact verification values)";
    if (why != NULL) {
        if (rank == 0)
            fprintf(stderr, "dmx bench redist: %s\n", why);
        MPI_Finalize();
        return 2;
    }

    char redist_name[48];
    if (fg.pr == tg.pr && fg.pc == tg.pc)
        snprintf(redist_name, sizeof redist_name, "%dx%d", fg.pr, fg.pc);
    else
        snprintf(redist_name, sizeof redist_name, "%dx%d-%dx%d", fg.pr, fg.pc, tg.pr, tg.pc);
    bench_case cases[2];
    int ncases = 0;
    if (o.case_redist)
        cases[ncases++] = (bench_case){redist_name, o.from_mb, o.from_nb, o.to_mb, o.to_nb, fg, tg};
    if (o.case_same)
        cases[ncases++] = (bench_case){"same", o.to_mb, o.to_nb, o.to_mb, o.to_nb, tg, tg};

    if (rank == 0 && !o.json) {
        printf("dmx bench redist: np=%d, A %lld x %lld doubles (%.1f MB), median of %d reps "
               "(max over ranks) after %d warm-up%s, arrays %d-byte aligned\n",
               np, (long long)o.m, (long long)o.n, (double)o.m * (double)o.n * 8.0 / 1e6, o.reps,
               o.warmup, o.warmup == 1 ? "" : "s", o.align);
        for (int k = 0; k < ncases; k++)
            printf("  case %-8s B: %lldx%lld blocks on %dx%d -> A: %lldx%lld blocks on %dx%d\n",
                   cases[k].name, (long long)cases[k].from_mb, (long long)cases[k].from_nb,
                   cases[k].from_grid.pr, cases[k].from_grid.pc, (long long)cases[k].to_mb,
                   (long long)cases[k].to_nb, cases[k].to_grid.pr, cases[k].to_grid.pc);
        printf("%-8s %-2s %-10s %10s %10s %9s %8s %6s  %s\n", "case", "op", "impl", "t_med ms",
               "t_min ms", "cpu ms", "GB/s", "wrong", "dmx speedup (t_impl / t_dmx)");
        fflush(stdout);
    }

    for (int k = 0; k < ncases; k++) {
        for (int t = 0; t < 2; t++) {
            if (!(t ? o.op_t : o.op_n))
                continue;
            int r = run_group(&o, &cases[k], t, rank, np);
            if (r == 1 || (r == 3 && rc == 0))
                rc = r;
        }
    }
#ifdef DMX_HAVE_SCALAPACK
    Cblacs_exit(1);
#endif
    MPI_Finalize();
    return rc;
}
