/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal state of a multiply plan and the helpers the algorithm files share. Not installed. */
#ifndef DMXI_GEMM_INTERNAL_H
#define DMXI_GEMM_INTERNAL_H

#include "dmx/expert.h"
#include "dmx/relabel.h"
#include "dmxi.h"

/* One rank's part of a plan. Partitions are arrays of part boundaries (parts+1 entries); part
 * i is [x[i], x[i+1]) and may be empty. */
struct dmx_gemm_plan {
    MPI_Comm comm; /* duplicate of the caller's */
    int p, rank;
    dmx_dtype dtype;
    size_t esz;
    dmx_op ta, tb;
    dmx_scalar alpha, beta;
    int64_t m, n, k;
    dmx_gemm_info info; /* choices and counters */
    int overlap;        /* nonblocking look-ahead */
    int pr, pc, gr, gc; /* grid, group grid */
    int myr, myc;       /* my grid position, -1 when idle */
    int64_t *rows;      /* pr+1: C's and A's rows */
    int64_t *cols;      /* pc+1: C's and B's columns */
    int64_t *ka;        /* k split for A's columns (SUMMA: pc parts; Cannon: q parts) */
    int64_t *kb;        /* k split for B's rows (SUMMA: pr parts; Cannon: q parts) */
    void *a, *b, *c;    /* my local blocks, column-major */
    int64_t lda, ldb, ldc;
    void *a_own, *b_own, *c_own; /* what the plan allocated for them */
    const dmx_layout *ua, *ub;   /* the caller's layouts */
    dmx_layout *uc;
    dmx_layout *la, *lb, *lc;      /* the algorithm's layouts (NULL when in place) */
    dmx_plan *pa, *pb, *pcback;    /* redistributions */
    MPI_Comm row, col;             /* my grid row (rank = column) and column */
    MPI_Comm row_cross, row_group; /* HSUMMA: same place in other groups / my group */
    MPI_Comm col_cross, col_group;
    void *work[4]; /* panel buffers (two A, two B) */
    /* The first local block of A, B and C at the last execution (seen_set): a move means a
     * dmx_layout_rebind, which in-place operands follow and which C is checked against. */
    void *seen[3];
    int seen_set;
};

/* Typed helpers on column-major arrays (gemm_local.c). Local. */
/* C (m x n) = alpha * A (m x k) * B (k x n) + beta * C, CBLAS no-transpose. */
void dmxi_gemm_local(dmx_dtype t, int64_t m, int64_t n, int64_t k, dmx_scalar alpha, const void *a,
                     int64_t lda, const void *b, int64_t ldb, dmx_scalar beta, void *c,
                     int64_t ldc);
/* The panels (Cannon: steps) a multiply runs of its n: n, except in simulation builds
 * (DMX_SIM_FLOPS) where DMX_SIM_PANELS=K runs the first K (the simulator's time for the
 * paper's sizes, docs/scale.md). */
int64_t dmxi_gemm_sim_panels(int64_t n);
/* C (m x n) = beta * C (beta 0 writes zeros). */
void dmxi_gemm_scale(dmx_dtype t, int64_t m, int64_t n, dmx_scalar beta, void *c, int64_t ldc);
/* Copy the m x n submatrix at src (leading dimension lds) to dst (leading dimension ldd). */
void dmxi_gemm_copy(size_t esz, int64_t m, int64_t n, const void *src, int64_t lds, void *dst,
                    int64_t ldd);
/* The MPI datatype of one element. */
MPI_Datatype dmxi_gemm_mpi_type(dmx_dtype t);

/* Free everything of g (NULL: nothing), even after a failure: st = DMX_SUCCESS returns the first
 * failure of the frees (plans, layouts, communicators: DMXI_MPI_ALL's rule), any other st is the
 * caller's own failure, returned unchanged. Collective on g's communicators. */
dmx_status dmxi_gemm_release(dmx_gemm_plan *g, dmx_status st);
/* 1 if s is exactly zero. */
int dmxi_gemm_is_zero(dmx_scalar s);

/* Panels: the cut points of [0, k) that are boundaries of either split, so each piece lies
 * in one part of both (gemm_panel.c). *cuts (malloc'd) gets n+1 points. */
dmx_status dmxi_gemm_cuts(const int64_t *x, int nx, const int64_t *y, int ny, int64_t **cuts,
                          int *n);
/* Part of split x (nparts) holding index i. */
int dmxi_gemm_part(const int64_t *x, int nparts, int64_t i);

/* Broadcast helpers with counting (gemm_panel.c): start (overlap) or run (blocking) a broadcast
 * of count elements on comm from root. size-1 communicators send nothing and count nothing. */
dmx_status dmxi_gemm_bcast_start(dmx_gemm_plan *g, void *buf, int64_t count, int root,
                                 MPI_Comm comm, MPI_Request *req);

/* The algorithms: run the multiply on the plan's local blocks. first_beta is beta for the
 * first local update (later ones use 1); with no local update at all the caller scales. */
dmx_status dmxi_gemm_summa(dmx_gemm_plan *g, dmx_scalar first_beta, int *updated);
dmx_status dmxi_gemm_hsumma(dmx_gemm_plan *g, dmx_scalar first_beta, int *updated);
dmx_status dmxi_gemm_cannon(dmx_gemm_plan *g, dmx_scalar first_beta, int *updated);

/* Where the caller holds A, B and C, for the redistribution term of the choice (gemm_redist.c):
 * each as a description over the plan's ranks (A as stored: op(A)'s transpose when trans[0]),
 * known[i] = 0 where it cannot be described (a local-only layout, a layout on other processes,
 * too many blocks): that operand is not priced. */
typedef struct dmxi_gemm_data {
    int known[3];
    int trans[2];
    dmx_relabel_desc d[3];
    int *map[3];          /* the description's rank -> the plan's rank (NULL: the same) */
    int64_t *split[3][2]; /* grid descriptions made here (freed by dmxi_gemm_data_free) */
    int *owners[3];
} dmxi_gemm_data;

/* The operands' descriptions from the caller's layouts (plan's communicator comm), or from the
 * public description (dmx_gemm_explain_operands; the descriptions are borrowed). Local. */
dmx_status dmxi_gemm_data_from_layouts(MPI_Comm comm, const dmx_layout *a, const dmx_layout *b,
                                       const dmx_layout *c, dmx_op ta, dmx_op tb,
                                       dmxi_gemm_data *out);
void dmxi_gemm_data_from_operands(const dmx_gemm_operands *ops, dmxi_gemm_data *out);
void dmxi_gemm_data_free(dmxi_gemm_data *d);

/* The network figures the redistribution term prices with (from the model's machine). */
typedef struct dmxi_gemm_net {
    int64_t p, nodes, m, n, k;
    size_t esz;
    double alpha;                  /* one message's latency (s) */
    double beta_intra, beta_inter; /* s/byte inside a node, across nodes */
} dmxi_gemm_net;

/* Predicted seconds to bring A and B from @p d into a pr x pc grid (Cannon's skewed q x q with
 * @p cannon) and C back; part[0..2] get A's, B's and C's shares (0 for an operand not known).
 * Local. */
double dmxi_gemm_redist_time(const dmxi_gemm_data *d, const dmxi_gemm_net *net, int pr, int pc,
                             int cannon, double part[3]);

/* The model (gemm_model.c): the plan's configuration for p ranks on @p nodes nodes; with @p data
 * (not NULL) each grid is charged the redistribution of the operands into it (info's
 * redist_seconds), which the comparison adds to the multiply's time. */
dmx_status dmxi_gemm_choose(dmx_dtype t, int64_t m, int64_t n, int64_t k, int64_t p, int nodes,
                            const dmx_gemm_options *opt, const dmxi_gemm_data *data,
                            dmx_gemm_info *out);
/* The machine the model prices (gemm_machine.c). The local multiply's rate as a function of the
 * update width w (the smallest of panel width, local rows and local columns: a rank-32 update runs
 * well below a wide one). Points (w, flop/s) ascending, interpolated linearly in log2(w), constant
 * beyond the last point; below the first it falls with sqrt(w). From DMX_GEMM_MODEL's file when set
 * (dmx calibrate gemm -o writes it), else the built-in shape times DMX_GEMM_MFLOPS: one core
 * measured here (OpenBLAS, one thread) ran 72 % of its wide-panel rate at w = 32, 97 % at 256, 99 %
 * at 1024. */
enum { DMXI_GEMM_MAXPTS = 16, DMXI_GEMM_MAXDIMS = 6 };
typedef struct dmxi_gemm_curve {
    int n;
    double w[DMXI_GEMM_MAXPTS], rate[DMXI_GEMM_MAXPTS];
    dmx_coll_alg ibcast; /* whose formula predicts the library's MPI_Ibcast */
    int concurrent;      /* 1: MPI_Ibcast's root posts all sends at once (alpha + (q-1) m beta) */
    double backbone;     /* bytes/s the network carries in all (one shared switch), 0: unlimited */
    int ndims; /* torus = X,Y,...: the nodes' torus (node i at x = i mod X, ...), 0: none */
    int64_t dims[DMXI_GEMM_MAXDIMS];
} dmxi_gemm_curve;

/* The machine: DMX_GEMM_MODEL's file, loaded once, else the built-in curve (gemm_machine.c). */
const dmxi_gemm_curve *dmxi_gemm_machine(void);
/* The model's local multiply rate (flop/s) for updates of width w (gemm_machine.c). Local. */
double dmxi_gemm_rate(double w);
/* Group grid gr x gc for G groups on a pr x pc grid (gr | pr, gc | pc); 0 if impossible. */
int dmxi_gemm_group_grid(int pr, int pc, int G, int *gr, int *gc);

/* One hop of SimGrid's dimension-order route on the machine's torus (gemm_machine.c) from node
 * @p s to @p d, now at @p cur: the next node, and the directed link taken in *link. */
int64_t dmxi_gemm_torus_hop(const dmxi_gemm_curve *cv, int64_t s, int64_t d, int64_t cur,
                            int64_t *link);

#endif
