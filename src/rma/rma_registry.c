/* SPDX-License-Identifier: BSD-3-Clause */
/* Registry of this process's symmetric heaps whose node peers are mapped here, so that other
 * parts of the module (patch windows over matrices living in a heap) can turn "offset o in rank
 * r's heap number id" into an address in this process.
 *
 * Algorithm: a heap with a node segment (kinds 2 and 4) gets an id at creation, drawn by its
 *   rank 0 (process id, a counter and the clock mixed into 64 bits) and broadcast, so every
 *   rank of the heap knows it by the same id; the heap is added to a process-wide list, removed
 *   at free. Lookups walk the list (a process holds few heaps).
 * Preconditions: heaps are created and freed from one thread at a time (as MPI_THREAD_FUNNELED
 *   programs do), like the rest of dmx.
 * Cost: creation one MPI_Bcast of 8 bytes; a lookup O(number of heaps).
 * Memory: one list node per registered heap. */
#include "rma.h"

#include <time.h>
#include <unistd.h>

typedef struct reg_node {
    dmx_rma_heap *h;
    struct reg_node *next;
} reg_node;

static reg_node *reg_head;
static uint64_t reg_counter;

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

dmx_status dmxi_rma_register(dmx_rma_heap *h)
{
    dmx_status st = DMX_SUCCESS;
    reg_node *n = NULL;
    uint64_t id = 0;
    if (h->rank == 0) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        id = mix64(((uint64_t)getpid() << 32) ^ ++reg_counter ^
                   mix64((uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec));
        if (id == 0)
            id = 1; /* 0 means "no heap" */
    }
    DMXI_MPI(MPI_Bcast(&id, 1, MPI_UINT64_T, 0, h->comm));
    h->id = id;
    n = malloc(sizeof *n);
    DMXI_CHECK(n != NULL, DMX_ERR_ALLOC, "out of memory");
    n->h = h;
    n->next = reg_head;
    reg_head = n;
cleanup:
    return st;
}

void dmxi_rma_unregister(dmx_rma_heap *h)
{
    for (reg_node **p = &reg_head; *p; p = &(*p)->next)
        if ((*p)->h == h) {
            reg_node *n = *p;
            *p = n->next;
            free(n);
            return;
        }
}

int dmxi_rma_heap_find(const void *p, int64_t len, uint64_t *id, int *rank, int64_t *off)
{
    uintptr_t a = (uintptr_t)p;
    for (reg_node *n = reg_head; n; n = n->next) {
        dmx_rma_heap *h = n->h;
        uintptr_t b = (uintptr_t)h->base;
        if (h->base && a >= b && len >= 0 && a - b <= (uint64_t)h->bytes &&
            (uint64_t)len <= (uint64_t)h->bytes - (a - b)) {
            *id = h->id;
            *rank = h->rank;
            *off = (int64_t)(a - b);
            return 1;
        }
    }
    return 0;
}

char *dmxi_rma_heap_peer(uint64_t id, int rank, int64_t off, int64_t len)
{
    for (reg_node *n = reg_head; n; n = n->next) {
        dmx_rma_heap *h = n->h;
        if (h->id != id || rank < 0 || rank >= h->size || !h->peer[rank])
            continue;
        if (off < 0 || len < 0 || off > h->sizes[rank] || len > h->sizes[rank] - off)
            return NULL;
        return h->peer[rank] + off;
    }
    return NULL;
}
