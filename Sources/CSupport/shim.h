// What TodoServer needs from the C library beyond Glibc's Swift module, and ThreadSanitizer's
// annotation hooks. No libevent here: that stays behind EventHTTP.
#pragma once
#include <dlfcn.h>
#include <malloc.h>
#include <stdbool.h>
#include <sys/random.h>

// mimalloc's function `name`, when the binary allocates with mimalloc (the release build), else
// null. Looked up per call: the callers run at start and after much memory was freed.
static inline void *todo_mimalloc_function(const char *name) {
    return dlsym(RTLD_DEFAULT, name);
}

// Once at start: with mimalloc 2.x, a page that empties is decommitted at once instead of after
// its delay (option 15, `mi_option_decommit_delay`, `mi_option_purge_delay` since 2.1; the index is
// the same in every 2.x). Without it an emptied store's pages stayed resident (soak: 25 MiB after
// DELETE /todos against a 21 MiB baseline); with it they go back, at no measured cost in
// throughput or CPU per request (wrk, get-one and PATCH). (A collection on every loop once a
// second was tried too: mimalloc walks the whole heap, ~5M instructions per call on a loaded
// store, so an idle server would burn CPU; not needed with this.) glibc: nothing to do.
static inline void todo_configure_allocator(void) {
    int (*version)(void) = (int (*)(void))todo_mimalloc_function("mi_version");
    void (*set)(int, long) = (void (*)(int, long))todo_mimalloc_function("mi_option_set");
    if (version && set && version() >= 200 && version() < 300) set(15, 0);
}

// Hands freed memory back to the system after much was freed (a store emptied, a large buffer
// gone): mimalloc frees the calling thread's empty pages (blocks other threads freed into them
// included); glibc's `malloc_trim` returns its free heap pages.
static inline void todo_release_free_memory(void) {
    void (*collect)(bool) = (void (*)(bool))todo_mimalloc_function("mi_collect");
    if (collect) {
        collect(true);
    } else {
        malloc_trim(0);
    }
}

// A loop's part of a process-wide release (`MemoryRelease`): mimalloc's collection of the calling
// thread's pages. Nothing with glibc: its arenas are not per thread, the emptying thread's
// `malloc_trim` returned them already.
static inline void todo_collect_thread_memory(void) {
    void (*collect)(bool) = (void (*)(bool))todo_mimalloc_function("mi_collect");
    if (collect) collect(true);
}

// Defined only when the process runs under ThreadSanitizer (weak: null otherwise).
void __tsan_acquire(void *address) __attribute__((weak));
void __tsan_release(void *address) __attribute__((weak));

// Tells ThreadSanitizer that a lock at `address` was taken / is about to be released, for locks it
// cannot see (Synchronization.Mutex waits on a futex). No-ops in other builds.
static inline void todo_tsan_acquire(void *address) {
    if (__tsan_acquire) __tsan_acquire(address);
}

static inline void todo_tsan_release(void *address) {
    if (__tsan_release) __tsan_release(address);
}
