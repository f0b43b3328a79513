/* SPDX-License-Identifier: BSD-3-Clause */
/* Inside the directory of the planner (directory_geom.c: the regions; directory_wire.c: records
 * on the wire; directory.c: registration, pieces and the driver; directory_match.c: the sweep
 * that matches one region). Only these files include it. */
#ifndef DMXI_PLAN_DIRECTORY_H
#define DMXI_PLAN_DIRECTORY_H

#include "plan.h"

#include "exchange.h"

/* ---- the directory's partition of A's index space ------------------------------------------ */

typedef struct dir_geom {
    int64_t m, n;
    int64_t pr, pc, nreg; /* region grid and number of regions (0 for an empty matrix) */
    int64_t rbase, rrem;  /* the first rrem region rows have rbase + 1 rows, the others rbase */
    int64_t cbase, crem;
    int64_t size; /* ranks in the plan */
} dir_geom;

/* ---- records on the wire (int64_t fields only: no padding) --------------------------------- */

enum { SIDE_A = 0, SIDE_B = 1 };

/* A rectangle of A (side 0) or op(B) (side 1) in A's coordinates, clipped to a region. */
typedef struct dir_reg {
    int64_t r0, c0, rows, cols, k, side;
} dir_reg;

enum { NOTE_RECV = 0, NOTE_SEND = 1, NOTE_LOCAL = 2 };

/* A piece for its recipient: kind, rectangle (A's coordinates), the peer (plan rank), the A
 * block (RECV, LOCAL) and the B block (SEND, LOCAL) it lies in on the recipient. */
typedef struct dir_note {
    int64_t kind, r0, c0, rows, cols, peer, ka, kb;
} dir_note;

/* Outgoing records with their destinations: item i is v[i*(words+1)] (the destination)
 * followed by `words` int64_t of record. */
typedef struct outbox {
    int64_t *v;
    int64_t n, cap; /* items; cap counts int64_t */
    int64_t words;
    dmx_exchange_send *sends;
    int64_t nsend;
} outbox;

/* directory_geom.c. The region grid for m x n on size ranks (empty for an empty matrix). */
void dmxi_dir_geom_init(dir_geom *g, int64_t m, int64_t n, int size);
/* The part holding index x of an extent cut into parts of base (+1 for the first rem). */
int64_t dmxi_dir_part_of(int64_t base, int64_t rem, int64_t x);
/* The plan rank that keeps region k. */
int dmxi_dir_owner(const dir_geom *g, int64_t k);
/* The region this rank keeps, or -1; region k's rectangle [r0, r1) x [c0, c1). */
int64_t dmxi_dir_region_of(const dir_geom *g, int rank);
void dmxi_dir_region(const dir_geom *g, int64_t k, int64_t *r0, int64_t *c0, int64_t *r1,
                     int64_t *c1);

/* directory_wire.c. Queue a record for dest; then turn the queue into exchange sends (sorted by
 * destination); free the outbox's memory (leaves it empty). */
dmx_status dmxi_dir_outbox_add(outbox *ob, int64_t dest, const void *rec);
dmx_status dmxi_dir_outbox_pack(outbox *ob);
void dmxi_dir_outbox_free(outbox *ob);

/* The records of result entry i: *src, *data and *count records of rsize bytes. */
dmx_status dmxi_dir_records(const dmx_exchange_result *res, int64_t i, size_t rsize, int *src,
                            const unsigned char **data, int64_t *count);

/* Step 2 (directory_match.c): match the registrations this rank received for its region and
 * queue one notification per intersection (and per owner) in notes. Local. */
dmx_status dmxi_dir_match_region(const dir_geom *g, const dmx_plan *p, const dmxi_xform *x,
                                 const dmx_exchange_result *res, outbox *notes);

#endif
