/* Reduce on a binomial tree (the broadcast reversed): every rank combines the partial results
 * of its children, smallest subtree first, into its own and sends the sum to its parent.
 *
 * Algorithm: with v = (rank - root) mod p, for bits 2^j of increasing j: if v has bit j, send
 * the accumulator to v - 2^j and stop; else receive from v + 2^j (if < p) and combine.
 * Preconditions: a commutative op (every predefined MPI_Op is). acc holds the own input.
 * Cost: ceil(log2 p)(alpha + m beta + m gamma).
 * Temporary memory: m bytes (one received vector). */
#include "coll_internal.h"

dmx_status dmxi_reduce_binomial(const dmxi_cargs *a)
{
    dmx_status st = DMX_SUCCESS;
    int p = a->size, v = dmxi_mod((int64_t)a->rank - a->root, p);
    int64_t m = a->count * a->esize;
    void *tmp = NULL;
    if (p == 1)
        goto cleanup;
    tmp = dmxi_malloc(m, 1);
    DMXI_CHECK(tmp != NULL, DMX_ERR_ALLOC, "out of memory (binomial reduce)");
    for (int mask = 1; mask < p; mask <<= 1) {
        if (v & mask) {
            /* a leaf (mask 1) sends its input untouched */
            const void *src = mask == 1 ? dmxi_own_src(a, a->rbuf) : a->rbuf;
            DMXI_TRY(dmxi_c_send(src, m, (v - mask + a->root) % p, DMXI_COLL_TAG, a->comm));
            break;
        }
        if (v + mask < p) {
            DMXI_TRY(dmxi_c_recv(tmp, m, (v + mask + a->root) % p, DMXI_COLL_TAG, a->comm));
            DMXI_TRY(dmxi_c_reduce_local(tmp, a->rbuf, a->count, a->type, a->op));
        }
    }
cleanup:
    free(tmp);
    return st;
}
