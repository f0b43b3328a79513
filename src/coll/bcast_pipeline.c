/* SPDX-License-Identifier: BSD-3-Clause */
/* Broadcast on a ring, pipelined: the message is cut into r segments that follow each other
 * along the ring, so a rank forwards segment i while it receives segment i+1.
 *
 * Algorithm: every rank but the root posts a receive for each segment at once; then for each
 * segment in order it waits for it and starts sending it on (all but the last rank of the ring).
 * Preconditions: none; r = a->nseg (chosen by the model, or DMX_COLL_SEGMENTS), clipped to
 * [1, m] and raised so that no segment exceeds INT_MAX bytes.
 * Cost (seed): (p + r - 2) (alpha + m beta / r), minimal for r = sqrt(m (p-2) beta / alpha),
 * giving (sqrt((p-2) alpha) + sqrt(m beta))^2. The model adds a per-segment overhead o per hop,
 * (p + r - 2)(alpha + m beta / r + o), which is what makes few segments best on an
 * oversubscribed node.
 * Temporary memory: 2r MPI_Requests. */
#include "coll_internal.h"

dmx_status dmxi_bcast_pipeline(const dmxi_cargs *a)
{
    dmx_status st = DMX_SUCCESS;
    MPI_Request *rq = NULL;
    int p = a->size, v = dmxi_mod((int64_t)a->rank - a->root, p);
    int prev = (a->rank - 1 + p) % p, next = (a->rank + 1) % p;
    int64_t bytes = a->count * a->esize, r = a->nseg;
    if (p == 1 || bytes == 0)
        goto cleanup;
    if (r < 1)
        r = 1;
    if (r > bytes)
        r = bytes;
    if (bytes / r >= INT_MAX)
        r = bytes / (INT_MAX / 2) + 1;
    DMXI_CHECK(r <= INT_MAX / 2, DMX_ERR_OVERFLOW, "too many pipeline segments");
    rq = dmxi_malloc(2 * r, sizeof *rq);
    DMXI_CHECK(rq != NULL, DMX_ERR_ALLOC, "out of memory (pipeline requests)");
    for (int64_t i = 0; i < 2 * r; i++)
        rq[i] = MPI_REQUEST_NULL;
    char *buf = a->rbuf;
    if (v > 0)
        for (int64_t i = 0; i < r; i++) {
            int64_t o = dmxi_blk_off(bytes, (int)r, (int)i);
            int n = (int)(dmxi_blk_off(bytes, (int)r, (int)i + 1) - o);
            DMXI_MPI(MPI_Irecv(buf + o, n, MPI_BYTE, prev, DMXI_COLL_TAG, a->comm, &rq[i]));
        }
    for (int64_t i = 0; i < r; i++) {
        int64_t o = dmxi_blk_off(bytes, (int)r, (int)i);
        int n = (int)(dmxi_blk_off(bytes, (int)r, (int)i + 1) - o);
        if (v > 0)
            DMXI_MPI(MPI_Wait(&rq[i], MPI_STATUS_IGNORE));
        if (v < p - 1)
            DMXI_MPI(MPI_Isend(buf + o, n, MPI_BYTE, next, DMXI_COLL_TAG, a->comm, &rq[r + i]));
    }
    DMXI_MPI(dmxi_waitall((int)(2 * r), rq));
cleanup:
    if (rq && st != DMX_SUCCESS) /* do not leave requests behind on an error path */
        for (int64_t i = 0; i < 2 * r; i++)
            if (rq[i] != MPI_REQUEST_NULL) {
                DMXI_MPI_ALL(MPI_Cancel(&rq[i]));
                DMXI_MPI_ALL(MPI_Request_free(&rq[i]));
            }
    free(rq);
    return st;
}
