/*
 * LD_PRELOAD heap census for the release build (which allocates with mimalloc): every block
 * allocated and not yet freed is counted by its usable size (mimalloc's size class), and every
 * $LIVE_SIZES_PERIOD seconds (1) the table "usable-size<TAB>blocks<TAB>bytes" is written to
 * $LIVE_SIZES_FILE (replaced whole, through a rename). Sizes up to 64 KiB are exact (16-byte
 * steps); larger blocks share the row -1, their bytes the usable size (room never written
 * included, which is not resident). Allocation itself goes to mimalloc, as without the census.
 * Benchmarks/memory/live-sizes.sh diffs two tables: what a load added, by size class.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <mimalloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define ROWS 4096
static long blocks[ROWS];
static long bytes[ROWS];

static void note(void *block, long sign) {
    if (!block) return;
    size_t usable = mi_usable_size(block);
    size_t row = usable / 16 < ROWS - 1 ? usable / 16 : ROWS - 1;
    __atomic_fetch_add(&blocks[row], sign, __ATOMIC_RELAXED);
    __atomic_fetch_add(&bytes[row], sign * (long)usable, __ATOMIC_RELAXED);
}

void *malloc(size_t n) { void *p = mi_malloc(n); note(p, 1); return p; }
void *calloc(size_t count, size_t size) { void *p = mi_calloc(count, size); note(p, 1); return p; }
void free(void *p) { note(p, -1); mi_free(p); }
void cfree(void *p) { free(p); }
void *realloc(void *p, size_t n) {
    note(p, -1);
    void *q = mi_realloc(p, n);
    note(q ? q : p, 1);
    return q;
}
void *reallocarray(void *p, size_t count, size_t size) { return realloc(p, count * size); }
int posix_memalign(void **out, size_t alignment, size_t n) {
    void *p = mi_malloc_aligned(n, alignment);
    if (!p) return ENOMEM;
    note(p, 1);
    *out = p;
    return 0;
}
void *aligned_alloc(size_t alignment, size_t n) { void *p = mi_malloc_aligned(n, alignment); note(p, 1); return p; }
void *memalign(size_t alignment, size_t n) { return aligned_alloc(alignment, n); }
void *valloc(size_t n) { return aligned_alloc(4096, n); }
void *pvalloc(size_t n) { return aligned_alloc(4096, (n + 4095) & ~(size_t)4095); }
size_t malloc_usable_size(void *p) { return p ? mi_usable_size(p) : 0; }

static void *writer(void *unused) {
    (void)unused;
    const char *path = getenv("LIVE_SIZES_FILE");
    int period = getenv("LIVE_SIZES_PERIOD") ? atoi(getenv("LIVE_SIZES_PERIOD")) : 1;
    char partial[4096];
    snprintf(partial, sizeof partial, "%s.partial", path);
    for (;;) {
        sleep(period > 0 ? period : 1);
        FILE *file = fopen(partial, "w");
        if (!file) continue;
        for (int row = 0; row < ROWS; row++) {
            long count = __atomic_load_n(&blocks[row], __ATOMIC_RELAXED);
            if (count) fprintf(file, "%d\t%ld\t%ld\n", row == ROWS - 1 ? -1 : row * 16, count, __atomic_load_n(&bytes[row], __ATOMIC_RELAXED));
        }
        fclose(file);
        rename(partial, path);
    }
    return 0;
}

__attribute__((constructor)) static void start(void) {
    if (!getenv("LIVE_SIZES_FILE")) return;
    pthread_t thread;
    if (pthread_create(&thread, 0, writer, 0) == 0) pthread_detach(thread);
}
