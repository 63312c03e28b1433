#ifndef CLIBCURL_H
#define CLIBCURL_H

/* libcurl, for fetching a JWK Set over HTTPS (`jwtJwksUrl`): one GET, done whole by libcurl (TLS
   with certificate and host name checks, redirects, time-outs, content decoding). Only glue lives
   here, no HTTP: the Swift side calls `clibcurl_get` and reads its answer.
   Only Sources/TodoServer/Identity/JWKSDownload.swift imports this module.
   The binary does not link libcurl: loader.c opens libcurl.so.4 with dlopen on the first fetch,
   so a server without `jwtJwksUrl` never maps it (libcurl4-openssl-dev, or any libcurl's -dev,
   for the header at build time; Debian's libcurl4 at run time). */
#include <stddef.h>

/* What one GET brought back. */
typedef struct clibcurl_response {
    /* The final response's status (after redirects); 0 when there was no response. */
    long status;
    /* The final response's body (malloc'd; NULL when empty), `length` bytes. */
    unsigned char *body;
    size_t length;
    /* The final response's Cache-Control field values joined with ", " (malloc'd; NULL: none). */
    char *cache_control;
    /* Why the GET failed (libcurl's message, or this glue's); empty when it did not. */
    char error[512];
} clibcurl_response;

/* GETs `url` (http or https; redirects, at most 3, to https only) trusting the certificate
   authorities of `ca_file` (NULL: the system's), within `timeout_ms` in all, reading at most
   `max_bytes` of body (more is a failure). Returns 0 when a response (of any status) was read,
   -1 with `response->error` set when not. Blocking: call it off the event loops. Free the
   response with `clibcurl_response_free` in both cases. */
int clibcurl_get(const char *url, const char *ca_file, long timeout_ms, size_t max_bytes, clibcurl_response *response);

void clibcurl_response_free(clibcurl_response *response);

/* NULL once libcurl is loaded (loading it now if it was not); otherwise why it cannot be. */
const char *clibcurl_load_error(void);

#endif
