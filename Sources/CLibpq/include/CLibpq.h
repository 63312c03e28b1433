#ifndef CLIBPQ_H
#define CLIBPQ_H

/* libpq's client API (libpq-dev for the header; the runtime libpq5 is loaded when first used).
   Only the PostgresLoop target imports this module: the C boundary to libpq stays there.
   The binary does not link libpq: the PQ* functions PostgresLoop calls are defined in
   loader.c, which opens libpq.so.5 with dlopen on the first call. A server without a database
   URL never maps libpq and the ~22 libraries it needs (about 5 MiB resident). Pipeline mode needs
   libpq 14 or later. */
#if __has_include(<libpq-fe.h>)
#include <libpq-fe.h>
#else
#include <postgresql/libpq-fe.h>
#endif

#ifndef LIBPQ_HAS_PIPELINING
#error "libpq 14 or later is needed (pipeline mode)"
#endif

/* NULL once libpq is loaded with every function PostgresLoop uses (loading it now if it was not);
   otherwise why it cannot be (the library's name and dlerror's text). */
const char *clibpq_load_error(void);

#endif
