/* SPDX-License-Identifier: BSD-3-Clause */
/* The node segment of a heap without MPI shared windows: POSIX shared memory.
 *
 * Why: one-sided components without the shared flavour (osc ucx, pt2pt, or rdma when forced)
 *   make MPI_Win_allocate_shared fail, and node peers would lose the direct path (at 1-element
 *   blocks osc ucx's vector put is 50x slower than a strided copy). The segment then comes
 *   from the operating system and MPI_Win_create opens it for the message path.
 * Algorithm: each node rank's part is rounded up to 4 KiB; an allgather over the node gives the
 *   offsets; the node's first rank creates "/dmx-rma-<pid>-<n>" with shm_open (O_EXCL) and
 *   ftruncate (zeroed pages), broadcasts the name, every node rank maps it, a node barrier, the
 *   creator unlinks the name (nothing is left behind if a process dies later). An allreduce
 *   over the communicator agrees whether every node succeeded; if not, all unmap and the caller
 *   falls back to MPI_Win_allocate.
 * Cost: three node collectives and one allreduce; one mmap per rank.
 * Memory: the node's heaps, mapped once per rank. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* madvise, MADV_POPULATE_WRITE */

#include "rma.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

dmx_status dmxi_rma_posix_segment(dmx_rma_heap *h, int64_t bytes, int *ok)
{
    dmx_status st = DMX_SUCCESS;
    static unsigned counter = 0;
    int nr = 0, nn = 0, good = 1, fd = -1;
    int64_t mine = (bytes + 4095) / 4096 * 4096, total = 0;
    int64_t *offs = NULL;
    int *cranks = NULL;
    char name[64] = "";
    char *seg = MAP_FAILED;
    *ok = 0;
    DMXI_MPI(MPI_Comm_rank(h->node, &nr));
    DMXI_MPI(MPI_Comm_size(h->node, &nn));
    offs = dmxi_malloc(nn + 1, sizeof(int64_t));
    cranks = dmxi_malloc(nn, sizeof(int));
    good = offs && cranks;
    DMXI_MPI(MPI_Allreduce(MPI_IN_PLACE, &good, 1, MPI_INT, MPI_MIN, h->comm));
    DMXI_CHECK(good, DMX_ERR_ALLOC, "out of memory (%d node ranks)", nn);
    DMXI_MPI(MPI_Allgather(&mine, 1, MPI_INT64_T, offs + 1, 1, MPI_INT64_T, h->node));
    DMXI_MPI(MPI_Allgather(&h->rank, 1, MPI_INT, cranks, 1, MPI_INT, h->node));
    offs[0] = 0;
    for (int i = 0; i < nn; i++)
        offs[i + 1] += offs[i];
    total = offs[nn] > 0 ? offs[nn] : 4096;
    if (nr == 0) {
        snprintf(name, sizeof name, "/dmx-rma-%ld-%u", (long)getpid(), counter++);
        fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
        if (fd < 0 || ftruncate(fd, (off_t)total) != 0)
            name[0] = '\0';
    }
    DMXI_MPI(MPI_Bcast(name, (int)sizeof name, MPI_CHAR, 0, h->node));
    good = name[0] != '\0';
    if (good && nr != 0)
        fd = shm_open(name, O_RDWR, 0);
    if (good && fd >= 0)
        seg = mmap(NULL, (size_t)total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (fd >= 0)
        close(fd);
    good = good && seg != MAP_FAILED;
    DMXI_MPI(MPI_Barrier(h->node));
    if (nr == 0 && name[0])
        shm_unlink(name);
    DMXI_MPI(MPI_Allreduce(MPI_IN_PLACE, &good, 1, MPI_INT, MPI_MIN, h->comm));
    if (!good)
        goto cleanup; /* every rank falls back alike */
    h->seg = seg;
    h->seglen = total;
    seg = MAP_FAILED;
    h->base = h->seg + offs[nr];
    h->kind = 4;
    for (int i = 0; i < nn; i++)
        h->peer[cranks[i]] = h->seg + offs[i];
    *ok = 1;
cleanup:
    if (seg != MAP_FAILED)
        munmap(seg, (size_t)total);
    free(offs);
    free(cranks);
    return st;
}

void dmxi_rma_posix_unmap(dmx_rma_heap *h)
{
    if (h->seg)
        munmap(h->seg, (size_t)h->seglen);
    h->seg = NULL;
}

/* Map the node peers' heaps in this process's page tables now, not at the first access.
 *
 * Why: a load or store to a page of a peer's segment that this process has not touched yet is
 *   a minor page fault (about 0.5-1 us); a patch fetch from a matrix in a heap touches a new
 *   page per column of a block, so a 256 x 256 fetch spent more on faults than on copying.
 * Algorithm: every rank writes zeros over its own part (the owner places its pages, as the
 *   first touch decides where memory lives), a node barrier, then every rank asks the kernel to
 *   fill its page tables for each peer's part (madvise MADV_POPULATE_WRITE, Linux 5.14; nothing
 *   if unsupported). Skipped when the peers' parts exceed PREFAULT_MAX bytes in all (page
 *   tables: 2 MiB per GiB), then faults happen at first access as before.
 * Cost: one node barrier, a memset of the heap, about 0.1 us per peer page.
 * Collective on h->node (kinds 2 and 4 only). */
#define PREFAULT_MAX ((int64_t)1 << 30)

dmx_status dmxi_rma_prefault(dmx_rma_heap *h, int64_t bytes)
{
    dmx_status st = DMX_SUCCESS;
    int64_t peers = 0;
    long pg = sysconf(_SC_PAGESIZE);
    if (bytes > 0)
        memset(h->base, 0, (size_t)bytes);
    DMXI_MPI(MPI_Barrier(h->node));
    for (int r = 0; r < h->size; r++)
        if (r != h->rank && h->peer[r])
            peers += h->sizes[r];
    if (peers > PREFAULT_MAX || pg <= 0)
        goto cleanup;
    for (int r = 0; r < h->size; r++) {
        if (r == h->rank || !h->peer[r] || h->sizes[r] <= 0)
            continue;
        uintptr_t a = (uintptr_t)h->peer[r], b = a + (uintptr_t)h->sizes[r];
        a = a / (uintptr_t)pg * (uintptr_t)pg;
#ifdef MADV_POPULATE_WRITE
        (void)madvise((void *)a, (size_t)(b - a), MADV_POPULATE_WRITE); /* a hint: may fail */
#else
        (void)b;
#endif
    }
cleanup:
    return st;
}
