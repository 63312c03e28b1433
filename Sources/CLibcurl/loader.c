/* libcurl, loaded on first use (as CLibpq loads libpq): the few curl_* functions the fetch needs
   are found in libcurl.so.4 with dlsym once, and `clibcurl_get` drives one easy handle with them. */
#define CURL_DISABLE_DEPRECATION 1
#include "CLibcurl.h"

#include "CLoader.h"
#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define CLIBCURL_LIBRARY "libcurl.so.4"

static CURLcode (*loaded_curl_global_init)(long flags);
static CURL *(*loaded_curl_easy_init)(void);
static CURLcode (*loaded_curl_easy_setopt)(CURL *curl, CURLoption option, ...);
static CURLcode (*loaded_curl_easy_perform)(CURL *curl);
static CURLcode (*loaded_curl_easy_getinfo)(CURL *curl, CURLINFO info, ...);
static void (*loaded_curl_easy_cleanup)(CURL *curl);
static const char *(*loaded_curl_easy_strerror)(CURLcode code);
static struct curl_slist *(*loaded_curl_slist_append)(struct curl_slist *list, const char *string);
static void (*loaded_curl_slist_free_all)(struct curl_slist *list);

static cloader_library libcurl = {CLIBCURL_LIBRARY, "", PTHREAD_ONCE_INIT};

static void load(void) {
    if (!cloader_open(&libcurl)) return;
    *(void **)&loaded_curl_global_init = cloader_function(&libcurl, "curl_global_init");
    *(void **)&loaded_curl_easy_init = cloader_function(&libcurl, "curl_easy_init");
    *(void **)&loaded_curl_easy_setopt = cloader_function(&libcurl, "curl_easy_setopt");
    *(void **)&loaded_curl_easy_perform = cloader_function(&libcurl, "curl_easy_perform");
    *(void **)&loaded_curl_easy_getinfo = cloader_function(&libcurl, "curl_easy_getinfo");
    *(void **)&loaded_curl_easy_cleanup = cloader_function(&libcurl, "curl_easy_cleanup");
    *(void **)&loaded_curl_easy_strerror = cloader_function(&libcurl, "curl_easy_strerror");
    *(void **)&loaded_curl_slist_append = cloader_function(&libcurl, "curl_slist_append");
    *(void **)&loaded_curl_slist_free_all = cloader_function(&libcurl, "curl_slist_free_all");
    if (libcurl.failure[0] != 0) return;
    /* Once per process, before any handle: libcurl's global state (its TLS library's). */
    CURLcode code = loaded_curl_global_init(CURL_GLOBAL_DEFAULT);
    if (code != CURLE_OK) {
        snprintf(libcurl.failure, sizeof libcurl.failure, "curl_global_init failed: %s", loaded_curl_easy_strerror(code));
    }
}

const char *clibcurl_load_error(void) {
    return cloader_ready(&libcurl, load) ? NULL : libcurl.failure;
}

/* What the callbacks fill in while libcurl reads the response. */
typedef struct {
    clibcurl_response *response;
    size_t max_bytes;
    size_t capacity;
    int too_large;
} transfer;

static size_t on_body(char *data, size_t size, size_t count, void *context) {
    transfer *state = context;
    clibcurl_response *response = state->response;
    size_t bytes = size * count;
    if (bytes > state->max_bytes - response->length) {
        state->too_large = 1;
        return 0; /* libcurl stops with CURLE_WRITE_ERROR */
    }
    if (response->length + bytes > state->capacity) {
        size_t capacity = state->capacity ? state->capacity : 16384;
        while (capacity < response->length + bytes) capacity *= 2;
        unsigned char *grown = realloc(response->body, capacity);
        if (grown == NULL) return 0;
        response->body = grown;
        state->capacity = capacity;
    }
    memcpy(response->body + response->length, data, bytes);
    response->length += bytes;
    return bytes;
}

/* Keeps the Cache-Control of the last response only: a status line (a redirect's, then the
   final one's) starts over. */
static size_t on_header(char *data, size_t size, size_t count, void *context) {
    transfer *state = context;
    clibcurl_response *response = state->response;
    size_t bytes = size * count;
    static const char name[] = "cache-control:";
    if (bytes >= 5 && strncmp(data, "HTTP/", 5) == 0) {
        free(response->cache_control);
        response->cache_control = NULL;
        response->length = 0; /* a redirect's body is not the answer */
        return bytes;
    }
    if (bytes <= sizeof name - 1 || strncasecmp(data, name, sizeof name - 1) != 0) return bytes;
    const char *value = data + sizeof name - 1;
    size_t length = bytes - (sizeof name - 1);
    while (length > 0 && (*value == ' ' || *value == '\t')) value++, length--;
    while (length > 0 && (value[length - 1] == '\r' || value[length - 1] == '\n' || value[length - 1] == ' ' || value[length - 1] == '\t')) length--;
    if (length > 1024) return bytes; /* no provider says that much: ignore it */
    size_t previous = response->cache_control ? strlen(response->cache_control) : 0;
    char *joined = realloc(response->cache_control, previous + (previous ? 2 : 0) + length + 1);
    if (joined == NULL) return bytes;
    if (previous) memcpy(joined + previous, ", ", 2), previous += 2;
    memcpy(joined + previous, value, length);
    joined[previous + length] = 0;
    response->cache_control = joined;
    return bytes;
}

int clibcurl_get(const char *url, const char *ca_file, long timeout_ms, size_t max_bytes, clibcurl_response *response) {
    memset(response, 0, sizeof *response);
    const char *load_error = clibcurl_load_error();
    if (load_error != NULL) {
        snprintf(response->error, sizeof response->error, "%s", load_error);
        return -1;
    }
    CURL *curl = loaded_curl_easy_init();
    if (curl == NULL) {
        snprintf(response->error, sizeof response->error, "curl_easy_init failed");
        return -1;
    }
    transfer state = {response, max_bytes, 0, 0};
    char message[CURL_ERROR_SIZE] = {0};
    struct curl_slist *headers = loaded_curl_slist_append(NULL, "Accept: application/jwk-set+json, application/json");
    loaded_curl_easy_setopt(curl, CURLOPT_URL, url);
    loaded_curl_easy_setopt(curl, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
    loaded_curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS, (long)CURLPROTO_HTTPS);
    loaded_curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
    loaded_curl_easy_setopt(curl, CURLOPT_MAXREDIRS, 3L);
    loaded_curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    loaded_curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
    loaded_curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
    loaded_curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
    loaded_curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
    /* Each fetch is one connection on a handle of its own: a TLS session kept for reuse would never
       be reused, and libcurl 7.88 with OpenSSL 3 left such sessions unfreed (LeakSanitizer, 3
       SSL_SESSION-sized objects at the end of a whole-suite run). */
    loaded_curl_easy_setopt(curl, CURLOPT_SSL_SESSIONID_CACHE, 0L);
    if (ca_file != NULL) loaded_curl_easy_setopt(curl, CURLOPT_CAINFO, ca_file);
    loaded_curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");
    loaded_curl_easy_setopt(curl, CURLOPT_USERAGENT, "TodoServer (JWK Set fetch)");
    loaded_curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    loaded_curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, message);
    loaded_curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
    loaded_curl_easy_setopt(curl, CURLOPT_WRITEDATA, &state);
    loaded_curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
    loaded_curl_easy_setopt(curl, CURLOPT_HEADERDATA, &state);
    CURLcode code = loaded_curl_easy_perform(curl);
    int result = 0;
    if (state.too_large) {
        snprintf(response->error, sizeof response->error, "the response is larger than %zu bytes", max_bytes);
        result = -1;
    } else if (code != CURLE_OK) {
        snprintf(response->error, sizeof response->error, "%s", message[0] ? message : loaded_curl_easy_strerror(code));
        result = -1;
    } else {
        loaded_curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response->status);
    }
    loaded_curl_easy_cleanup(curl);
    loaded_curl_slist_free_all(headers);
    return result;
}

void clibcurl_response_free(clibcurl_response *response) {
    free(response->body);
    free(response->cache_control);
    response->body = NULL;
    response->cache_control = NULL;
    response->length = 0;
}
