/* SPDX-License-Identifier: BSD-3-Clause */
/* dmx plan: the offline relabeling planner. Runs on one process, without MPI.
 *
 *   dmx plan --size M,N --from MB,NB,PR,PC,ORD --to MB,NB,PR,PC,ORD [--transpose]
 *            [--sigma] [--json]
 *   dmx plan --custom-from FILE --custom-to FILE [--transpose] [--sigma] [--json]
 *   dmx plan --fig3 [--csv FILE] [--svg FILE] [--json]
 *
 * For a pair of layouts it computes the package volumes V(S_{i,j}), the remote volume with the
 * identity labeling, with the exact relabeling and with the greedy one, the reductions and the
 * solve times, through the public offline calls of dmx/relabel.h (dmx_relabel_volume_*,
 * dmx_relabel_assign). --fig3 reproduces Figure 3 of the
 * COSTA paper (section 7.2). The custom layout file format is documented in docs/relabel.md
 * and in the help (dmx plan --help).
 */
#include "cli.h"
#include "dmx_tool.h"
#include "plan_tool.h"

#include "dmx.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- argument parsing --------------------------------------------------------------------- */

/* MB,NB,PR,PC,ORD */
int plan_parse_bc(const char *arg, dmx_relabel_desc *d)
{
    char buf[160];
    char *f[6];
    int64_t mb, nb, pr, pc;
    if (strlen(arg) >= sizeof buf)
        return -1;
    strcpy(buf, arg);
    if (plan_split_commas(buf, f, 5) != 5 || plan_parse_i64(f[0], &mb) ||
        plan_parse_i64(f[1], &nb) || plan_parse_i64(f[2], &pr) || plan_parse_i64(f[3], &pc))
        return -1;
    if (mb < 1 || nb < 1 || pr < 1 || pc < 1 || pr > INT_MAX || pc > INT_MAX)
        return -1;
    if (strlen(f[4]) != 1 ||
        (toupper((unsigned char)f[4][0]) != 'R' && toupper((unsigned char)f[4][0]) != 'C'))
        return -1;
    memset(d, 0, sizeof *d);
    d->kind = DMX_RELABEL_DESC_BLOCK_CYCLIC;
    d->mb = mb;
    d->nb = nb;
    d->prow = (int)pr;
    d->pcol = (int)pc;
    d->order = (char)toupper((unsigned char)f[4][0]);
    return 0;
}

/* ---- custom layout files ------------------------------------------------------------------ */

typedef struct custom_layout {
    dmx_relabel_desc g; /* kind DMX_RELABEL_DESC_GRID, arrays below */
    int64_t *rowsplits, *colsplits;
    int *owners;
    int procs; /* 0 if not given */
} custom_layout;

static void custom_free(custom_layout *c)
{
    free(c->rowsplits);
    free(c->colsplits);
    free(c->owners);
    memset(c, 0, sizeof *c);
}

/* Next whitespace-separated token of f (comments skipped) into buf; 0 at end of file. */
static int next_token(FILE *f, char *buf, size_t cap)
{
    int ch;
    for (;;) {
        ch = fgetc(f);
        if (ch == '#') {
            while (ch != EOF && ch != '\n')
                ch = fgetc(f);
        }
        if (ch == EOF)
            return 0;
        if (!isspace(ch))
            break;
    }
    size_t k = 0;
    while (ch != EOF && !isspace(ch) && ch != '#') {
        if (k + 1 < cap)
            buf[k++] = (char)ch;
        ch = fgetc(f);
    }
    if (ch == '#')
        ungetc(ch, f);
    buf[k] = '\0';
    return 1;
}

static int is_number(const char *s)
{
    int64_t v;
    return plan_parse_i64(s, &v) == 0;
}

/* Read integers until a non-number token (left in tok, *more = 1) or end of file. */
static int read_list(FILE *f, char *tok, size_t cap, int64_t **arr, int64_t *count, int *more)
{
    int64_t n = 0, capn = 0;
    int64_t *a = NULL;
    *more = 0;
    while (next_token(f, tok, cap)) {
        int64_t v;
        if (plan_parse_i64(tok, &v) != 0) {
            *more = 1;
            break;
        }
        if (n == capn) {
            int64_t grown = capn < 16 ? 16 : 2 * capn;
            int64_t *b = (size_t)grown <= SIZE_MAX / sizeof *a
                             ? realloc(a, (size_t)grown * sizeof *a)
                             : NULL;
            if (!b) {
                fprintf(stderr, "dmx plan: out of memory\n");
                free(a);
                return -1;
            }
            a = b;
            capn = grown;
        }
        a[n++] = v;
    }
    *arr = a;
    *count = n;
    return 0;
}

static int read_custom(const char *path, custom_layout *c)
{
    memset(c, 0, sizeof *c);
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "dmx plan: cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    char tok[64];
    int have_size = 0, more = next_token(f, tok, sizeof tok), rc = -1;
    int64_t *owners64 = NULL, nown = 0, nr = -1, nc = -1;
    while (more) {
        int64_t *list = NULL, cnt = 0;
        if (strcmp(tok, "size") == 0 || strcmp(tok, "procs") == 0 ||
            strcmp(tok, "rowsplits") == 0 || strcmp(tok, "colsplits") == 0 ||
            strcmp(tok, "owners") == 0) {
            char key[16];
            strcpy(key, tok);
            if (read_list(f, tok, sizeof tok, &list, &cnt, &more) != 0)
                goto done;
            if (strcmp(key, "size") == 0) {
                if (cnt != 2 || list[0] < 0 || list[1] < 0) {
                    fprintf(stderr, "dmx plan: %s: 'size' needs M N\n", path);
                    free(list);
                    goto done;
                }
                c->g.m = list[0];
                c->g.n = list[1];
                have_size = 1;
                free(list);
            } else if (strcmp(key, "procs") == 0) {
                if (cnt != 1 || list[0] < 1 || list[0] > INT_MAX) {
                    fprintf(stderr, "dmx plan: %s: 'procs' needs one positive count\n", path);
                    free(list);
                    goto done;
                }
                c->procs = (int)list[0];
                free(list);
            } else if (strcmp(key, "rowsplits") == 0) {
                free(c->rowsplits);
                c->rowsplits = list;
                nr = cnt - 1;
            } else if (strcmp(key, "colsplits") == 0) {
                free(c->colsplits);
                c->colsplits = list;
                nc = cnt - 1;
            } else {
                free(owners64);
                owners64 = list;
                nown = cnt;
            }
        } else {
            fprintf(stderr, "dmx plan: %s: unexpected '%s'%s\n", path, tok,
                    is_number(tok) ? " (numbers must follow a keyword)" : "");
            goto done;
        }
    }
    if (!have_size || nr < 0 || nc < 0 || !owners64) {
        fprintf(stderr, "dmx plan: %s: needs size, rowsplits, colsplits and owners\n", path);
        goto done;
    }
    if (nr > 0 && nc > INT64_MAX / nr) {
        fprintf(stderr, "dmx plan: %s: too many blocks\n", path);
        goto done;
    }
    if (nown != nr * nc) {
        fprintf(stderr, "dmx plan: %s: %lld owners for %lld x %lld blocks\n", path, (long long)nown,
                (long long)nr, (long long)nc);
        goto done;
    }
    c->owners = (uint64_t)nown < SIZE_MAX / sizeof *c->owners
                    ? malloc((size_t)(nown > 0 ? nown : 1) * sizeof *c->owners)
                    : NULL;
    if (!c->owners) {
        fprintf(stderr, "dmx plan: %s: out of memory\n", path);
        goto done;
    }
    for (int64_t k = 0; k < nown; k++) {
        if (owners64[k] < 0 || owners64[k] > INT_MAX - 1 ||
            (c->procs > 0 && owners64[k] >= c->procs)) {
            fprintf(stderr, "dmx plan: %s: owner %lld out of range\n", path,
                    (long long)owners64[k]);
            goto done;
        }
        c->owners[k] = (int)owners64[k];
    }
    c->g.kind = DMX_RELABEL_DESC_GRID;
    c->g.nrb = nr;
    c->g.ncb = nc;
    c->g.rowsplits = c->rowsplits;
    c->g.colsplits = c->colsplits;
    c->g.owners = c->owners;
    rc = 0;
done:
    free(owners64);
    fclose(f);
    if (rc != 0)
        custom_free(c);
    return rc;
}

/* ---- one planning run --------------------------------------------------------------------- */

typedef struct plan_result {
    int p;
    int64_t nnz, total;
    int64_t vol_identity, vol_exact, vol_greedy;
    double t_volume, t_exact, t_greedy;
    int *sigma_exact; /* owned */
} plan_result;

static int fail(dmx_status st)
{
    fprintf(stderr, "dmx plan: %s: %s\n", dmx_status_string(st), dmx_last_error());
    return 1;
}

/* Solve both assignment problems on the volumes v. Returns 0, or 1 (message on stderr). */
static int solve(const dmx_relabel_volume *v, plan_result *r)
{
    dmx_status st = DMX_SUCCESS;
    int rc = 1, *sg = NULL;
    dmx_relabel_gains g;
    if ((st = dmx_relabel_volume_get_info(v, &r->p, &r->nnz, &r->total)) != DMX_SUCCESS ||
        (st = dmx_relabel_volume_get_gains(v, &g)) != DMX_SUCCESS)
        return fail(st);
    r->sigma_exact = malloc((size_t)r->p * sizeof *r->sigma_exact);
    sg = malloc((size_t)r->p * sizeof *sg);
    if (!r->sigma_exact || !sg) {
        fprintf(stderr, "dmx plan: out of memory (%d ranks)\n", r->p);
        goto done;
    }
    if ((st = dmx_relabel_volume_remote(v, NULL, &r->vol_identity)) != DMX_SUCCESS)
        goto done;
    double t0 = plan_now();
    if ((st = dmx_relabel_assign(&g, DMX_RELABEL_EXACT, r->sigma_exact, NULL)) != DMX_SUCCESS)
        goto done;
    r->t_exact = plan_now() - t0;
    t0 = plan_now();
    if ((st = dmx_relabel_assign(&g, DMX_RELABEL_GREEDY, sg, NULL)) != DMX_SUCCESS)
        goto done;
    r->t_greedy = plan_now() - t0;
    if ((st = dmx_relabel_volume_remote(v, r->sigma_exact, &r->vol_exact)) != DMX_SUCCESS ||
        (st = dmx_relabel_volume_remote(v, sg, &r->vol_greedy)) != DMX_SUCCESS)
        goto done;
    if (r->vol_exact > r->vol_greedy || r->vol_exact > r->vol_identity) {
        fprintf(stderr, "dmx plan: internal error: exact relabeling worse than greedy or "
                        "identity\n");
        goto done;
    }
    rc = 0;
done:
    if (st != DMX_SUCCESS)
        rc = fail(st);
    free(sg);
    return rc;
}

/* Volumes between two descriptions on p ranks (0: the least), then solve(). Returns 0 or 1. */
static int plan_pair(const dmx_relabel_desc *from, const dmx_relabel_desc *to, int transpose, int p,
                     plan_result *r)
{
    dmx_relabel_volume *v = NULL;
    double t0 = plan_now();
    dmx_status st = dmx_relabel_volume_create(from, to, transpose, p, &v);
    r->t_volume = plan_now() - t0;
    int rc = st != DMX_SUCCESS ? fail(st) : solve(v, r);
    dmx_relabel_volume_destroy(&v);
    return rc;
}

/* ---- Figure 3 ----------------------------------------------------------------------------- */

#define FIG3_N INT64_C(100000)
#define FIG3_GRID 10
#define FIG3_TARGET_BLOCK INT64_C(10000)

static const int64_t fig3_blocks[] = {1,    2,    3,    4,    5,    7,    10,   15,   20,
                                      30,   40,   50,   70,   100,  150,  200,  300,  400,
                                      500,  700,  1000, 1500, 2000, 2500, 3000, 4000, 5000,
                                      6000, 7000, 8000, 9000, 9500, 9800, 9900, 10000};
#define FIG3_NPOINTS ((int)(sizeof fig3_blocks / sizeof fig3_blocks[0]))

static int run_fig3(const char *csv, const char *svg, int json)
{
    fig3_point pt[FIG3_NPOINTS];
    for (int k = 0; k < FIG3_NPOINTS; k++) {
        dmx_relabel_desc from, to;
        memset(&from, 0, sizeof from);
        memset(&to, 0, sizeof to);
        from.kind = to.kind = DMX_RELABEL_DESC_BLOCK_CYCLIC;
        from.m = to.m = FIG3_N;
        from.n = to.n = FIG3_N;
        from.mb = from.nb = fig3_blocks[k];
        to.mb = to.nb = FIG3_TARGET_BLOCK;
        from.prow = from.pcol = to.prow = to.pcol = FIG3_GRID;
        from.order = 'R';
        to.order = 'C';
        plan_result r;
        memset(&r, 0, sizeof r);
        int rc = plan_pair(&from, &to, 0, 0, &r);
        free(r.sigma_exact);
        if (rc != 0)
            return rc;
        pt[k].block = fig3_blocks[k];
        pt[k].vol_identity = r.vol_identity;
        pt[k].vol_exact = r.vol_exact;
        pt[k].vol_greedy = r.vol_greedy;
        pt[k].red_exact = plan_percent(r.vol_identity, r.vol_exact);
        pt[k].red_greedy = plan_percent(r.vol_identity, r.vol_greedy);
        pt[k].t_exact = r.t_exact;
        pt[k].t_greedy = r.t_greedy;
        if (json)
            printf("{\"fig3\":true,\"block\":%lld,\"p\":%d,\"volume_identity\":%lld,"
                   "\"volume_exact\":%lld,\"volume_greedy\":%lld,\"reduction_exact\":%.4f,"
                   "\"reduction_greedy\":%.4f,\"t_exact\":%.6f,\"t_greedy\":%.6f}\n",
                   (long long)pt[k].block, r.p, (long long)r.vol_identity, (long long)r.vol_exact,
                   (long long)r.vol_greedy, pt[k].red_exact, pt[k].red_greedy, r.t_exact,
                   r.t_greedy);
    }
    if (!json) {
        printf("Figure 3: %lld x %lld matrix, %d x %d grid, row-major -> column-major ranks, "
               "final blocks %lld\n",
               (long long)FIG3_N, (long long)FIG3_N, FIG3_GRID, FIG3_GRID,
               (long long)FIG3_TARGET_BLOCK);
        printf("%8s %14s %14s %14s %9s %9s\n", "block", "remote id", "remote exact",
               "remote greedy", "exact %", "greedy %");
        for (int k = 0; k < FIG3_NPOINTS; k++)
            printf("%8lld %14lld %14lld %14lld %9.3f %9.3f\n", (long long)pt[k].block,
                   (long long)pt[k].vol_identity, (long long)pt[k].vol_exact,
                   (long long)pt[k].vol_greedy, pt[k].red_exact, pt[k].red_greedy);
    }
    if (csv) {
        FILE *f = fopen(csv, "w");
        if (!f) {
            fprintf(stderr, "dmx plan: cannot write %s: %s\n", csv, strerror(errno));
            return 1;
        }
        fprintf(f, "initial_block,volume_identity,volume_exact,volume_greedy,reduction_exact,"
                   "reduction_greedy\n");
        for (int k = 0; k < FIG3_NPOINTS; k++)
            fprintf(f, "%lld,%lld,%lld,%lld,%.4f,%.4f\n", (long long)pt[k].block,
                    (long long)pt[k].vol_identity, (long long)pt[k].vol_exact,
                    (long long)pt[k].vol_greedy, pt[k].red_exact, pt[k].red_greedy);
        if (fclose(f) != 0) {
            fprintf(stderr, "dmx plan: error writing %s\n", csv);
            return 1;
        }
    }
    if (svg && plan_write_svg(svg, pt, FIG3_NPOINTS) != 0)
        return 1;
    return 0;
}

/* ---- main --------------------------------------------------------------------------------- */

static void describe_bc(char *buf, size_t cap, const dmx_relabel_desc *d)
{
    snprintf(buf, cap, "%lldx%lld blocks on %dx%d %c", (long long)d->mb, (long long)d->nb, d->prow,
             d->pcol, d->order);
}

typedef struct plan_size {
    int64_t m, n;
} plan_size;

static int parse_size_opt(const char *v, void *dest)
{
    plan_size *z = dest;
    return plan_parse_size(v, &z->m, &z->n);
}

static int parse_bc_opt(const char *v, void *dest)
{
    return plan_parse_bc(v, dest);
}

/* The two sides of one dmx plan run, as the options give them, and their descriptions. */
typedef struct plan_sides {
    dmx_relabel_desc from, to;           /* block-cyclic sides (--from, --to) */
    const char *custom_from, *custom_to; /* custom sides' files (--custom-from, --custom-to) */
    custom_layout cf, ct;                /* the custom sides read from them */
    int transpose;
    int64_t m, n; /* the source's size (-1: not given) */
    char dfrom[160], dto[160];
} plan_sides;

/* Both sides block-cyclic: the target's size follows the source's. 0, or 1 after a message. */
static int plan_block_cyclic(plan_sides *s, plan_result *r)
{
    s->from.m = s->m;
    s->from.n = s->n;
    s->to.m = s->transpose ? s->n : s->m;
    s->to.n = s->transpose ? s->m : s->n;
    describe_bc(s->dfrom, sizeof s->dfrom, &s->from);
    describe_bc(s->dto, sizeof s->dto, &s->to);
    return plan_pair(&s->from, &s->to, s->transpose, 0, r) != 0;
}

/* The ranks a custom side needs: its procs line, or more if an owner is beyond it. */
static int custom_ranks(const custom_layout *c)
{
    int need = c->procs;
    for (int64_t k = 0; k < c->g.nrb * c->g.ncb; k++)
        if (c->owners[k] + 1 > need)
            need = c->owners[k] + 1;
    return need;
}

/* At least one custom side: the library brings both to grid form and overlays them. 0, or 1
 * after a message. */
static int plan_custom(plan_sides *s, plan_result *r)
{
    const dmx_relabel_desc *gs = &s->from, *gt = &s->to;
    int p = 1;
    if (s->custom_from) {
        if (read_custom(s->custom_from, &s->cf) != 0)
            return 1;
        gs = &s->cf.g;
        snprintf(s->dfrom, sizeof s->dfrom, "custom %s", s->custom_from);
    }
    if (s->custom_to) {
        if (read_custom(s->custom_to, &s->ct) != 0)
            return 1;
        gt = &s->ct.g;
        snprintf(s->dto, sizeof s->dto, "custom %s", s->custom_to);
    }
    /* size of the block-cyclic side(s): from --size or from the custom side */
    if (s->m < 0) {
        s->m = s->custom_from ? s->cf.g.m : (s->transpose ? s->ct.g.n : s->ct.g.m);
        s->n = s->custom_from ? s->cf.g.n : (s->transpose ? s->ct.g.m : s->ct.g.n);
    }
    if (!s->custom_from) {
        s->from.m = s->m;
        s->from.n = s->n;
        describe_bc(s->dfrom, sizeof s->dfrom, &s->from);
        p = s->from.prow * s->from.pcol;
    }
    if (!s->custom_to) {
        s->to.m = s->transpose ? s->n : s->m;
        s->to.n = s->transpose ? s->m : s->n;
        describe_bc(s->dto, sizeof s->dto, &s->to);
        if (s->to.prow * s->to.pcol > p)
            p = s->to.prow * s->to.pcol;
    }
    /* rank counts of the custom sides */
    const custom_layout *cs[2] = {s->custom_from ? &s->cf : NULL, s->custom_to ? &s->ct : NULL};
    for (int k = 0; k < 2; k++) {
        int need = cs[k] ? custom_ranks(cs[k]) : 0;
        if (need > p)
            p = need;
    }
    s->m = gs->m;
    s->n = gs->n;
    return plan_pair(gs, gt, s->transpose, p, r) != 0;
}

/* The outcome, as text or as one JSON object (--json). */
static void print_result(const plan_sides *s, const plan_result *r, int want_sigma, int json)
{
    if (json) {
        printf("{\"m\":%lld,\"n\":%lld,\"from\":", (long long)s->m, (long long)s->n);
        plan_json_string(stdout, s->dfrom);
        printf(",\"to\":");
        plan_json_string(stdout, s->dto);
        printf(",\"transpose\":%s,\"p\":%d,\"nnz\":%lld,\"volume_total\":%lld,"
               "\"volume_identity\":%lld,\"volume_exact\":%lld,\"volume_greedy\":%lld,"
               "\"reduction_exact\":%.4f,\"reduction_greedy\":%.4f,\"t_volume\":%.6f,"
               "\"t_exact\":%.6f,\"t_greedy\":%.6f",
               s->transpose ? "true" : "false", r->p, (long long)r->nnz, (long long)r->total,
               (long long)r->vol_identity, (long long)r->vol_exact, (long long)r->vol_greedy,
               plan_percent(r->vol_identity, r->vol_exact),
               plan_percent(r->vol_identity, r->vol_greedy), r->t_volume, r->t_exact, r->t_greedy);
        if (want_sigma)
            plan_print_sigma(stdout, r->sigma_exact, r->p, 1);
        printf("}\n");
        return;
    }
    printf("dmx plan: %lld x %lld%s, from %s to %s\n", (long long)s->m, (long long)s->n,
           s->transpose ? " (target transposed)" : "", s->dfrom, s->dto);
    printf("  ranks P                 %d\n", r->p);
    printf("  volume matrix           %lld nonzeros, %.6f s\n", (long long)r->nnz, r->t_volume);
    printf("  total volume            %lld elements\n", (long long)r->total);
    printf("  remote, identity        %lld elements\n", (long long)r->vol_identity);
    printf("  remote, exact           %lld elements  reduction %7.3f %%  solve %.6f s\n",
           (long long)r->vol_exact, plan_percent(r->vol_identity, r->vol_exact), r->t_exact);
    printf("  remote, greedy          %lld elements  reduction %7.3f %%  solve %.6f s\n",
           (long long)r->vol_greedy, plan_percent(r->vol_identity, r->vol_greedy), r->t_greedy);
    if (want_sigma)
        plan_print_sigma(stdout, r->sigma_exact, r->p, 0);
}

int dmx_cmd_plan(int argc, char **argv)
{
    plan_size z = {-1, -1};
    int want_sigma = 0, json = 0, fig3 = 0;
    const char *csv = NULL, *svg = NULL;
    plan_sides sd;
    memset(&sd, 0, sizeof sd);
    cli_opt opts[] = {
        CLI_FUNC_OPT("size", &z, parse_size_opt, "M,N with M, N >= 0", "M,N",
                     "source size (required with --from and --to)"),
        CLI_FUNC_OPT("from", &sd.from, parse_bc_opt, "MB,NB,PR,PC,ORD with ORD R or C",
                     "MB,NB,PR,PC,ORD", "block-cyclic source layout"),
        CLI_FUNC_OPT("to", &sd.to, parse_bc_opt, "MB,NB,PR,PC,ORD with ORD R or C",
                     "MB,NB,PR,PC,ORD", "block-cyclic target layout"),
        CLI_STR_OPT("custom-from", &sd.custom_from, "FILE", "source as a custom grid layout file"),
        CLI_STR_OPT("custom-to", &sd.custom_to, "FILE", "target as a custom grid layout file"),
        CLI_FLAG_OPT("transpose", &sd.transpose, "the target holds the transpose of the source"),
        CLI_FLAG_OPT("sigma", &want_sigma,
                     "also print the relabeling: role (target rank) j -> process\nsigma[j]"),
        CLI_FLAG_OPT("json", &json, "one JSON object (--fig3: one per point) instead of text"),
        CLI_FLAG_OPT("fig3", &fig3,
                     "the COSTA Figure 3 sweep: 1e5 x 1e5, 10 x 10 grid, R -> C,\ntarget "
                     "blocks 1e4, source blocks 1 .. 1e4"),
        CLI_STR_OPT("csv", &csv, "FILE", "write the Figure 3 curve as CSV; default none"),
        CLI_STR_OPT("svg", &svg, "FILE", "draw the Figure 3 curve (SVG); default none"),
    };
    opts[9].requires = opts[10].requires = "fig3";
    cli_spec spec = {
        "plan",
        0,
        "--size M,N --from MB,NB,PR,PC,ORD --to MB,NB,PR,PC,ORD [options]\n"
        "       dmx plan --custom-from FILE --custom-to FILE [options]\n"
        "       dmx plan --fig3 [--csv FILE] [--svg FILE] [--json]",
        "The offline relabeling planner (one process, no MPI): remote volume with the identity,\n"
        "exact and greedy relabelings. Layouts: block-cyclic with MB x NB blocks on a PR x PC\n"
        "process grid whose ranks are numbered row-major (ORD = R: rank = pr*PC + pc) or\n"
        "column-major (C: pr + pc*PR). The target has size M x N, or N x M with --transpose.\n"
        "Either side can be a custom grid layout read from a file (--size is then optional).\n"
        "P = the larger rank count; extra ranks own nothing.",
        opts,
        CLI_NOPTS(opts),
        "custom layout file (whitespace separated, '#' starts a comment):\n"
        "  size M N\n"
        "  rowsplits 0 r1 ... M      (nrb + 1 increasing values)\n"
        "  colsplits 0 c1 ... N      (ncb + 1 increasing values)\n"
        "  procs P                   (optional; default 1 + the largest owner)\n"
        "  owners                    followed by nrb * ncb ranks, block row by block row\n"};
    int pr = cli_parse(&spec, argc, argv, 1);
    if (pr != CLI_RUN)
        return pr == CLI_HELP ? 0 : 2;
    sd.m = z.m;
    sd.n = z.n;
    int have_from = cli_given(&spec, "from"), have_to = cli_given(&spec, "to");
    if (fig3 &&
        (have_from || have_to || sd.custom_from || sd.custom_to || want_sigma || sd.transpose)) {
        cli_error(&spec, "--fig3 takes only --csv, --svg and --json");
        return 2;
    }
    if (fig3)
        return run_fig3(csv, svg, json);
    if ((!have_from && !sd.custom_from) || (!have_to && !sd.custom_to) ||
        (have_from && sd.custom_from) || (have_to && sd.custom_to)) {
        cli_error(&spec, "give one source (--from or --custom-from) and one target (--to or "
                         "--custom-to)");
        return 2;
    }
    const int custom = sd.custom_from || sd.custom_to;
    if (!custom && sd.m < 0) {
        cli_error(&spec, "--size M,N is required with --from and --to");
        return 2;
    }
    plan_result r;
    memset(&r, 0, sizeof r);
    int rc = custom ? plan_custom(&sd, &r) : plan_block_cyclic(&sd, &r);
    if (rc == 0)
        print_result(&sd, &r, want_sigma, json);
    free(r.sigma_exact);
    custom_free(&sd.cf);
    custom_free(&sd.ct);
    return rc;
}
