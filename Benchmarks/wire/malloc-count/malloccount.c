/*
 * LD_PRELOAD allocation counter: counts malloc, calloc, realloc, posix_memalign, aligned_alloc
 * and memalign calls. On SIGURG (which the server leaves alone: it ignores SIGUSR1 and SIGUSR2 itself) it writes the running total to $MALLOC_COUNT_FILE.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static atomic_ulong count;
static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void *(*real_memalign)(size_t, size_t);

/* dlsym itself may calloc before real_calloc is known: serve that from a static arena. */
static char arena[4096];
static size_t arena_used;

static void dump(int signal) {
    (void)signal;
    const char *path = getenv("MALLOC_COUNT_FILE");
    if (!path) return;
    char text[32];
    int length = snprintf(text, sizeof text, "%lu\n", atomic_load(&count));
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) { (void)!write(fd, text, (size_t)length); close(fd); }
}

__attribute__((constructor)) static void setup(void) {
    real_malloc = dlsym(RTLD_NEXT, "malloc");
    real_calloc = dlsym(RTLD_NEXT, "calloc");
    real_realloc = dlsym(RTLD_NEXT, "realloc");
    real_posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
    real_aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
    real_memalign = dlsym(RTLD_NEXT, "memalign");
    signal(SIGURG, dump);
}

void *malloc(size_t size) {
    if (!real_malloc) setup();
    atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
    return real_malloc(size);
}

void *calloc(size_t n, size_t size) {
    if (!real_calloc) {
        void *p = arena + arena_used;
        arena_used += (n * size + 15) & ~(size_t)15;
        return arena_used <= sizeof arena ? p : NULL;
    }
    atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
    return real_calloc(n, size);
}

void *realloc(void *p, size_t size) {
    if (!real_realloc) setup();
    atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
    return real_realloc(p, size);
}


int posix_memalign(void **out, size_t alignment, size_t size) {
    if (!real_posix_memalign) setup();
    atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
    return real_posix_memalign(out, alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    if (!real_aligned_alloc) setup();
    atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
    return real_aligned_alloc(alignment, size);
}

void *memalign(size_t alignment, size_t size) {
    if (!real_memalign) setup();
    atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
    return real_memalign(alignment, size);
}
