/*
 * The ceiling: the to-do API on raw libevent evhttp, the way a C programmer would write it.
 * One event_base + evhttp + SO_REUSEPORT listener per thread; one mutex-protected store.
 * Routes: GET/POST/DELETE /todos (GET takes limit and offset), GET/PATCH/PUT/DELETE /todos/{id},
 * GET /healthz. Same JSON fields as TodoServer. To-dos are listed in creation order (TodoServer's
 * default order when no to-do has an `order`, as in every benchmark workload); it does not
 * validate as strictly, filter or sort. Usage: todo_c_server PORT THREADS
 */
#define _GNU_SOURCE
#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/listener.h>
#include <event2/thread.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct todo {
    char id[37];
    char *title;
    int completed;
    int has_order;
    long long order;
    char due[11];
    long long created_ms, updated_ms;
    size_t index; /* position in the creation-order array */
} todo;

/* Open-addressing hash table from id to todo, plus a creation-order array. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static todo **table;
static size_t table_size = 1 << 12, table_count;
static todo **ordered;
static size_t ordered_count, ordered_capacity;

static uint64_t hash(const char *s) {
    uint64_t h = 1469598103934665603ULL;
    while (*s) h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
    return h;
}

static todo **slot(const char *id) {
    size_t i = hash(id) & (table_size - 1);
    while (table[i] && strcmp(table[i]->id, id) != 0) i = (i + 1) & (table_size - 1);
    return &table[i];
}

static void grow(void) {
    todo **old = table;
    size_t old_size = table_size;
    table_size *= 2;
    table = calloc(table_size, sizeof(todo *));
    for (size_t i = 0; i < old_size; i++)
        if (old[i] && old[i] != (todo *)1) *slot(old[i]->id) = old[i];
    free(old);
}

static void insert(todo *t) {
    if ((table_count + 1) * 2 > table_size) grow();
    *slot(t->id) = t;
    table_count++;
    if (ordered_count == ordered_capacity) {
        ordered_capacity = ordered_capacity ? ordered_capacity * 2 : 1024;
        ordered = realloc(ordered, ordered_capacity * sizeof(todo *));
    }
    t->index = ordered_count;
    ordered[ordered_count++] = t;
}

/* Removal with backward-shift deletion keeps the probe chains intact. */
static void erase(todo *t) {
    size_t i = hash(t->id) & (table_size - 1);
    while (table[i] != t) i = (i + 1) & (table_size - 1);
    table[i] = NULL;
    for (size_t j = (i + 1) & (table_size - 1); table[j]; j = (j + 1) & (table_size - 1)) {
        todo *moved = table[j];
        table[j] = NULL;
        *slot(moved->id) = moved;
    }
    table_count--;
    memmove(&ordered[t->index], &ordered[t->index + 1], (ordered_count - t->index - 1) * sizeof(todo *));
    ordered_count--;
    for (size_t k = t->index; k < ordered_count; k++) ordered[k]->index = k;
    free(t->title);
    free(t);
}

static long long now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void format_time(long long ms, char out[32]) {
    time_t seconds = ms / 1000;
    struct tm tm;
    gmtime_r(&seconds, &tm);
    snprintf(out, 32, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
             tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(ms % 1000));
}

static __thread uint64_t rng;
static void make_id(char out[37]) {
    if (!rng) rng = (uint64_t)now_ms() ^ (uint64_t)pthread_self();
    unsigned char b[16];
    for (int i = 0; i < 16; i++) {
        rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
        b[i] = (unsigned char)rng;
    }
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2],
             b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

static void write_todo(struct evbuffer *out, const todo *t, const char *base) {
    char created[32], updated[32];
    format_time(t->created_ms, created);
    format_time(t->updated_ms, updated);
    evbuffer_add_printf(out, "{\"completed\":%s,\"createdAt\":\"%s\",\"dueDate\":", t->completed ? "true" : "false", created);
    if (t->due[0]) evbuffer_add_printf(out, "\"%s\"", t->due); else evbuffer_add(out, "null", 4);
    evbuffer_add_printf(out, ",\"id\":\"%s\",\"order\":", t->id);
    if (t->has_order) evbuffer_add_printf(out, "%lld", t->order); else evbuffer_add(out, "null", 4);
    /* The title is kept as the JSON string text it arrived as (escapes included). */
    evbuffer_add_printf(out, ",\"title\":\"%s\"", t->title);
    evbuffer_add_printf(out, ",\"updatedAt\":\"%s\",\"url\":\"%s/todos/%s\"}", updated, base, t->id);
}

/* A deliberately small JSON reader: finds "key": and reads the value after it. */
static const char *find_key(const char *body, const char *key) {
    char pattern[32];
    snprintf(pattern, sizeof pattern, "\"%s\"", key);
    const char *p = strstr(body, pattern);
    if (!p) return NULL;
    p += strlen(pattern);
    while (*p == ' ' || *p == ':') p++;
    return p;
}

static char *read_string(const char *p) {
    if (*p != '"') return NULL;
    const char *end = ++p;
    while (*end && *end != '"') end += (*end == '\\' && end[1]) ? 2 : 1;
    if (*end != '"') return NULL;
    return strndup(p, (size_t)(end - p));
}

/* Applies the fields in body to t; returns 0, or -1 when the title is missing but required. */
static int apply(todo *t, const char *body, int title_required) {
    const char *p;
    if ((p = find_key(body, "title"))) {
        char *title = read_string(p);
        if (!title || !*title) { free(title); return -1; }
        free(t->title);
        t->title = title;
    } else if (title_required) return -1;
    if ((p = find_key(body, "completed"))) t->completed = strncmp(p, "true", 4) == 0;
    if ((p = find_key(body, "order"))) {
        t->has_order = strncmp(p, "null", 4) != 0;
        t->order = t->has_order ? strtoll(p, NULL, 10) : 0;
    }
    if ((p = find_key(body, "dueDate"))) {
        if (*p == '"' && strlen(p) > 11) { memcpy(t->due, p + 1, 10); t->due[10] = 0; } else t->due[0] = 0;
    }
    return 0;
}

static void send_json(struct evhttp_request *req, int code, struct evbuffer *body) {
    struct evkeyvalq *h = evhttp_request_get_output_headers(req);
    evhttp_add_header(h, "Content-Type", "application/json");
    evhttp_add_header(h, "Access-Control-Allow-Origin", "*");
    evhttp_send_reply(req, code, NULL, body);
}

static void send_problem(struct evhttp_request *req, int code, const char *title) {
    struct evbuffer *b = evhttp_request_get_output_buffer(req);
    evbuffer_add_printf(b, "{\"detail\":\"%s\",\"status\":%d,\"title\":\"%s\",\"type\":\"about:blank\"}", title, code, title);
    struct evkeyvalq *h = evhttp_request_get_output_headers(req);
    evhttp_add_header(h, "Content-Type", "application/problem+json");
    evhttp_add_header(h, "Access-Control-Allow-Origin", "*");
    evhttp_send_reply(req, code, NULL, NULL);
}

static char *body_of(struct evhttp_request *req) {
    struct evbuffer *in = evhttp_request_get_input_buffer(req);
    size_t n = evbuffer_get_length(in);
    char *s = malloc(n + 1);
    evbuffer_copyout(in, s, n);
    s[n] = 0;
    return s;
}

static void handle(struct evhttp_request *req, void *arg) {
    (void)arg;
    const char *uri = evhttp_request_get_uri(req);
    const char *host = evhttp_find_header(evhttp_request_get_input_headers(req), "Host");
    char base[300];
    snprintf(base, sizeof base, "http://%s", host ? host : "localhost");
    enum evhttp_cmd_type method = evhttp_request_get_command(req);
    size_t path_len = strcspn(uri, "?");
    struct evbuffer *out = evhttp_request_get_output_buffer(req);

    if (path_len == 8 && strncmp(uri, "/healthz", 8) == 0) {
        pthread_mutex_lock(&lock);
        size_t count = table_count;
        pthread_mutex_unlock(&lock);
        evbuffer_add_printf(out, "{\"status\":\"ok\",\"todos\":%zu}", count);
        return send_json(req, 200, NULL);
    }
    if (path_len == 6 && strncmp(uri, "/todos", 6) == 0) {
        if (method == EVHTTP_REQ_GET) {
            long limit = 500, offset = 0;
            const char *q = strchr(uri, '?');
            if (q) {
                const char *l = strstr(q, "limit="), *o = strstr(q, "offset=");
                if (l) limit = strtol(l + 6, NULL, 10);
                if (o) offset = strtol(o + 7, NULL, 10);
            }
            evbuffer_add(out, "[", 1);
            pthread_mutex_lock(&lock);
            for (size_t i = (size_t)offset; i < ordered_count && i < (size_t)(offset + limit); i++) {
                if (i > (size_t)offset) evbuffer_add(out, ",", 1);
                write_todo(out, ordered[i], base);
            }
            char total[32];
            snprintf(total, sizeof total, "%zu", ordered_count);
            pthread_mutex_unlock(&lock);
            evbuffer_add(out, "]", 1);
            evhttp_add_header(evhttp_request_get_output_headers(req), "X-Total-Count", total);
            return send_json(req, 200, NULL);
        }
        if (method == EVHTTP_REQ_POST) {
            char *body = body_of(req);
            todo *t = calloc(1, sizeof *t);
            if (apply(t, body, 1) != 0) {
                free(body); free(t->title); free(t);
                return send_problem(req, 422, "Unprocessable Content");
            }
            free(body);
            make_id(t->id);
            t->created_ms = t->updated_ms = now_ms();
            pthread_mutex_lock(&lock);
            insert(t);
            write_todo(out, t, base);
            pthread_mutex_unlock(&lock);
            char location[400];
            snprintf(location, sizeof location, "%s/todos/%s", base, t->id);
            evhttp_add_header(evhttp_request_get_output_headers(req), "Location", location);
            return send_json(req, 201, NULL);
        }
        if (method == EVHTTP_REQ_DELETE) {
            pthread_mutex_lock(&lock);
            while (ordered_count) erase(ordered[ordered_count - 1]);
            pthread_mutex_unlock(&lock);
            evhttp_add_header(evhttp_request_get_output_headers(req), "Access-Control-Allow-Origin", "*");
            return evhttp_send_reply(req, 204, NULL, NULL);
        }
        evhttp_add_header(evhttp_request_get_output_headers(req), "Allow", "GET, HEAD, POST, DELETE, OPTIONS");
        return send_problem(req, 405, "Method Not Allowed");
    }
    if (path_len > 7 && strncmp(uri, "/todos/", 7) == 0 && path_len - 7 < 37) {
        char id[37];
        memcpy(id, uri + 7, path_len - 7);
        id[path_len - 7] = 0;
        pthread_mutex_lock(&lock);
        todo *t = *slot(id);
        if (!t) {
            pthread_mutex_unlock(&lock);
            return send_problem(req, 404, "Not Found");
        }
        if (method == EVHTTP_REQ_GET) {
            write_todo(out, t, base);
            pthread_mutex_unlock(&lock);
            return send_json(req, 200, NULL);
        }
        if (method == EVHTTP_REQ_PATCH || method == EVHTTP_REQ_PUT) {
            char *body = body_of(req);
            int failed = apply(t, body, method == EVHTTP_REQ_PUT);
            free(body);
            if (failed) {
                pthread_mutex_unlock(&lock);
                return send_problem(req, 422, "Unprocessable Content");
            }
            t->updated_ms = now_ms();
            write_todo(out, t, base);
            pthread_mutex_unlock(&lock);
            return send_json(req, 200, NULL);
        }
        if (method == EVHTTP_REQ_DELETE) {
            erase(t);
            pthread_mutex_unlock(&lock);
            evhttp_add_header(evhttp_request_get_output_headers(req), "Access-Control-Allow-Origin", "*");
            return evhttp_send_reply(req, 204, NULL, NULL);
        }
        pthread_mutex_unlock(&lock);
        evhttp_add_header(evhttp_request_get_output_headers(req), "Allow", "GET, HEAD, PUT, PATCH, DELETE, OPTIONS");
        return send_problem(req, 405, "Method Not Allowed");
    }
    send_problem(req, 404, "Not Found");
}

static int port;

static void *serve(void *arg) {
    (void)arg;
    struct event_base *base = event_base_new();
    struct evhttp *http = evhttp_new(base);
    evhttp_set_allowed_methods(http, 0x1FF);
    evhttp_set_gencb(http, handle, NULL);
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sin.sin_addr.s_addr = htonl(0x7f000001);
    struct evconnlistener *listener = evconnlistener_new_bind(
        base, NULL, NULL, LEV_OPT_REUSEABLE | LEV_OPT_REUSEABLE_PORT | LEV_OPT_CLOSE_ON_FREE, 1024,
        (struct sockaddr *)&sin, sizeof sin);
    if (!listener) { perror("bind"); exit(1); }
    evhttp_bind_listener(http, listener);
    event_base_dispatch(base);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: %s PORT THREADS\n", argv[0]); return 2; }
    port = atoi(argv[1]);
    int threads = atoi(argv[2]);
    signal(SIGPIPE, SIG_IGN);
    evthread_use_pthreads();
    table = calloc(table_size, sizeof(todo *));
    pthread_t ids[64];
    for (int i = 0; i < threads && i < 64; i++) pthread_create(&ids[i], NULL, serve, NULL);
    for (int i = 0; i < threads && i < 64; i++) pthread_join(ids[i], NULL);
    return 0;
}
