/* What this machine's memory delivers, for docs/PERF.md's account of the
 * 1M expansion (docs/PERF.md, "Session 9"). Plain C, no rbc code:
 *
 *   gcc -O2 -march=native scripts/membench.c -o /tmp/membench && /tmp/membench
 *
 * 1. Random 4-byte reads and read-modify-writes of a table of 1-32 MiB,
 *    855k of them (the 1M expansion's inserts), with and without a prefetch
 *    32 ahead.
 * 2. Those read-modify-writes of a 16 MiB table beside a sequential stream
 *    of 24-byte writes (the children), alone and together.
 * 3. Moving 742k 24-byte records up by one sequential copy, or into two
 *    interleaved streams chosen at random (the presample pass), with plain
 *    and with non-temporal (movnti) stores.
 *
 * Buffers ask for transparent huge pages, as rbc's do; each figure is the
 * best of several rounds, a large buffer written between them to empty the
 * caches.
 */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define INSERTS 855000
#define PARENTS 742264
#define SLOTS 1500000
#define ROUNDS 7

typedef struct { uint64_t a, b, c; } hyp;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static uint64_t state = 88172645463325252ull;
static uint64_t rnd(void) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

static void *huge(size_t bytes) {
    void *p;
    if (posix_memalign(&p, 2 << 20, bytes)) exit(1);
    madvise(p, bytes, MADV_HUGEPAGE);
    memset(p, 1, bytes);
    return p;
}

static char *flush_buf;
static void flush(int r) { memset(flush_buf, r, 64 << 20); }

int main(void) {
    flush_buf = huge(64 << 20);
    uint32_t *idx = malloc(INSERTS * sizeof *idx);
    uint32_t *table = huge(32 << 20);
    hyp *kids = huge((INSERTS + 1) * sizeof(hyp));
    volatile uint64_t sink = 0;

    printf("1. random 4-byte accesses, %d of them (ns each)\n", INSERTS);
    for (int mib = 1; mib <= 32; mib *= 2) {
        size_t n = ((size_t)mib << 20) / 4;
        for (size_t i = 0; i < INSERTS; i++) idx[i] = rnd() % n;
        double read = 1e9, rmw = 1e9, pf = 1e9;
        for (int r = 0; r < ROUNDS; r++) {
            flush(r);
            double t0 = now();
            uint64_t acc = 0;
            for (size_t i = 0; i < INSERTS; i++) acc += table[idx[i]];
            double d = now() - t0;
            sink += acc;
            if (d < read) read = d;
            flush(r);
            t0 = now();
            for (size_t i = 0; i < INSERTS; i++) table[idx[i]]++;
            d = now() - t0;
            if (d < rmw) rmw = d;
            flush(r);
            t0 = now();
            for (size_t i = 0; i < INSERTS; i++) {
                if (i + 32 < INSERTS) __builtin_prefetch(&table[idx[i + 32]], 1);
                table[idx[i]]++;
            }
            d = now() - t0;
            if (d < pf) pf = d;
        }
        printf("   %2d MiB: read %.2f, read-modify-write %.2f, with prefetch %.2f\n", mib,
               read / INSERTS * 1e9, rmw / INSERTS * 1e9, pf / INSERTS * 1e9);
    }

    printf("2. 16 MiB table and 24-byte child writes (ms)\n");
    size_t n16 = (16 << 20) / 4;
    for (size_t i = 0; i < INSERTS; i++) idx[i] = rnd() % n16;
    double rmw = 1e9, writes = 1e9, both = 1e9;
    for (int r = 0; r < ROUNDS; r++) {
        flush(r);
        double t0 = now();
        for (size_t i = 0; i < INSERTS; i++) {
            if (i + 32 < INSERTS) __builtin_prefetch(&table[idx[i + 32]], 1);
            table[idx[i]]++;
        }
        double d = now() - t0;
        if (d < rmw) rmw = d;
        flush(r);
        t0 = now();
        for (size_t i = 0; i < INSERTS; i++) kids[i] = (hyp){i, i * 3, i * 7};
        d = now() - t0;
        if (d < writes) writes = d;
        flush(r);
        t0 = now();
        for (size_t i = 0; i < INSERTS; i++) {
            if (i + 32 < INSERTS) __builtin_prefetch(&table[idx[i + 32]], 1);
            uint32_t e = table[idx[i]];
            table[idx[i]] = e + 1;
            kids[i] = (hyp){i, e, i * 7};
        }
        d = now() - t0;
        if (d < both) both = d;
    }
    printf("   table %.2f, writes %.2f, both %.2f\n", rmw * 1e3, writes * 1e3, both * 1e3);

    printf("3. moving %d 24-byte records up (ms)\n", PARENTS);
    hyp *slots = huge(SLOTS * sizeof(hyp));
    uint8_t *take = malloc(PARENTS);
    for (size_t i = 0; i < PARENTS; i++) take[i] = rnd() % 3 != 0;
    double one = 1e9, two = 1e9, two_nt = 1e9;
    for (int r = 0; r < ROUNDS; r++) {
        for (int mode = 0; mode < 3; mode++) {
            for (size_t i = 0; i < PARENTS; i++) slots[i] = (hyp){i, i, i};
            flush(r);
            double t0 = now();
            if (mode == 0) {
                for (size_t i = PARENTS; i-- > 0;) slots[SLOTS - PARENTS + i] = slots[i];
            } else {
                size_t top = SLOTS, low = SLOTS - PARENTS / 3;
                for (size_t i = PARENTS; i-- > 0;) {
                    size_t at = take[i] ? --top : --low;
                    hyp v = slots[i];
                    if (mode == 1) {
                        slots[at] = v;
                    } else {
                        long long *p = (long long *)&slots[at];
                        _mm_stream_si64(p, (long long)v.a);
                        _mm_stream_si64(p + 1, (long long)v.b);
                        _mm_stream_si64(p + 2, (long long)v.c);
                    }
                }
                if (mode == 2) _mm_sfence();
            }
            double d = now() - t0;
            double *best = mode == 0 ? &one : mode == 1 ? &two : &two_nt;
            if (d < *best) *best = d;
        }
    }
    printf("   one stream %.2f, two random streams %.2f, two with movnti %.2f\n", one * 1e3,
           two * 1e3, two_nt * 1e3);
    return (int)(sink & 0);
}
