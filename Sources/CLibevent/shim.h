#ifndef CLIBEVENT_SHIM_H
#define CLIBEVENT_SHIM_H

/* System headers first: libevent's event-config.h defines _GNU_SOURCE, and system headers first
   read under it would not match the ones the Swift Glibc module was built from. */
#include <sys/types.h>
#include <sys/select.h>
#include <sys/time.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdint.h>
#include <time.h>
#include <errno.h>
#include <stdlib.h>

#include <event2/event.h>
#include <event2/buffer.h>
#include <event2/http.h>
#include <event2/bufferevent.h>
#include <event2/keyvalq_struct.h>
#include <event2/listener.h>
#include <event2/thread.h>
#include <event2/util.h>
/* The request's layout under another name, for the version below: under its own name the struct
   would be complete, and Swift would no longer see requests as OpaquePointer. */
#define evhttp_request clibevent_evhttp_request_layout
#include <event2/http_struct.h>
#undef evhttp_request

/* TAILQ is a macro family; these give Swift a way to walk a header list. */
static inline struct evkeyval *clibevent_first_header(struct evkeyvalq *headers) {
    return headers->tqh_first;
}

static inline struct evkeyval *clibevent_next_header(struct evkeyval *header) {
    return header->next.tqe_next;
}

/* Appends a header field whose key and value were allocated with malloc: the list owns them from
   here on (evhttp frees both, and the field, with free when the request is freed). Unlike
   evhttp_add_header, nothing is copied or checked: the caller has checked the bytes. */
static inline int clibevent_append_owned_header(struct evkeyvalq *headers, char *key, char *value) {
    struct evkeyval *header = (struct evkeyval *)calloc(1, sizeof(struct evkeyval));
    if (header == NULL) {
        free(key);
        free(value);
        return -1;
    }
    header->key = key;
    header->value = value;
    header->next.tqe_next = NULL;
    header->next.tqe_prev = headers->tqh_last;
    *headers->tqh_last = header;
    headers->tqh_last = &header->next.tqe_next;
    return 0;
}

/* Whether evhttp answers `request` as HTTP/1.1 (or a later 1.x): evhttp_make_header_response adds
   Content-Length to such an answer whenever it has a body (libevent 2.1 has no getter for the version). */
static inline int clibevent_request_is_http11(struct evhttp_request *request) {
    const struct clibevent_evhttp_request_layout *layout = (const struct clibevent_evhttp_request_layout *)(const void *)request;
    return layout->major == 1 && layout->minor >= 1;
}

#endif
