// What TodoServer needs from the C library beyond Glibc's Swift module, and ThreadSanitizer's
// annotation hooks. No libevent here: that stays behind EventHTTP.
#pragma once
#include <malloc.h>

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
