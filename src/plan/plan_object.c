/* SPDX-License-Identifier: BSD-3-Clause */
/* The plan object's own bookkeeping, used by every file that makes or keeps plans (plan.c,
 * plan_small.c, and through the cache's free functions plan_cache.c): its statistics from the
 * packages the engine holds, and its destruction (the engine's buffers, the private duplicate
 * given back to the pool, plan_comm.c). A leaf of the module: it calls the engine and the pool,
 * nothing that makes plans. */
#include "plan.h"

/* *sum += rows * cols, checked. */
static dmx_status add_area(int64_t *sum, int64_t rows, int64_t cols)
{
    dmx_status st = DMX_SUCCESS;
    int64_t a = 0;
    DMXI_TRY(dmxi_mul64(rows, cols, &a));
    DMXI_TRY(dmxi_add64(*sum, a, sum));
cleanup:
    return st;
}

dmx_status dmxi_plan_info_fill(dmx_plan *p)
{
    dmx_status st = DMX_SUCCESS;
    const dmxi_exec *e = &p->ex;
    p->info.send_elems = p->info.recv_elems = p->info.local_elems = 0;
    p->info.npeers_send = e->nspeer;
    p->info.npeers_recv = e->nrpeer;
    p->info.buffer_bytes = e->buffer_bytes;
    p->info.npeers_shared_memory = e->npeers_shm;
    for (int64_t i = 0; i < e->nsend; i++)
        DMXI_TRY(add_area(&p->info.send_elems, e->send[i].rows, e->send[i].cols));
    for (int64_t i = 0; i < e->nrecv; i++)
        DMXI_TRY(add_area(&p->info.recv_elems, e->recv[i].rows, e->recv[i].cols));
    for (int64_t i = 0; i < e->nlocal; i++)
        DMXI_TRY(add_area(&p->info.local_elems, e->local[i].rows, e->local[i].cols));
    /* counts of arrays that exist in memory: no overflow */
    p->info.plan_bytes = (e->nsend + e->nrecv) * (int64_t)sizeof *e->send +
                         e->nlocal * (int64_t)sizeof *e->local + e->nseg * (int64_t)sizeof *e->seg +
                         (int64_t)(e->nspeer + e->nrpeer) * (int64_t)sizeof *e->speer +
                         (e->rjoin ? e->nrecv * (int64_t)sizeof *e->rjoin + e->nlocal : 0);
cleanup:
    return st;
}

dmx_status dmx_plan_destroy(dmx_plan **plan)
{
    dmx_status st = DMX_SUCCESS;
    if (!plan || !*plan)
        return DMX_SUCCESS;
    dmx_plan *p = *plan;
    /* Free everything even after a failure; report the first one. */
    /* A plan whose execution gave up may leave messages on its communicator: not kept. */
    const int keep = !p->ex.broken;
    st = dmxi_exec_free(&p->ex);
    dmx_status st2 = dmxi_plan_comm_release(&p->comm, p->pool, p->slot, keep && st == DMX_SUCCESS);
    st = st == DMX_SUCCESS ? st2 : st;
    for (int k = 0; p->xf && k < p->nt; k++) {
        free(p->xf[k].amap);
        free(p->xf[k].bmap);
    }
    free(p->xf);
    free(p);
    *plan = NULL;
    return st;
}
