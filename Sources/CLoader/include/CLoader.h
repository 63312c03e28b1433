/* Opening a shared library on first use, for the targets that load one (CLibpq's libpq, CLibcurl's
   libcurl, CLibcrypto's libcrypto): dlopen, dlsym, and the message that tells why the library
   cannot be used, in one place. */
#ifndef CLOADER_H
#define CLOADER_H

/* A library to open: its file name and a note for a missing function; once `cloader_open` was
   called, its handle and the first failure (empty while there is none). */
typedef struct {
    const char *name;
    /* Added to "<name> has no <function>": the version needed, or "". */
    const char *note;
    void *handle;
    char failure[512];
} cloader_library;

/* Opens the library (RTLD_NOW | RTLD_LOCAL); 0, with the reason in `failure`, when it cannot be. */
int cloader_open(cloader_library *library);

/* The opened library's function `name`, NULL when it has none: the first one missing is told in
   `failure`. */
void *cloader_function(cloader_library *library, const char *name);

#endif
