/* SPDX-License-Identifier: BSD-3-Clause */
/* Self-checking tests of the sparse data exchange (include/dmx/exchange.h).
 *
 * Every rank builds the same global send pattern from a seeded RNG common to all ranks, so it
 * knows who sends it what without asking (the library is never told). Payload byte b of entry
 * j that rank s sends to rank d in round r is a closed formula of (s, d, r, j, b), so every
 * receiver checks its entries, their order (by source, then send order) and their contents on
 * its own. Failures are summed over ranks per case; rank 0 prints "FAIL ..." lines and the
 * closing line "N passed, N failed"; every rank exits non-zero if anything failed.
 *
 * Cases: every protocol (and AUTO, and the DMX_EXCHANGE override) x patterns (k random
 * neighbors, nothing to send, only to self, everyone to one rank, all to all, 0-byte payloads,
 * payloads up to 1 MiB, several entries to one destination, a random mix), blocking and
 * split-phase (with computation and user traffic on the same communicator in between), 60
 * back-to-back rounds with a different pattern and protocol each, a sub-communicator that is
 * freed afterwards, the internal entry point, and errors on some ranks (bad destination, a
 * payload over INT_MAX, a NULL payload) that must fail alike on every rank and leave nothing
 * behind for the next round; a model file's `exchange = ...` replacing the one-node rule.
 *
 * Settings: DMX_TEST_SEED (default 20240521), DMX_TEST_TIMEOUT seconds (default 240). */
#define _POSIX_C_SOURCE 200809L

#include "dmx.h"
#include "dmxt_util.h"
#include "exchange/exchange.h"

#include <mpi.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------------------------------ */
/* The payload formula (random patterns come from dmxt_rng, tests/common/dmxt_util.h)          */
/* ------------------------------------------------------------------------------------------ */

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static uint64_t entry_key(int src, int dst, int round, int j)
{
    uint64_t h = mix64((uint64_t)src + 1);
    h = mix64(h ^ ((uint64_t)dst + 0x100));
    h = mix64(h ^ ((uint64_t)round + 0x10000));
    return mix64(h ^ ((uint64_t)j + 0x1000000));
}

/* Byte b of the payload with key k: 8 bytes per mixed word. */
static unsigned char payload_byte(uint64_t k, int64_t b)
{
    uint64_t w = mix64(k ^ (uint64_t)(b >> 3));
    return (unsigned char)(w >> (8 * (b & 7)));
}

static void fill_payload(unsigned char *p, int64_t n, uint64_t k)
{
    for (int64_t b = 0; b < n; b += 8) {
        uint64_t w = mix64(k ^ (uint64_t)(b >> 3));
        for (int64_t i = b; i < n && i < b + 8; i++)
            p[i] = (unsigned char)(w >> (8 * (i & 7)));
    }
}

/* Index of the first wrong byte, or -1. */
static int64_t check_payload(const unsigned char *p, int64_t n, uint64_t k)
{
    for (int64_t b = 0; b < n; b++)
        if (p[b] != payload_byte(k, b))
            return b;
    return -1;
}

/* ------------------------------------------------------------------------------------------ */
/* Patterns: the global list of entries, identical on every rank                                */
/* ------------------------------------------------------------------------------------------ */

enum {
    PAT_RANDOM_K,
    PAT_EMPTY,
    PAT_SELF,
    PAT_TO_ONE,
    PAT_ALL,
    PAT_ZERO,
    PAT_LARGE,
    PAT_MULTI,
    PAT_MIXED,
    NPAT
};
static const char *pat_name[NPAT] = {"random-k",   "empty", "self",  "to-one", "all-to-all",
                                     "zero-bytes", "large", "multi", "mixed"};

typedef struct tent {
    int src, dest, j;
    int64_t bytes;
} tent;

typedef struct pattern {
    int64_t n, cap;
    tent *e; /* grouped by src, in send order */
} pattern;

static void pat_add(pattern *pt, int src, int dest, int64_t bytes)
{
    if (pt->n == pt->cap) {
        pt->cap = pt->cap ? 2 * pt->cap : 64;
        pt->e = realloc(pt->e, (size_t)pt->cap * sizeof *pt->e);
        if (!pt->e)
            abort();
    }
    int j = 0;
    for (int64_t i = pt->n - 1; i >= 0 && pt->e[i].src == src; i--)
        j++;
    pt->e[pt->n++] = (tent){src, dest, j, bytes};
}

/* Some destination other than src (P > 1). */
static int other_rank(dmxt_rng *r, int src, int P)
{
    int d = (int)dmxt_rng_int(r, 0, P - 2);
    return d >= src ? d + 1 : d;
}

static void make_pattern(pattern *pt, int kind, int P, dmxt_rng *r)
{
    pt->n = 0;
    int root = (int)dmxt_rng_int(r, 0, P - 1);
    for (int s = 0; s < P; s++) {
        switch (kind) {
        case PAT_RANDOM_K: {
            int k = P - 1 < 3 ? P - 1 : 3;
            int chosen[3] = {-1, -1, -1};
            for (int i = 0; i < k; i++) {
                int d, dup;
                do {
                    d = other_rank(r, s, P);
                    dup = 0;
                    for (int q = 0; q < i; q++)
                        dup |= chosen[q] == d;
                } while (dup);
                chosen[i] = d;
                pat_add(pt, s, d, dmxt_rng_int(r, 1, 300));
            }
            break;
        }
        case PAT_EMPTY: break;
        case PAT_SELF: {
            int n = (int)dmxt_rng_int(r, 1, 3);
            for (int i = 0; i < n; i++)
                pat_add(pt, s, s, dmxt_rng_int(r, 0, 100));
            break;
        }
        case PAT_TO_ONE: pat_add(pt, s, root, dmxt_rng_int(r, 1, 64)); break;
        case PAT_ALL: {
            int start = (int)dmxt_rng_int(r, 0, P - 1);
            for (int i = 0; i < P; i++)
                pat_add(pt, s, (start + i) % P, dmxt_rng_int(r, 0, 50));
            break;
        }
        case PAT_ZERO: {
            int n = (int)dmxt_rng_int(r, 0, 3);
            for (int i = 0; i < n; i++)
                pat_add(pt, s, (int)dmxt_rng_int(r, 0, P - 1), 0);
            break;
        }
        case PAT_LARGE:
            /* two ranks send 1 MiB (and 1 MiB - 3) to their successor, everyone a page to
             * itself and a mid-size payload to a random rank */
            if (s < 2)
                pat_add(pt, s, (s + 1) % P, (INT64_C(1) << 20) - 3 * s);
            pat_add(pt, s, s, 4096);
            pat_add(pt, s, (int)dmxt_rng_int(r, 0, P - 1), dmxt_rng_int(r, 10000, 70000));
            break;
        case PAT_MULTI: {
            int a = (int)dmxt_rng_int(r, 0, P - 1), b = (int)dmxt_rng_int(r, 0, P - 1);
            int n = (int)dmxt_rng_int(r, 2, 5);
            for (int i = 0; i < n; i++)
                pat_add(pt, s, dmxt_rng_int(r, 0, 1) ? a : b, dmxt_rng_int(r, 0, 200));
            break;
        }
        case PAT_MIXED: {
            int n = (int)dmxt_rng_int(r, 0, 6);
            for (int i = 0; i < n; i++) {
                int64_t c = dmxt_rng_int(r, 0, 9), bytes;
                if (c < 7)
                    bytes = dmxt_rng_int(r, 0, 64);
                else if (c < 9)
                    bytes = 0;
                else
                    bytes = dmxt_rng_int(r, 1000, 20000);
                pat_add(pt, s, (int)dmxt_rng_int(r, 0, P - 1), bytes);
            }
            break;
        }
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Driver state                                                                                 */
/* ------------------------------------------------------------------------------------------ */

static int world_rank, world_size;
static dmxt_count results; /* cases, each summed over ranks */
static char current[256];
static int global_round; /* payload formula's round; advances identically on every rank */

static void on_alarm(int sig)
{
    (void)sig;
    static const char m[] = "test_exchange: timeout (hang?) in case: ";
    if (write(2, m, sizeof m - 1) < 0 || write(2, current, strlen(current)) < 0 ||
        write(2, "\n", 1) < 0)
        _exit(3);
    _exit(3);
}

static void appendf(char *buf, size_t len, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void appendf(char *buf, size_t len, const char *fmt, ...)
{
    size_t used = strlen(buf);
    if (used + 1 >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
}

/* End one case: sum problems over comm's ranks (the world here), report on rank 0. */
static void case_end(int64_t bad, const char *msg, const char *desc)
{
    int64_t total = 0;
    MPI_Allreduce(&bad, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (total == 0) {
        results.passed++;
        return;
    }
    results.failed++;
    /* gather the first message of every rank that has one */
    char line[256] = "";
    if (bad)
        snprintf(line, sizeof line, "%s", msg);
    char *all = NULL;
    if (world_rank == 0)
        all = calloc((size_t)world_size, sizeof line);
    MPI_Gather(line, (int)sizeof line, MPI_CHAR, all, (int)sizeof line, MPI_CHAR, 0,
               MPI_COMM_WORLD);
    if (world_rank == 0) {
        printf("FAIL %s (%lld problems)\n", desc, (long long)total);
        for (int q = 0; q < world_size; q++)
            if (all[q * sizeof line])
                printf("  rank %d: %s\n", q, all + q * sizeof line);
        fflush(stdout);
        free(all);
    }
}

/* The payload buffers of this rank's entries in pattern pt, for round `round`. */
typedef struct sendset {
    int64_t n;
    dmx_exchange_send *s;
    unsigned char **bufs;
} sendset;

static void sendset_make(sendset *ss, const pattern *pt, int me, int round)
{
    ss->n = 0;
    for (int64_t i = 0; i < pt->n; i++)
        ss->n += pt->e[i].src == me;
    ss->s = calloc((size_t)ss->n + 1, sizeof *ss->s);
    ss->bufs = calloc((size_t)ss->n + 1, sizeof *ss->bufs);
    int64_t k = 0;
    for (int64_t i = 0; i < pt->n; i++) {
        const tent *e = &pt->e[i];
        if (e->src != me)
            continue;
        unsigned char *b = NULL;
        /* 0-byte payloads alternate between a NULL and a real pointer */
        if (e->bytes > 0 || e->j % 2 == 0) {
            b = malloc((size_t)e->bytes + 1);
            fill_payload(b, e->bytes, entry_key(e->src, e->dest, round, e->j));
        }
        ss->bufs[k] = b;
        ss->s[k] = (dmx_exchange_send){e->dest, b, e->bytes};
        k++;
    }
}

static void sendset_free(sendset *ss)
{
    for (int64_t i = 0; i < ss->n; i++)
        free(ss->bufs[i]);
    free(ss->bufs);
    free(ss->s);
}

/* Check a result against what pattern pt sends to rank me in round `round`: the entries of
 * every source in rank order, each source's in its send order. Returns problems found. */
static int64_t check_result(const dmx_exchange_result *res, const pattern *pt, int me, int round,
                            dmx_exchange_protocol want_proto, char *msg, size_t len)
{
    int64_t bad = 0, count = 0, k = 0;
    dmx_exchange_info info;
    if (dmx_exchange_result_get_count(res, &count) != DMX_SUCCESS ||
        dmx_exchange_result_get_info(res, &info) != DMX_SUCCESS) {
        appendf(msg, len, "result accessors failed");
        return 1;
    }
    /* pattern entries are grouped by source in ascending order, so scanning them in order
     * yields the expected result order */
    for (int64_t i = 0; i < pt->n; i++) {
        const tent *e = &pt->e[i];
        if (e->dest != me)
            continue;
        if (k >= count) {
            k++;
            continue;
        }
        int src = -1;
        const void *data = NULL;
        int64_t bytes = -1;
        dmx_exchange_result_get(res, k, &src, &data, &bytes);
        if (src != e->src || bytes != e->bytes) {
            if (!bad)
                appendf(msg, len, "entry %lld: source %d, %lld bytes; want %d, %lld", (long long)k,
                        src, (long long)bytes, e->src, (long long)e->bytes);
            bad++;
        } else if (data == NULL || (uintptr_t)data % _Alignof(max_align_t) != 0) {
            if (!bad)
                appendf(msg, len, "entry %lld: payload pointer NULL or misaligned", (long long)k);
            bad++;
        } else {
            int64_t w = check_payload(data, bytes, entry_key(e->src, me, round, e->j));
            if (w >= 0) {
                if (!bad)
                    appendf(msg, len, "entry %lld from %d: wrong payload byte %lld", (long long)k,
                            src, (long long)w);
                bad++;
            }
        }
        k++;
    }
    if (k != count) {
        if (!bad)
            appendf(msg, len, "expected %lld entries, got %lld", (long long)k, (long long)count);
        bad++;
    }
    if (info.nrecv != count) {
        if (!bad)
            appendf(msg, len, "info.nrecv %lld != count %lld", (long long)info.nrecv,
                    (long long)count);
        bad++;
    }
    if (want_proto != DMX_EXCHANGE_AUTO && info.protocol != want_proto) {
        if (!bad)
            appendf(msg, len, "ran protocol %s, asked for %s",
                    dmx_exchange_protocol_name(info.protocol),
                    dmx_exchange_protocol_name(want_proto));
        bad++;
    }
    if (info.protocol == DMX_EXCHANGE_AUTO) {
        if (!bad)
            appendf(msg, len, "info.protocol is AUTO");
        bad++;
    }
    return bad;
}

/* ------------------------------------------------------------------------------------------ */
/* One exchange, checked                                                                        */
/* ------------------------------------------------------------------------------------------ */

enum { MODE_BLOCKING, MODE_SPLIT, MODE_INTERNAL };

/* Split-phase: computation and user traffic on comm (with the library's own tag values and
 * wildcard receives) between begin and end; returns problems found in the user traffic. */
static int64_t work_between(MPI_Comm comm, dmx_exchange_request *req, char *msg, size_t len)
{
    int rank, size, bad = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int out = 1000 + rank, in = -1;
    MPI_Request rq[2];
    MPI_Status stat;
    MPI_Irecv(&in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &rq[0]);
    MPI_Isend(&out, 1, MPI_INT, (rank + 1) % size, DMXI_XCHG_TAG_BASE, comm, &rq[1]);
    volatile double acc = 0;
    int done = 0;
    for (int it = 0; it < 20; it++) {
        for (int i = 0; i < 20000; i++)
            acc += (double)i * 1e-9;
        if (!done && dmx_exchange_test(req, &done) != DMX_SUCCESS) {
            appendf(msg, len, "dmx_exchange_test failed: %s", dmx_last_error());
            bad++;
            break;
        }
    }
    MPI_Wait(&rq[0], &stat);
    MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
    int from = (rank + size - 1) % size;
    if (in != 1000 + from || stat.MPI_SOURCE != from) {
        appendf(msg, len, "user message wrong: %d from %d", in, stat.MPI_SOURCE);
        bad++;
    }
    return bad;
}

/* Run pattern pt through one exchange on comm and check the result on this rank. */
static int64_t run_exchange(MPI_Comm comm, dmx_exchange_protocol proto, const pattern *pt, int mode,
                            int tag, char *msg, size_t len)
{
    int me;
    MPI_Comm_rank(comm, &me);
    int round = global_round++;
    sendset ss;
    sendset_make(&ss, pt, me, round);
    dmx_exchange_result *res = NULL;
    dmx_status st = DMX_SUCCESS;
    int64_t bad = 0;
    if (mode == MODE_BLOCKING) {
        st = dmx_exchange(comm, proto, ss.n, ss.n ? ss.s : NULL, &res);
    } else if (mode == MODE_SPLIT) {
        dmx_exchange_request *req = NULL;
        st = dmx_exchange_begin(comm, proto, ss.n, ss.s, &req);
        if (st == DMX_SUCCESS) {
            bad += work_between(comm, req, msg, len);
            st = dmx_exchange_end(&req, &res);
            if (req != NULL) {
                appendf(msg, len, "end left the request set");
                bad++;
            }
        }
    } else {
        st = dmxi_exchange(comm, tag, proto, ss.n, ss.s, &res);
    }
    if (st != DMX_SUCCESS) {
        char e[200];
        snprintf(e, sizeof e, "%s: %s", dmx_status_string(st), dmx_last_error());
        appendf(msg, len, "exchange failed: %s", e);
        bad++;
    } else {
        bad += check_result(res, pt, me, round, proto, msg, len);
    }
    dmx_exchange_result_destroy(&res);
    if (res != NULL)
        bad++;
    sendset_free(&ss);
    return bad;
}

static const dmx_exchange_protocol all_protos[] = {
    DMX_EXCHANGE_AUTO, DMX_EXCHANGE_NBX, DMX_EXCHANGE_PEX, DMX_EXCHANGE_PCX, DMX_EXCHANGE_RSX};
enum { NPROTO = 5 };

/* ------------------------------------------------------------------------------------------ */
/* Case groups                                                                                  */
/* ------------------------------------------------------------------------------------------ */

/* Every protocol x pattern, blocking; and split-phase for a subset. */
static void test_patterns(dmxt_rng *r)
{
    pattern pt = {0};
    for (int p = 0; p < NPROTO; p++) {
        for (int k = 0; k < NPAT; k++) {
            for (int mode = MODE_BLOCKING; mode <= MODE_SPLIT; mode++) {
                if (mode == MODE_SPLIT && k != PAT_RANDOM_K && k != PAT_MIXED && k != PAT_LARGE &&
                    k != PAT_EMPTY)
                    continue;
                char desc[160], msg[256] = "";
                snprintf(desc, sizeof desc, "%s %s %s", dmx_exchange_protocol_name(all_protos[p]),
                         pat_name[k], mode == MODE_SPLIT ? "split-phase" : "blocking");
                snprintf(current, sizeof current, "%s", desc);
                make_pattern(&pt, k, world_size, r);
                int64_t bad =
                    run_exchange(MPI_COMM_WORLD, all_protos[p], &pt, mode, 0, msg, sizeof msg);
                case_end(bad, msg, desc);
            }
        }
    }
    free(pt.e);
}

/* Back-to-back rounds with a different pattern and protocol each: a fast rank starting the
 * next round must not have its messages taken by a slow rank still in this one. One rank
 * (changing) dawdles before each round to stretch the skew. */
static void test_rounds(dmxt_rng *r, int nrounds, int nbx_only, const char *name)
{
    pattern pt = {0};
    int64_t bad = 0;
    char msg[256] = "";
    for (int i = 0; i < nrounds; i++) {
        int k = (int)dmxt_rng_int(r, 0, NPAT - 1);
        if (k == PAT_LARGE)
            k = PAT_MIXED;
        dmx_exchange_protocol p =
            nbx_only ? DMX_EXCHANGE_NBX : all_protos[dmxt_rng_int(r, 0, NPROTO - 1)];
        int slow = (int)dmxt_rng_int(r, 0, world_size - 1);
        make_pattern(&pt, k, world_size, r);
        snprintf(current, sizeof current, "%s round %d (%s %s)", name, i,
                 dmx_exchange_protocol_name(p), pat_name[k]);
        if (world_rank == slow) {
            struct timespec ts = {0, 200000};
            nanosleep(&ts, NULL);
        }
        char one[256] = "";
        int64_t b = run_exchange(MPI_COMM_WORLD, p, &pt, MODE_BLOCKING, 0, one, sizeof one);
        if (b && !bad)
            appendf(msg, sizeof msg, "round %d (%s %s): %s", i, dmx_exchange_protocol_name(p),
                    pat_name[k], one);
        bad += b;
    }
    case_end(bad, msg, name);
    free(pt.e);
}

/* A sub-communicator (ranks split in two halves), used by every protocol and then freed: the
 * attribute delete callback frees the duplicate and the RSX window. The halves take turns:
 * Open MPI 4.1's osc/rdma names a window's shared-memory segment after the communicator's
 * context id, which disjoint communicators from one split share, so two halves creating their
 * windows at the same moment on one node collide (open-mpi/ompi#7393, fixed in 5.0). */
static void test_subcomm(dmxt_rng *r)
{
    MPI_Comm sub;
    int half = world_rank % 2;
    MPI_Comm_split(MPI_COMM_WORLD, half, world_rank, &sub);
    pattern pt = {0};
    int64_t bad = 0;
    char msg[256] = "";
    snprintf(current, sizeof current, "sub-communicator");
    for (int turn = 0; turn < 2; turn++) {
        int hsize = turn == 0 ? (world_size + 1) / 2 : world_size / 2;
        for (int p = 0; p < NPROTO; p++) {
            /* every rank draws the same patterns so the RNG stays in step */
            make_pattern(&pt, PAT_MIXED, hsize > 0 ? hsize : 1, r);
            if (half == turn)
                bad += run_exchange(sub, all_protos[p], &pt, MODE_BLOCKING, 0, msg, sizeof msg);
            else
                global_round++;
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Comm_free(&sub);
    case_end(bad, msg, "sub-communicator, every protocol, then freed");
    free(pt.e);
}

/* The internal entry point on a caller's duplicate with alternating tags. */
static void test_internal(dmxt_rng *r)
{
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    pattern pt = {0};
    int64_t bad = 0;
    char msg[256] = "";
    snprintf(current, sizeof current, "internal entry point");
    for (int i = 0; i < 2 * NPROTO; i++) {
        make_pattern(&pt, i % 2 ? PAT_MULTI : PAT_RANDOM_K, world_size, r);
        bad += run_exchange(dup, all_protos[i % NPROTO], &pt, MODE_INTERNAL, 11 + i % 2, msg,
                            sizeof msg);
    }
    MPI_Comm_free(&dup);
    case_end(bad, msg, "dmxi_exchange on a caller's duplicate, alternating tags");
    free(pt.e);
}

/* Status `got` must equal `want` on every rank. */
static int64_t expect_status(dmx_status got, dmx_status want, char *msg, size_t len)
{
    int v[2] = {(int)got, -(int)got}, w[2];
    MPI_Allreduce(v, w, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (got != want || w[0] != -w[1]) {
        appendf(msg, len, "status %s, want %s", dmx_status_string(got), dmx_status_string(want));
        return 1;
    }
    return 0;
}

/* Errors on some ranks: every rank must return the same status, no result, and the next
 * exchange must see nothing left over. */
static void test_errors(dmxt_rng *r)
{
    static unsigned char big[16];
    pattern pt = {0};
    for (int p = 0; p < NPROTO; p++) {
        for (int kind = 0; kind < 4; kind++) {
            char desc[160], msg[256] = "";
            static const char *kname[4] = {"bad destination", "payload > INT_MAX", "NULL payload",
                                           "two ranks, two codes"};
            snprintf(desc, sizeof desc, "%s error: %s, then a clean round",
                     dmx_exchange_protocol_name(all_protos[p]), kname[kind]);
            snprintf(current, sizeof current, "%s", desc);
            make_pattern(&pt, PAT_ALL, world_size, r);
            int round = global_round++;
            sendset ss;
            sendset_make(&ss, &pt, world_rank, round);
            int culprit = world_size - 1;
            dmx_status want = DMX_ERR_ARG;
            /* add a bad entry at the end of the culprit's list */
            dmx_exchange_send *s = realloc(ss.s, (size_t)(ss.n + 1) * sizeof *s);
            ss.s = s;
            dmx_exchange_send badent = {0, big, 1};
            if (kind == 0)
                badent.dest = world_size;
            if (kind == 1) {
                badent.bytes = (INT64_C(3) << 30);
                want = DMX_ERR_OVERFLOW;
            }
            if (kind == 2) {
                badent.data = NULL;
                want = DMX_ERR_NULL;
            }
            if (kind == 3) {
                /* rank 0 a bad destination (ARG), the last rank an oversized payload: the
                 * larger code wins everywhere */
                if (world_rank == 0)
                    badent.dest = -1;
                else
                    badent.bytes = INT64_C(1) << 31;
                culprit = world_rank == 0 || world_rank == world_size - 1 ? world_rank : -1;
                want = world_size > 1 ? DMX_ERR_OVERFLOW : DMX_ERR_ARG;
            }
            int64_t n = ss.n;
            if (world_rank == culprit)
                ss.s[n++] = badent;
            dmx_exchange_result *res = NULL;
            dmx_status st = dmx_exchange(MPI_COMM_WORLD, all_protos[p], n, ss.s, &res);
            int64_t bad = expect_status(st, want, msg, sizeof msg);
            if (res != NULL) {
                appendf(msg, sizeof msg, "result not NULL after failure");
                bad++;
            }
            if (st != DMX_SUCCESS && strlen(dmx_last_error()) == 0) {
                appendf(msg, sizeof msg, "no error message");
                bad++;
            }
            sendset_free(&ss);
            /* a clean round on the same communicator */
            make_pattern(&pt, PAT_MIXED, world_size, r);
            bad +=
                run_exchange(MPI_COMM_WORLD, all_protos[p], &pt, MODE_BLOCKING, 0, msg, sizeof msg);
            case_end(bad, msg, desc);
        }
    }
    free(pt.e);
}

/* Misuse and small API checks. */
static void test_api(dmxt_rng *r)
{
    char msg[256] = "";
    int64_t bad = 0;
    snprintf(current, sizeof current, "api");
    /* a second begin while one is in flight: DMX_ERR_STATE, then the first completes */
    pattern pt = {0};
    make_pattern(&pt, PAT_RANDOM_K, world_size, r);
    int round = global_round++;
    sendset ss;
    sendset_make(&ss, &pt, world_rank, round);
    dmx_exchange_request *q1 = NULL, *q2 = NULL;
    dmx_exchange_result *res = NULL;
    dmx_status st = dmx_exchange_begin(MPI_COMM_WORLD, DMX_EXCHANGE_NBX, ss.n, ss.s, &q1);
    bad += st != DMX_SUCCESS;
    st = dmx_exchange_begin(MPI_COMM_WORLD, DMX_EXCHANGE_NBX, 0, NULL, &q2);
    bad += expect_status(st, DMX_ERR_STATE, msg, sizeof msg) + (q2 != NULL);
    st = dmx_exchange_end(&q1, &res);
    bad += st != DMX_SUCCESS || q1 != NULL;
    if (st == DMX_SUCCESS)
        bad += check_result(res, &pt, world_rank, round, DMX_EXCHANGE_NBX, msg, sizeof msg);
    /* accessors */
    int64_t count = 0;
    dmx_exchange_result_get_count(res, &count);
    bad += dmx_exchange_result_get(res, count, NULL, NULL, NULL) != DMX_ERR_ARG;
    bad += dmx_exchange_result_get(res, -1, NULL, NULL, NULL) != DMX_ERR_ARG;
    bad += dmx_exchange_result_get(NULL, 0, NULL, NULL, NULL) != DMX_ERR_NULL;
    dmx_exchange_result_destroy(&res);
    dmx_exchange_result_destroy(&res); /* NULL-safe */
    bad += dmx_exchange_result_destroy(NULL) != DMX_SUCCESS;
    sendset_free(&ss);
    /* arguments rejected locally, without communication */
    bad += dmx_exchange(MPI_COMM_WORLD, DMX_EXCHANGE_NBX, 0, NULL, NULL) != DMX_ERR_NULL;
    bad += dmx_exchange(MPI_COMM_NULL, DMX_EXCHANGE_NBX, 0, NULL, &res) != DMX_ERR_ARG;
    bad += dmx_exchange(MPI_COMM_WORLD, (dmx_exchange_protocol)9, 0, NULL, &res) != DMX_ERR_ARG;
    bad += dmx_exchange_end(NULL, &res) != DMX_ERR_NULL;
    /* names */
    for (int p = 0; p < NPROTO; p++) {
        dmx_exchange_protocol q = DMX_EXCHANGE_AUTO;
        bad += dmx_exchange_protocol_from_name(dmx_exchange_protocol_name(all_protos[p]), &q) !=
                   DMX_SUCCESS ||
               q != all_protos[p];
    }
    dmx_exchange_protocol q = DMX_EXCHANGE_AUTO;
    bad += dmx_exchange_protocol_from_name("PCX", &q) != DMX_SUCCESS || q != DMX_EXCHANGE_PCX;
    bad += dmx_exchange_protocol_from_name("nope", &q) != DMX_ERR_ARG;
    bad += dmx_exchange_protocol_name((dmx_exchange_protocol)9) != NULL;
    /* AUTO's rule on one node, from P: PEX up to 16 ranks, PCX up to 63, then NBX */
    bad += dmxi_exchange_select(8, 1) != DMX_EXCHANGE_PEX;
    bad += dmxi_exchange_select(16, 1) != DMX_EXCHANGE_PEX;
    bad += dmxi_exchange_select(32, 1) != DMX_EXCHANGE_PCX;
    bad += dmxi_exchange_select(63, 1) != DMX_EXCHANGE_PCX;
    bad += dmxi_exchange_select(64, 1) != DMX_EXCHANGE_NBX;
    /* on more than one node NBX at every P */
    bad += dmxi_exchange_select(2, 2) != DMX_EXCHANGE_NBX;
    bad += dmxi_exchange_select(16, 4) != DMX_EXCHANGE_NBX;
    bad += dmxi_exchange_select(32, 8) != DMX_EXCHANGE_NBX;
    /* ... never AUTO */
    for (int P = 1; P <= 4096; P *= 2)
        bad += dmxi_exchange_select(P, 1) == DMX_EXCHANGE_AUTO ||
               dmxi_exchange_select(P, P > 1 ? 2 : 1) == DMX_EXCHANGE_AUTO;
    if (bad && !msg[0])
        appendf(msg, sizeof msg, "API check failed: %s", dmx_last_error());
    case_end(bad, msg, "api: busy communicator, accessors, local argument errors, names");
    free(pt.e);
}

/* DMX_EXCHANGE overrides AUTO (and only AUTO); bad or differing values fail on every rank. */
static void test_env(dmxt_rng *r)
{
    pattern pt = {0};
    for (int p = 1; p < NPROTO; p++) {
        char desc[128], msg[256] = "";
        snprintf(desc, sizeof desc, "DMX_EXCHANGE=%s overrides AUTO",
                 dmx_exchange_protocol_name(all_protos[p]));
        snprintf(current, sizeof current, "%s", desc);
        setenv("DMX_EXCHANGE", dmx_exchange_protocol_name(all_protos[p]), 1);
        make_pattern(&pt, PAT_MIXED, world_size, r);
        /* asking for AUTO but checking that the overriding protocol ran */
        int me = world_rank, round = global_round++;
        sendset ss;
        sendset_make(&ss, &pt, me, round);
        dmx_exchange_result *res = NULL;
        int64_t bad = 0;
        dmx_status st = dmx_exchange(MPI_COMM_WORLD, DMX_EXCHANGE_AUTO, ss.n, ss.s, &res);
        if (st != DMX_SUCCESS) {
            appendf(msg, sizeof msg, "status %s: %s", dmx_status_string(st), dmx_last_error());
            bad++;
        } else {
            bad += check_result(res, &pt, me, round, all_protos[p], msg, sizeof msg);
        }
        dmx_exchange_result_destroy(&res);
        sendset_free(&ss);
        /* an explicit protocol is not overridden */
        dmx_exchange_protocol other = all_protos[p % (NPROTO - 1) + 1];
        make_pattern(&pt, PAT_RANDOM_K, world_size, r);
        bad += run_exchange(MPI_COMM_WORLD, other, &pt, MODE_BLOCKING, 0, msg, sizeof msg);
        case_end(bad, msg, desc);
    }
    {
        char msg[256] = "";
        snprintf(current, sizeof current, "DMX_EXCHANGE invalid");
        setenv("DMX_EXCHANGE", "fastest", 1);
        dmx_exchange_result *res = NULL;
        dmx_status st = dmx_exchange(MPI_COMM_WORLD, DMX_EXCHANGE_AUTO, 0, NULL, &res);
        int64_t bad = expect_status(st, DMX_ERR_ARG, msg, sizeof msg) + (res != NULL);
        /* differing values */
        setenv("DMX_EXCHANGE", world_rank == 0 ? "nbx" : "pcx", 1);
        st = dmx_exchange(MPI_COMM_WORLD, DMX_EXCHANGE_AUTO, 0, NULL, &res);
        bad += expect_status(st, world_size > 1 ? DMX_ERR_ARG : DMX_SUCCESS, msg, sizeof msg);
        dmx_exchange_result_destroy(&res);
        setenv("DMX_EXCHANGE", "auto", 1);
        make_pattern(&pt, PAT_MIXED, world_size, r);
        bad +=
            run_exchange(MPI_COMM_WORLD, DMX_EXCHANGE_AUTO, &pt, MODE_BLOCKING, 0, msg, sizeof msg);
        unsetenv("DMX_EXCHANGE");
        case_end(bad, msg, "DMX_EXCHANGE invalid or differing: DMX_ERR_ARG everywhere");
    }
    free(pt.e);
}

/* Write a model file (this rank's own temporary) holding @p text; returns its path in buf. */
static int write_model(char *buf, size_t len, const char *text)
{
    snprintf(buf, len, "/tmp/dmx_xmodel_%d_XXXXXX", world_rank);
    int fd = mkstemp(buf);
    if (fd < 0)
        return -1;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        return -1;
    }
    fputs(text, f);
    fclose(f);
    return 0;
}

/* The model file's `exchange = ...`: on one node it replaces the built-in rule for the P its
 * section covers (nearest in log2, ties to the smaller N); across nodes NBX stays; an AUTO
 * exchange runs it; values other than nbx, pex, pcx and auto are refused. */
static void test_model(dmxt_rng *r)
{
    char path[64], msg[256] = "", text[256];
    int64_t bad = 0;
    pattern pt = {0};
    snprintf(current, sizeof current, "model file exchange = ...");
    bad += write_model(path, sizeof path,
                       "intra = 1e30 1e-6 1e-9\nnp = 4\nexchange = nbx\nnp = 64\nexchange = "
                       "pex\n") != 0;
    bad += dmx_coll_model_load(path) != DMX_SUCCESS;
    remove(path);
    bad += dmxi_exchange_select(2, 1) != DMX_EXCHANGE_NBX;    /* nearest: 4 */
    bad += dmxi_exchange_select(8, 1) != DMX_EXCHANGE_NBX;    /* 2x from 4, 8x from 64 */
    bad += dmxi_exchange_select(16, 1) != DMX_EXCHANGE_NBX;   /* a tie: the smaller N */
    bad += dmxi_exchange_select(32, 1) != DMX_EXCHANGE_PEX;   /* the rule: PCX */
    bad += dmxi_exchange_select(4096, 1) != DMX_EXCHANGE_PEX; /* the rule: NBX */
    bad += dmxi_exchange_select(32, 2) != DMX_EXCHANGE_NBX;   /* across nodes: NBX */
    dmx_choice ch;
    bad += dmx_exchange_explain(32, DMX_EXCHANGE_AUTO, &ch) != DMX_SUCCESS ||
           strstr(ch.reason, "measured") == NULL || ch.chosen < 0 ||
           strcmp(ch.cand[ch.chosen].name, "pex") != 0;
    /* a section at this job's size saying PCX, which the rule never picks below 17 ranks: an
     * AUTO exchange runs PCX */
    snprintf(text, sizeof text, "intra = 1e30 1e-6 1e-9\nnp = %d\nexchange = pcx\n", world_size);
    bad += write_model(path, sizeof path, text) != 0;
    bad += dmx_coll_model_load(path) != DMX_SUCCESS;
    remove(path);
    make_pattern(&pt, PAT_MIXED, world_size, r);
    int round = global_round++;
    sendset ss;
    sendset_make(&ss, &pt, world_rank, round);
    dmx_exchange_result *res = NULL;
    dmx_status st = dmx_exchange(MPI_COMM_WORLD, DMX_EXCHANGE_AUTO, ss.n, ss.s, &res);
    if (st != DMX_SUCCESS) {
        appendf(msg, sizeof msg, "status %s: %s", dmx_status_string(st), dmx_last_error());
        bad++;
    } else {
        bad += check_result(res, &pt, world_rank, round, DMX_EXCHANGE_PCX, msg, sizeof msg);
    }
    dmx_exchange_result_destroy(&res);
    sendset_free(&ss);
    /* refused values; a file without the key leaves the rule */
    const char *refused[] = {"rsx", "fastest", ""};
    for (int i = 0; i < 3; i++) {
        snprintf(text, sizeof text, "intra = 1e30 1e-6 1e-9\nexchange = %s\n", refused[i]);
        bad += write_model(path, sizeof path, text) != 0;
        bad += dmx_coll_model_load(path) != DMX_ERR_ARG;
        remove(path);
    }
    bad += write_model(path, sizeof path, "intra = 1e30 1e-6 1e-9\nexchange = auto\n") != 0;
    bad += dmx_coll_model_load(path) != DMX_SUCCESS;
    remove(path);
    bad += dmxi_exchange_select(8, 1) != DMX_EXCHANGE_PEX ||
           dmxi_exchange_select(32, 1) != DMX_EXCHANGE_PCX;
    dmx_coll_model_load(NULL);
    bad += dmxi_exchange_select(8, 1) != DMX_EXCHANGE_PEX;
    if (bad && !msg[0])
        appendf(msg, sizeof msg, "model check failed: %s", dmx_last_error());
    case_end(bad, msg, "model file exchange = ...: replaces the one-node rule, runs, refuses");
    free(pt.e);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    unsetenv("DMX_EXCHANGE"); /* the env test sets it itself */
    const char *s = getenv("DMX_TEST_SEED");
    uint64_t seed = s && *s ? strtoull(s, NULL, 10) : UINT64_C(20240521);
    const char *t = getenv("DMX_TEST_TIMEOUT");
    unsigned timeout = t && *t ? (unsigned)strtoul(t, NULL, 10) : 240u;
    signal(SIGALRM, on_alarm);
    alarm(timeout);
    if (world_rank == 0)
        printf("test_exchange: %d ranks, seed %llu\n", world_size, (unsigned long long)seed);
    dmxt_rng r;
    dmxt_rng_seed(&r, seed, 0);

    test_api(&r);
    test_patterns(&r);
    test_rounds(&r, 60, 0, "60 back-to-back rounds, every protocol");
    test_rounds(&r, 60, 1, "60 back-to-back NBX rounds");
    test_subcomm(&r);
    test_internal(&r);
    test_errors(&r);
    test_env(&r);
    test_model(&r);

    if (world_rank == 0) {
        dmxt_count_print(&results);
    }
    alarm(0);
    MPI_Finalize();
    return dmxt_count_exit_code(&results);
}
