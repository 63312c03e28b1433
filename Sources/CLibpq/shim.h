#ifndef CLIBPQ_SHIM_H
#define CLIBPQ_SHIM_H

/* libpq's client API (libpq-dev; runtime libpq5). Only the PostgresLoop target imports this module:
   the C boundary to libpq stays there. Pipeline mode needs libpq 14 or later. */
#include <libpq-fe.h>

#ifndef LIBPQ_HAS_PIPELINING
#error "libpq 14 or later is needed (pipeline mode)"
#endif

#endif
