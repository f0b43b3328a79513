/* SPDX-License-Identifier: BSD-3-Clause */
/* Probe of the message path at heap creation: which MPI method this MPI's one-sided component
 * does well. The fastest way to move strided data differs between Open MPI's components (osc
 * rdma and sm: one operation with a vector datatype; osc ucx: for small blocks a contiguous
 * origin with a vector target for puts and a contiguous get of the whole span for gets), and
 * MPI does not say which one serves a window, so dmx times them on the window it will use. *
 * Algorithm: every rank times, against its right neighbour (rank + 1 mod P), transfers of
 *   doubles at stride 2x the block: SMALL_N blocks of 1 element (vector datatype on both sides,
 *   one operation per block, pack into a contiguous origin with a vector target; for gets also
 *   one contiguous get of the span, with its unpack) and LARGE_N blocks of LARGE_E elements
 *   (vector, per block). Each is timed up to MPI_Win_flush, REPS times in turn after an untimed
 *   warm-up round; a rank keeps its minimum, then one allreduce takes the maximum over ranks,
 *   so every rank makes the same choices. Puts are timed only on heaps dmx allocated (the heap
 *   is zeroed again before creation returns); attached heaps hold the user's data and are only
 *   read (their puts follow the gets' result). For each kind and block class the choice is the
 *   vector unless another method took less than DMXI_RMA_PROBE_WIN (rma.h) of its time (then
 *   the fastest of them). The small probe has 4096 blocks because osc ucx's cost per block of a
 *   vector grows with the count: at 512 blocks it beat a put per block, at 10^6 it took twice
 *   as long.
 * Preconditions: the heap has a message window and at least 2 ranks, every heap holds at least
 *   SPAN_MAX (128 KiB) bytes (else nothing is probed and rma_select.c's built-in rules apply);
 *   collective.
 * Cost: a pilot (4 transfers of PILOT_N 1-element blocks, one allreduce; if it predicts more
 *   than BUDGET for the whole probe, the probe stops there), then 11 transfers x (REPS + 1) of
 *   at most 128 KiB span each, 2 barriers and one allreduce of 13 doubles. DMX_RMA_PROBE=2
 *   prints the times and the probe's own duration (docs/rma.md has measured ones).
 * Temporary memory: 128 KiB + 32 KiB. */
#include "rma.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SMALL_N = 4096, LARGE_N = 8, LARGE_E = 1024, REPS = 3, PILOT_N = 64 };
#define BUDGET 0.01 /* seconds the probe may take on a rank (estimated from the pilot) */
/* bytes a probe may touch at the target (both probes span 2 x their data) */
#define SPAN_MAX ((int64_t)(2 * LARGE_N * LARGE_E * 8))

/* Methods, and indices of the times t[kind * NM + m] (kind 0 put, 1 get). */
enum { M_VS = 0, M_BS = 1, M_PS = 2, M_VL = 3, M_BL = 4, M_SPAN = 5, NM = 6 };
static const char *mname[NM] = {"vector", "blocks", "pack", "vector", "blocks", "span"};

static dmx_status timed(dmx_rma_heap *h, int kind, int m, double *buf, double *pk, MPI_Datatype vs,
                        MPI_Datatype vl, double *t)
{
    dmx_status st = DMX_SUCCESS;
    int pe = (h->rank + 1) % h->size;
    double t0 = MPI_Wtime();
    int small = m == M_VS || m == M_BS || m == M_PS || m == M_SPAN;
    int n = small ? SMALL_N : LARGE_N, be = small ? 1 : LARGE_E;
    if (m == -1 || m == M_VS || m == M_VL) {
        MPI_Datatype v = m == M_VL ? vl : vs; /* the pilot passes its type as vs */
        if (kind == 0)
            DMXI_MPI(MPI_Put(buf, 1, v, pe, 0, 1, v, h->win));
        else
            DMXI_MPI(MPI_Get(buf, 1, v, pe, 0, 1, v, h->win));
    } else if (m == M_PS) {
        if (kind == 0) {
            for (int b = 0; b < n; b++)
                pk[b] = buf[2 * b];
            DMXI_MPI(MPI_Put(pk, n, MPI_DOUBLE, pe, 0, 1, vs, h->win));
        } else {
            DMXI_MPI(MPI_Get(pk, n, MPI_DOUBLE, pe, 0, 1, vs, h->win));
        }
    } else if (m == M_SPAN) {
        DMXI_MPI(MPI_Get(buf, 2 * n - 1, MPI_DOUBLE, pe, 0, 2 * n - 1, MPI_DOUBLE, h->win));
    } else {
        for (int b = 0; b < n; b++) {
            MPI_Aint d = (MPI_Aint)b * 2 * be * 8;
            if (kind == 0)
                DMXI_MPI(MPI_Put(buf + 2 * b * be, be, MPI_DOUBLE, pe, d, be, MPI_DOUBLE, h->win));
            else
                DMXI_MPI(MPI_Get(buf + 2 * b * be, be, MPI_DOUBLE, pe, d, be, MPI_DOUBLE, h->win));
        }
    }
    DMXI_MPI(MPI_Win_flush(pe, h->win));
    if (kind == 1 && m == M_PS)
        for (int b = 0; b < n; b++)
            buf[2 * b] = pk[b];
    if (m == M_SPAN)
        for (int b = 0; b < n; b++)
            pk[b] = buf[2 * b]; /* the unpack the span path does */
    *t = MPI_Wtime() - t0;
cleanup:
    return st;
}

/* The method among ms[0..n) with the least time, the first (vector) unless another beats it by
 * the factor DMXI_RMA_PROBE_WIN. */
static int pick(const double *t, const int *ms, int n)
{
    int best = ms[0];
    for (int i = 1; i < n; i++)
        if (t[ms[i]] < DMXI_RMA_PROBE_WIN * t[ms[0]] && t[ms[i]] < t[best])
            best = ms[i];
    return best;
}

static dmxi_rma_path path_of(int m)
{
    return m == M_BS || m == M_BL ? DMXI_RMA_BLOCKS : m == M_PS ? DMXI_RMA_PACK : DMXI_RMA_VECTOR;
}

dmx_status dmxi_rma_probe(dmx_rma_heap *h, int writable)
{
    dmx_status st = DMX_SUCCESS;
    MPI_Datatype vs = MPI_DATATYPE_NULL, vl = MPI_DATATYPE_NULL, vp = MPI_DATATYPE_NULL;
    double *buf = NULL, *pk = NULL, t[2 * NM + 1];
    int64_t mode = dmxi_setting_int(DMXI_SET_RMA_PROBE);
    int64_t minsize = INT64_MAX;
    int ok = 1;
    double t_probe = MPI_Wtime();
    memset(&h->tune, 0, sizeof h->tune);
    for (int r = 0; r < h->size; r++)
        minsize = h->sizes[r] < minsize ? h->sizes[r] : minsize;
    /* the same on every rank: sizes are allgathered; the setting is read per rank, so agree */
    int want = mode != 0 && h->win != MPI_WIN_NULL && h->size > 1 && minsize >= SPAN_MAX;
    DMXI_MPI(MPI_Allreduce(MPI_IN_PLACE, &want, 1, MPI_INT, MPI_MIN, h->comm));
    if (!want)
        goto cleanup;
    DMXI_MPI(MPI_Allreduce(MPI_IN_PLACE, &writable, 1, MPI_INT, MPI_MIN, h->comm));
    buf = dmxi_malloc(SPAN_MAX / 8, sizeof(double));
    pk = dmxi_malloc(SMALL_N, sizeof(double));
    ok = buf != NULL && pk != NULL;
    if (ok) {
        for (int64_t i = 0; i < SPAN_MAX / 8; i++)
            buf[i] = (double)i;
        DMXI_MPI(MPI_Type_vector(SMALL_N, 1, 2, MPI_DOUBLE, &vs));
        DMXI_MPI(MPI_Type_commit(&vs));
        DMXI_MPI(MPI_Type_vector(LARGE_N, LARGE_E, 2 * LARGE_E, MPI_DOUBLE, &vl));
        DMXI_MPI(MPI_Type_commit(&vl));
        DMXI_MPI(MPI_Type_vector(PILOT_N, 1, 2, MPI_DOUBLE, &vp));
        DMXI_MPI(MPI_Type_commit(&vp));
    }
    for (int i = 0; i < 2 * NM; i++)
        t[i] = 1e30;
    DMXI_MPI(MPI_Barrier(h->comm));
    {
        /* pilot: a put and a get of PILOT_N 1-element blocks; a window that is slow per
         * operation (osc rdma and ucx over MPI_Win_create'd POSIX memory: about 2 us per
         * block) would make the probe cost 100 ms or more: skip it there */
        double tp = 1e30;
        for (int rep = 0; ok && rep < 2; rep++)
            for (int kind = writable ? 0 : 1; ok && kind < 2; kind++) {
                double x = 0;
                dmx_status s = timed(h, kind, -1, buf, pk, vp, vp, &x);
                if (s != DMX_SUCCESS) {
                    ok = 0;
                    st = s;
                }
                tp = x < tp ? x : tp;
            }
        DMXI_MPI(MPI_Allreduce(MPI_IN_PLACE, &tp, 1, MPI_DOUBLE, MPI_MAX, h->comm));
        if (tp * (SMALL_N / PILOT_N) * 6 * (REPS + 1) > BUDGET)
            ok = 0;
    }
    double t_start = MPI_Wtime(), t_pilot = t_start - t_probe;
    /* a failure here must not leave the other ranks in the allreduce below: it only marks the
     * probe as failed (t[2 * NM]), and the status goes back after it */
    /* rep -1 warms up (first touches of buffers and of the window), untimed */
    for (int rep = -1; ok && rep < REPS && (rep <= 0 || MPI_Wtime() - t_start < BUDGET); rep++)
        for (int kind = writable ? 0 : 1; ok && kind < 2; kind++)
            for (int m = 0; ok && m < (kind ? NM : NM - 1); m++) {
                double x = 0;
                dmx_status s = timed(h, kind, m, buf, pk, vs, vl, &x);
                if (s != DMX_SUCCESS) {
                    ok = 0;
                    st = s;
                }
                if (rep >= 0 && x < t[kind * NM + m])
                    t[kind * NM + m] = x;
            }
    t[2 * NM] = ok ? 0 : 1; /* failed, skipped after the pilot, or not allocated */
    DMXI_MPI(MPI_Allreduce(MPI_IN_PLACE, t, 2 * NM + 1, MPI_DOUBLE, MPI_MAX, h->comm));
    if (writable) {
        /* puts wrote the neighbours' heaps: zero mine again once every put is complete (each
         * rank flushed its own above; the allreduce ordered them before this) */
        DMXI_MPI(MPI_Win_sync(h->win));
        memset(h->base, 0, (size_t)SPAN_MAX);
        DMXI_MPI(MPI_Win_sync(h->win));
        DMXI_MPI(MPI_Barrier(h->comm));
    }
    if (t[2 * NM] > 0)
        goto cleanup; /* some rank failed or skipped: built-in rules (a failure's status goes
                         back) */
    if (!writable)
        for (int m = 0; m < NM - 1; m++)
            t[m] = t[NM + m];
    int sm[3] = {M_VS, M_BS, M_PS}, lg[2] = {M_VL, M_BL}, chosen[2][2];
    for (int k = 0; k < 2; k++) {
        chosen[k][0] = pick(t + k * NM, sm, 3);
        chosen[k][1] = pick(t + k * NM, lg, 2);
        h->tune.small[k] = path_of(chosen[k][0]);
        h->tune.large[k] = path_of(chosen[k][1]);
        h->tune.small_block[k] = t[k * NM + chosen[k][0]] / SMALL_N;
    }
    h->tune.span_byte = t[NM + M_SPAN] / (double)((2 * SMALL_N - 1) * 8);
    h->tune.whole = t[NM + M_VS] < DMXI_RMA_PIECE_RATIO * t[NM + M_SPAN];
    h->tune.probed = 1;
    if (mode == 2 && h->rank == 0)
        fprintf(
            stderr,
            "dmx rma probe (np %d, us): put vector/blocks/pack small %.1f/%.1f/%.1f large "
            "%.1f/%.1f; get vector/blocks/pack small %.1f/%.1f/%.1f large %.1f/%.1f span "
            "%.1f -> put %s/%s, get %s/%s, %s (probe took %.2f ms, %.2f of them up to the end of "
            "the pilot, which includes "
            "MPI's first-use costs of the window)\n",
            h->size, t[0] * 1e6, t[1] * 1e6, t[2] * 1e6, t[3] * 1e6, t[4] * 1e6, t[NM] * 1e6,
            t[NM + 1] * 1e6, t[NM + 2] * 1e6, t[NM + 3] * 1e6, t[NM + 4] * 1e6, t[NM + 5] * 1e6,
            mname[chosen[0][0]], mname[chosen[0][1]], mname[chosen[1][0]], mname[chosen[1][1]],
            h->tune.whole ? "whole vectors" : "vectors in pieces", (MPI_Wtime() - t_probe) * 1e3,
            t_pilot * 1e3);
cleanup:
    if (vs != MPI_DATATYPE_NULL)
        DMXI_MPI_ALL(MPI_Type_free(&vs));
    if (vl != MPI_DATATYPE_NULL)
        DMXI_MPI_ALL(MPI_Type_free(&vl));
    if (vp != MPI_DATATYPE_NULL)
        DMXI_MPI_ALL(MPI_Type_free(&vp));
    free(buf);
    free(pk);
    return st;
}
