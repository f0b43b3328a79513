/* SPDX-License-Identifier: BSD-3-Clause */
/* Patch direct path: read or write a node peer's block memory with one system call per up to
 * 1024 contiguous runs (Linux cross-memory attach, process_vm_readv/writev).
 *
 * Why: a layout's blocks are user memory, which cannot be placed in a shared segment. MPI's
 *   one-sided components reach such memory on a node through one transport operation per
 *   contiguous run (a column of a block piece): about 5 us each here, 16x slower than pdgemr2d
 *   for a 256 x 256 patch. The kernel copies a whole list of runs in one call.
 * Algorithm: the piece's remote runs (contiguous along the owner's storage order) are listed as
 *   iovecs, at most 1024 runs and about 1 MiB per call. When buf's runs are contiguous too
 *   (op N with a column-major owner block, op T with a row-major one) the kernel copies straight
 *   between the two run lists; otherwise get reads into a bounce buffer and scatters it into buf
 *   with buf's strides, and put gathers first. The owner does nothing. Accumulates never come here
 * (they must be atomic against MPI_Accumulate). Preconditions: owner on this node (same node id at
 * open), the caller may trace the owner (same user; Yama ptrace_scope 0 or CAP_SYS_PTRACE); DMX_SHM
 * not 0. On any failure (EPERM, ENOSYS, a short copy) the path turns itself off for the window and
 * the caller uses MPI. Cost: ceil(runs/1024) system calls + 2 * bytes * beta_mem (kernel copy +
 * local scatter). Temporary memory: up to 1024 iovecs per side, a bounce buffer of max(1 MiB, one
 * run) when buf is strided along the runs.
 * dmxi_patch_cma_check (for patch windows without an MPI window, patch.c): every rank publishes
 * the address of a value on its stack (allgather), reads its right neighbour's with
 * process_vm_readv, and an allreduce agrees; two collectives, 8 bytes per rank. */
#define _GNU_SOURCE

#include "patch.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>

enum { CMA_RUNS = 1024 };
#define CMA_BYTES ((int64_t)1 << 20)

/* Returns 1 if the piece was moved, 0 if the caller must use MPI. */
int dmxi_patch_cma(dmx_patch *w, dmxi_rma_kind kind, int owner, const dmxi_patch_piece *p)
{
    if (!w->cma || w->pid[owner] == 0 || kind == DMXI_RMA_ACC)
        return 0;
    size_t es = w->esize;
    int rows_in = p->rs_r == 1;
    int64_t n_in = rows_in ? p->rows : p->cols, n_out = rows_in ? p->cols : p->rows;
    int64_t rs_out = rows_in ? p->rs_c : p->rs_r;
    int64_t ls_in = rows_in ? p->ls_r : p->ls_c, ls_out = rows_in ? p->ls_c : p->ls_r;
    size_t run = (size_t)n_in * es;
    int64_t per = CMA_BYTES / (int64_t)run;
    if (per < 1)
        per = 1;
    if (per > CMA_RUNS)
        per = CMA_RUNS;
    if (per > n_out)
        per = n_out;
    int direct = ls_in == 1; /* buf runs are contiguous too: no bounce buffer */
    char *tmp = direct ? NULL : malloc((size_t)per * run);
    struct iovec *riov = malloc((size_t)per * sizeof *riov);
    struct iovec *liovs = direct ? malloc((size_t)per * sizeof *liovs) : NULL;
    int ok = (direct ? liovs != NULL : tmp != NULL) && riov;
    for (int64_t k0 = 0; ok && k0 < n_out; k0 += per) {
        int64_t nk = n_out - k0 < per ? n_out - k0 : per;
        for (int64_t k = 0; k < nk; k++) {
            riov[k].iov_base = p->raddr + (size_t)((k0 + k) * rs_out) * es;
            riov[k].iov_len = run;
        }
        struct iovec liov = {tmp, (size_t)nk * run};
        if (direct) {
            for (int64_t k = 0; k < nk; k++) {
                liovs[k].iov_base = p->local + (size_t)((k0 + k) * ls_out) * es;
                liovs[k].iov_len = run;
            }
            ssize_t got = kind == DMXI_RMA_GET
                              ? process_vm_readv(w->pid[owner], liovs, (unsigned long)nk, riov,
                                                 (unsigned long)nk, 0)
                              : process_vm_writev(w->pid[owner], liovs, (unsigned long)nk, riov,
                                                  (unsigned long)nk, 0);
            ok = got == (ssize_t)((size_t)nk * run);
            continue;
        }
        if (kind == DMXI_RMA_PUT)
            for (int64_t k = 0; k < nk; k++)
                for (int64_t e = 0; e < n_in; e++)
                    memcpy(tmp + (size_t)(k * n_in + e) * es,
                           p->local + (size_t)(e * ls_in + (k0 + k) * ls_out) * es, es);
        ssize_t got = kind == DMXI_RMA_GET
                          ? process_vm_readv(w->pid[owner], &liov, 1, riov, (unsigned long)nk, 0)
                          : process_vm_writev(w->pid[owner], &liov, 1, riov, (unsigned long)nk, 0);
        if (got != (ssize_t)liov.iov_len) {
            ok = 0;
            break;
        }
        if (kind == DMXI_RMA_GET) {
            if (ls_in == 1) {
                for (int64_t k = 0; k < nk; k++)
                    memcpy(p->local + (size_t)((k0 + k) * ls_out) * es, tmp + (size_t)k * run, run);
            } else {
                for (int64_t k = 0; k < nk; k++)
                    for (int64_t e = 0; e < n_in; e++)
                        memcpy(p->local + (size_t)(e * ls_in + (k0 + k) * ls_out) * es,
                               tmp + (size_t)(k * n_in + e) * es, es);
            }
        }
    }
    free(tmp);
    free(riov);
    free(liovs);
    if (!ok)
        w->cma = 0; /* not permitted or not supported here: MPI from now on */
    return ok;
}

dmx_status dmxi_patch_cma_check(dmx_patch *w, int *ok)
{
    dmx_status st = DMX_SUCCESS;
    /* the value and its address, published by every rank; volatile keeps it in memory */
    volatile int64_t mine = 0x5eed0000 + (int64_t)w->rank;
    int64_t addr = (int64_t)(intptr_t)&mine, *all = NULL, got = -1;
    int right = (w->rank + 1) % w->size, good = 1;
    all = dmxi_malloc(w->size, sizeof(int64_t));
    good = all != NULL;
    DMXI_MPI(MPI_Allreduce(MPI_IN_PLACE, &good, 1, MPI_INT, MPI_MIN, w->comm));
    DMXI_CHECK(good, DMX_ERR_ALLOC, "out of memory (%d ranks)", w->size);
    DMXI_MPI(MPI_Allgather(&addr, 1, MPI_INT64_T, all, 1, MPI_INT64_T, w->comm));
    if (w->pid[right] != 0) {
        struct iovec l = {&got, sizeof got}, r = {(void *)(intptr_t)all[right], sizeof got};
        good = process_vm_readv(w->pid[right], &l, 1, &r, 1, 0) == (ssize_t)sizeof got &&
               got == 0x5eed0000 + (int64_t)right;
    } else {
        good = 0; /* not on this node */
    }
    /* mine must stay alive until every rank has read it: the allreduce is after every read */
    DMXI_MPI(MPI_Allreduce(MPI_IN_PLACE, &good, 1, MPI_INT, MPI_MIN, w->comm));
    *ok = good && mine != 0;
cleanup:
    free(all);
    return st;
}
