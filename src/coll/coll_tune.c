/* SPDX-License-Identifier: BSD-3-Clause */
/* Collectives: AUTO's tuning by measurement on the caller's communicator.
 *
 * The model (coll_model.c) ranks the algorithms of a cell, but on a shared or oversubscribed
 * machine the fastest one can differ from its prediction, and from one run to the next: at
 * np 4 on this project's 2-core machine the fastest algorithm changed between two runs of the
 * benchmark in 25 of 94 cells, and calibrations five minutes apart differed by up to 1.7x
 * (docs/coll.md). So the first AUTO calls of each (collective, size class) on a communicator
 * try a few candidates, and one allreduce of their times settles the choice for the
 * communicator's life.
 *
 * Candidates: the MPI library's own call (always: it is what the caller would otherwise use)
 * and every dmx algorithm the model predicts within TUNE_SPAN of its cheapest, in the order of
 * prediction, at most TUNE_MAXC: every algorithm of a broadcast, the collective with the most (with
 * six, the 2D grid broadcast, predicted last at np 4 and measured best from 2 MiB on, was never
 * tried). Cells the model predicts under TUNE_MIN_SECONDS are not tuned
 * (one call that short is mostly noise: at np 4 on 2 cores such trials picked worse than the
 * model). Each candidate runs twice in a row and the second call is timed (trial_cand); with
 * DMX_COLL_TUNE = R rounds (default 2, at most DMXI_COLL_TUNE_MAXR; 0 turns tuning off) every
 * round starts with the next candidate. After the 2 n R calls, one MPI_Allreduce (MAX) of the
 * n R times on the private duplicate: a candidate's score is its best round (the slowest rank
 * of one call; the best round drops a rank's preemption), the lowest score wins (ties: the
 * earlier candidate, the model's order), unless MPI's call scores within TUNE_MARGIN (5 %) of
 * it: then MPI's call. Every rank sees the same maxima, so every rank settles on the same
 * algorithm.
 *
 * Why every rank walks the same states: a collective's byte count is the same on every rank
 * (MPI's matching type signatures), so every rank maps a call to the same class, makes the same
 * calls of it in the same order, and finds or adds its entry in the same slot. What is the same
 * on every rank as well: the candidates (the model, loaded alike on every rank, as AUTO already
 * requires), DMX_COLL_TUNE (read on every rank; ranks must set it alike).
 *
 * Classes: four per octave of the model's byte count (bytes 0 and p 1 are not tuned). At most
 * TUNE_SLOTS classes per communicator; once they are taken, new classes take the model's
 * choice. A DMX_COLL_<NAME> override is not tuned. A failed trial call (an MPI error) is not
 * recorded; the error is returned.
 *
 * Memory: one table of TUNE_SLOTS entries (about 24 KiB) per communicator on which an AUTO call
 * started tuning, freed with the communicator's cache. Cost after settling: none (AUTO's memo
 * in coll_api.c holds the settled choice for the last size; a miss costs one table probe). */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "coll_internal.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

enum { TUNE_MAXC = 7, TUNE_SLOTS = 80 };
#define TUNE_SPAN 4.0
#define TUNE_MARGIN 1.05
#define TUNE_MIN_SECONDS 20e-6

struct dmxi_ctune {
    int kind, cls; /* cls -1: empty */
    int n, rounds; /* candidates, rounds */
    int t;         /* trial calls recorded */
    int alg;       /* the settled choice, -1 while trials remain */
    signed char cand[TUNE_MAXC];
    double time[TUNE_MAXC * DMXI_COLL_TUNE_MAXR]; /* [candidate * rounds + round] */
};

int dmxi_coll_tune_rounds = 2;
int dmxi_coll_test_slow_alg = -1;
double dmxi_coll_test_slow_s = 0;

/* Four classes per octave: bits above the leading one's two followers are dropped. */
static int size_class(int64_t bytes)
{
    int msb = 63 - __builtin_clzll((unsigned long long)bytes);
    int frac = msb >= 2 ? (int)((bytes >> (msb - 2)) & 3) : (int)((bytes << (2 - msb)) & 3);
    return msb * 4 + frac;
}

/* The candidates of a cell: the algorithms predicted within TUNE_SPAN of the best, in the order
 * of prediction (equal predictions in enum order), at most TUNE_MAXC, and MPI's call always
 * (last, if the span or the cut left it out). */
static int candidates(dmx_coll_kind kind, int p, int64_t bytes, int nodes, signed char *cand)
{
    double t_auto = 0;
    dmx_coll_alg first = DMX_COLL_MPI;
    if (dmx_coll_predict(kind, DMX_COLL_AUTO, p, bytes, nodes, &t_auto, &first) == DMX_SUCCESS &&
        t_auto < TUNE_MIN_SECONDS) {
        cand[0] = (signed char)first; /* too short to time one call of: the model's choice */
        return 1;
    }
    double pred[DMX_COLL_NALGS], best = INFINITY;
    int all[DMX_COLL_NALGS] = {0}, n = 0, m = 0, has_mpi = 0;
    for (int a = DMX_COLL_MPI; a < DMX_COLL_NALGS; a++) {
        double t = INFINITY;
        if (dmx_coll_alg_valid(kind, (dmx_coll_alg)a) &&
            dmx_coll_predict(kind, (dmx_coll_alg)a, p, bytes, nodes, &t, NULL) == DMX_SUCCESS &&
            t >= 0)
            pred[a] = t;
        else
            pred[a] = INFINITY;
        best = pred[a] < best ? pred[a] : best;
    }
    for (int a = DMX_COLL_MPI; a < DMX_COLL_NALGS; a++) {
        if (!(pred[a] <= TUNE_SPAN * best))
            continue;
        int i = m++;
        for (; i > 0 && pred[all[i - 1]] > pred[a]; i--)
            all[i] = all[i - 1];
        all[i] = a;
    }
    for (int i = 0; i < m && n < TUNE_MAXC; i++) {
        cand[n++] = (signed char)all[i];
        has_mpi |= all[i] == DMX_COLL_MPI;
    }
    if (!has_mpi) /* after the others, or in place of the last if they fill the list */
        cand[n < TUNE_MAXC ? n++ : n - 1] = DMX_COLL_MPI;
    return n;
}

/* The entry of (kind, cls) in cc's table, or a free one when make; NULL when absent (or the
 * table is full). The table is made on the first make. */
static dmx_status slot_of(dmxi_ccomm *cc, dmx_coll_kind kind, int cls, int make, dmxi_ctune **out)
{
    dmx_status st = DMX_SUCCESS;
    *out = NULL;
    if (cc->tune == NULL) {
        if (!make)
            goto cleanup;
        cc->tune = malloc(TUNE_SLOTS * sizeof *cc->tune);
        DMXI_CHECK(cc->tune != NULL, DMX_ERR_ALLOC, "out of memory (collectives' tuning table)");
        for (int i = 0; i < TUNE_SLOTS; i++)
            cc->tune[i].cls = -1;
    }
    unsigned h = ((unsigned)kind * 131u + (unsigned)cls) % TUNE_SLOTS;
    for (int k = 0; k < TUNE_SLOTS; k++) {
        dmxi_ctune *s = &cc->tune[(h + (unsigned)k) % TUNE_SLOTS];
        if (s->cls == cls && s->kind == (int)kind) {
            *out = s;
            break;
        }
        if (s->cls < 0) {
            *out = make ? s : NULL;
            break;
        }
    }
cleanup:
    return st;
}

/* Call t of a class: trial q = t / 2 (each candidate runs twice in a row and the second call
 * is timed: a call right after another algorithm's can be slower than in a run of its own,
 * which is what the caller will make), round q / n, candidate (q mod n + q / n) mod n. */
static int trial_cand(const dmxi_ctune *s)
{
    int q = s->t / 2, n = s->n;
    return (q % n + q / n) % n;
}

/* Model-only answer: tuning off, forced, one rank, zero bytes. */
static int untuned(dmx_coll_kind kind, const dmxi_ccomm *cc, int64_t bytes)
{
    return dmxi_coll_tune_rounds <= 0 || dmxi_coll_forced(kind) || cc->size <= 1 || bytes <= 0;
}

dmx_status dmxi_coll_tune_pick(dmxi_ccomm *cc, dmx_coll_kind kind, int64_t bytes, dmx_coll_alg *alg,
                               dmxi_ctune **trial)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_coll_model_init();
    *trial = NULL;
    *alg = dmxi_coll_choose(kind, DMX_COLL_AUTO, cc->size, bytes, cc->nodes);
    if (untuned(kind, cc, bytes))
        goto cleanup;
    int cls = size_class(bytes);
    dmxi_ctune *s = NULL;
    DMXI_TRY(slot_of(cc, kind, cls, 1, &s));
    if (s == NULL)
        goto cleanup; /* the table is full: the model's choice */
    if (s->cls < 0) {
        s->kind = (int)kind;
        s->cls = cls;
        s->t = 0;
        s->rounds = dmxi_coll_tune_rounds;
        s->n = candidates(kind, cc->size, bytes, cc->nodes, s->cand);
        s->alg = s->n <= 1 ? s->cand[0] : -1;
    }
    if (s->alg >= 0) {
        *alg = (dmx_coll_alg)s->alg;
        goto cleanup;
    }
    *alg = (dmx_coll_alg)s->cand[trial_cand(s)];
    *trial = s;
cleanup:
    return st;
}

dmx_status dmxi_coll_tune_record(dmxi_ccomm *cc, dmxi_ctune *s, double seconds)
{
    dmx_status st = DMX_SUCCESS;
    int n = s->n, r = s->t / 2 / n, c = trial_cand(s);
    if (s->t % 2 == 1)
        s->time[c * s->rounds + r] = seconds;
    if (++s->t < 2 * n * s->rounds)
        goto cleanup;
    double mx[TUNE_MAXC * DMXI_COLL_TUNE_MAXR];
    DMXI_MPI(MPI_Allreduce(s->time, mx, n * s->rounds, MPI_DOUBLE, MPI_MAX, cc->dup));
    int best = 0, impi = 0;
    double score[TUNE_MAXC] = {0};
    for (int i = 0; i < n; i++) {
        score[i] = INFINITY;
        for (int k = 0; k < s->rounds; k++)
            score[i] = mx[i * s->rounds + k] < score[i] ? mx[i * s->rounds + k] : score[i];
        best = score[i] < score[best] ? i : best;
        impi = s->cand[i] == DMX_COLL_MPI ? i : impi;
    }
    /* MPI's call within TUNE_MARGIN of the winner keeps the cell: the difference is within the
     * trials' noise, and repeats of MPI's call take the front end's shortcut (coll_api.c). */
    s->alg = s->cand[score[impi] <= TUNE_MARGIN * score[best] ? impi : best];
cleanup:
    return st;
}

void dmxi_coll_test_slow_wait(void)
{
    double s = dmxi_coll_test_slow_s;
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

dmx_status dmx_coll_auto_choice(MPI_Comm comm, dmx_coll_kind kind, int64_t bytes, dmx_coll_alg *alg,
                                int *settled)
{
    dmx_status st = DMX_SUCCESS;
    dmxi_ccomm *cc = NULL;
    DMXI_CHECK(alg != NULL && settled != NULL, DMX_ERR_NULL, "alg or settled is NULL");
    DMXI_CHECK(kind >= 0 && kind < DMX_COLL_NKINDS, DMX_ERR_ARG, "unknown collective %d",
               (int)kind);
    DMXI_CHECK(bytes >= 0, DMX_ERR_ARG, "bytes %lld < 0", (long long)bytes);
    DMXI_CHECK(comm != MPI_COMM_NULL, DMX_ERR_ARG, "communicator is MPI_COMM_NULL");
    DMXI_TRY(dmxi_ccomm_fast(comm, &cc));
    /* Read-only, unlike dmxi_coll_tune_pick: a query made on some ranks only must not add an
     * entry (it would move later classes to other slots there than on the other ranks). */
    dmxi_coll_model_init();
    *alg = dmxi_coll_choose(kind, DMX_COLL_AUTO, cc->size, bytes, cc->nodes);
    *settled = 1;
    if (untuned(kind, cc, bytes))
        goto cleanup;
    dmxi_ctune *s = NULL, *free_slot = NULL;
    DMXI_TRY(slot_of(cc, kind, size_class(bytes), 0, &s));
    if (s == NULL && cc->tune != NULL)
        DMXI_TRY(slot_of(cc, kind, size_class(bytes), 1, &free_slot));
    if (s != NULL && s->alg >= 0) {
        *alg = (dmx_coll_alg)s->alg;
    } else if (s != NULL) {
        *alg = (dmx_coll_alg)s->cand[trial_cand(s)];
        *settled = 0;
    } else if (cc->tune == NULL || free_slot != NULL) {
        /* not started, and a slot is free: the next call starts it unless one candidate */
        signed char cand[TUNE_MAXC];
        int n = candidates(kind, cc->size, bytes, cc->nodes, cand);
        *alg = (dmx_coll_alg)cand[0];
        *settled = n <= 1;
    }
cleanup:
    return st;
}
