/* Opening a shared library on first use, for the targets that load one (CLibpq's libpq, CLibcurl's
   libcurl, CLibcrypto's libcrypto): dlopen, dlsym, and the message that tells why the library
   cannot be used, in one place. */
#ifndef CLOADER_H
#define CLOADER_H

#include <pthread.h>

/* A library to open: its file name, a note for a missing function and PTHREAD_ONCE_INIT; once
   `cloader_open` was called, its handle and the first failure (empty while there is none). */
typedef struct {
    const char *name;
    /* Added to "<name> has no <function>": the version needed, or "". */
    const char *note;
    pthread_once_t once;
    void *handle;
    char failure[512];
} cloader_library;

/* Runs `load` once for the process, however many threads ask at once (pthread_once on the
   library's `once`): it opens the library with `cloader_open` and finds its functions with
   `cloader_function`, and may record a failure of its own. 1 when the library can be used; 0, with
   the reason in `failure`, when it cannot. */
int cloader_ready(cloader_library *library, void (*load)(void));

/* Opens the library (RTLD_NOW | RTLD_LOCAL); 0, with the reason in `failure`, when it cannot be. */
int cloader_open(cloader_library *library);

/* The opened library's function `name`, NULL when it has none: the first one missing is told in
   `failure`. */
void *cloader_function(cloader_library *library, const char *name);

#endif
