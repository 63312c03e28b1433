// Drives TodoServer's live feed: subscribers on `GET /todos/events`, and writers that create
// to-dos titled "fan-<n>" at a steady rate. Every event a subscriber reads is matched to its write
// by that number; the latency is from the write's answer reaching the writer to the event reaching
// the subscriber (0 when the event came first). Each subscriber must see every write exactly once,
// in order: gaps, repeats, resyncs and streams that end are counted and reported.
//
// fanout --sub-ports P[,P...] --subscribers N [--write-port P] [--rate R] [--writers W]
//        [--seconds S] [--hold S]
// Subscribers are spread over the listed ports (instances) in turn. With --rate 0 nothing is
// written: the subscribers only read (--hold keeps them open that long after they are all
// streaming, for a memory reading; "streaming" is printed when they are). One thread, epoll.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { SUBSCRIBER, WRITER };
static const char marker[] = "\"title\":\"fan-";
enum { MARKER_LEN = sizeof(marker) - 1, CARRY = 64 };

typedef struct {
  int kind, fd, port;
  // Subscriber: whether the head is read, how many numbers it read, a tail of the previous read.
  int streaming;
  long distinct;
  uint64_t order;  // a hash of the numbers in the order read: equal on every complete subscriber
  uint8_t *seen;   // a bit per write
  size_t carry_len;
  char carry[CARRY + MARKER_LEN + 32];
  // Writer: the number it waits on (-1: idle) and the answer read so far.
  long waiting;
  size_t answer_len;
  char answer[4096];
} conn_t;

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int epfd;
static int64_t *answered_at, *sent_at;
static long max_writes;
static int64_t *latencies_from_answer, *latencies_from_send;
static size_t latency_count, latency_cap;
static long events, gaps, repeats, resyncs, ended, refused, heads, bytes_read;

static int open_conn(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
    perror("connect");
    exit(2);
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

static void send_all(int fd, const char *bytes, size_t len) {
  while (len > 0) {
    ssize_t n = write(fd, bytes, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      perror("write");
      exit(2);
    }
    bytes += n;
    len -= (size_t)n;
  }
}

static void watch(conn_t *c) {
  fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK);
  struct epoll_event e = {.events = EPOLLIN, .data.ptr = c};
  epoll_ctl(epfd, EPOLL_CTL_ADD, c->fd, &e);
}

// Writers on several connections reach the server's loops in any order, so the feed's order is
// not the numbers' order: each number must come once, and every subscriber must read the same order.
static void note_event(conn_t *c, long n, int64_t at) {
  events++;
  if (n < 0 || n >= max_writes) {
    gaps++;
    return;
  }
  if (c->seen[n / 8] & (1u << (n % 8))) {
    repeats++;
    return;
  }
  c->seen[n / 8] |= (uint8_t)(1u << (n % 8));
  c->distinct++;
  c->order = (c->order ^ (uint64_t)n) * 0x100000001b3ULL;
  if (latency_count >= latency_cap) return;
  int64_t answered = answered_at[n];
  latencies_from_answer[latency_count] = answered == 0 || at < answered ? 0 : at - answered;
  latencies_from_send[latency_count] = at - sent_at[n];
  latency_count++;
}

// Scans `bytes` for complete "title":"fan-<n>" markers; keeps a tail that may hold a split one.
static void scan(conn_t *c, const char *bytes, size_t len, int64_t at) {
  static char joined[65536 + sizeof(((conn_t *)0)->carry)];
  memcpy(joined, c->carry, c->carry_len);
  memcpy(joined + c->carry_len, bytes, len);
  // A marker read in full is never kept in the tail: it would be read again.
  size_t total = c->carry_len + len, from = 0, parsed_to = 0;
  if (memmem(joined, total, "event: resync", 13)) resyncs++;
  for (;;) {
    char *hit = memmem(joined + from, total - from, marker, MARKER_LEN);
    if (!hit) break;
    size_t at_digits = (size_t)(hit - joined) + MARKER_LEN, end = at_digits;
    while (end < total && joined[end] >= '0' && joined[end] <= '9') end++;
    if (end == total) {  // The number may go on in the next read.
      from = (size_t)(hit - joined);
      goto keep;
    }
    note_event(c, strtol(joined + at_digits, NULL, 10), at);
    from = parsed_to = end;
  }
  from = total > MARKER_LEN + 24 ? total - (MARKER_LEN + 24) : 0;
  if (from < parsed_to) from = parsed_to;
keep:
  c->carry_len = total - from;
  memmove(c->carry, joined + from, c->carry_len);
}

static void read_subscriber(conn_t *c) {
  static char buf[65536];
  for (;;) {
    ssize_t n = read(c->fd, buf, sizeof buf);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
    if (n <= 0) {
      ended++;
      epoll_ctl(epfd, EPOLL_CTL_DEL, c->fd, NULL);
      close(c->fd);
      return;
    }
    int64_t at = now_ns();
    bytes_read += n;
    const char *body = buf;
    size_t len = (size_t)n;
    if (!c->streaming) {
      if (strncmp(buf, "HTTP/1.1 200", 12) != 0) {
        refused++;
        fprintf(stderr, "subscription refused: %.40s\n", buf);
        epoll_ctl(epfd, EPOLL_CTL_DEL, c->fd, NULL);
        close(c->fd);
        return;
      }
      char *end = memmem(buf, len, "\r\n\r\n", 4);
      if (!end) continue;  // A head split over reads: rare; the rest is body.
      c->streaming = 1;
      heads++;
      body = end + 4;
      len -= (size_t)(body - buf);
    }
    scan(c, body, len, at);
  }
}

static conn_t *writers;
static int writer_count, write_port;
static long written, answers, backlog;
static char title_body[64];

static void send_write(conn_t *w, long n, int64_t at) {
  char request[256];
  int body = snprintf(title_body, sizeof title_body, "{\"title\":\"fan-%ld\"}", n);
  int len = snprintf(request, sizeof request,
                     "POST /todos HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
                     "Content-Length: %d\r\n\r\n%s",
                     body, title_body);
  w->waiting = n;
  w->answer_len = 0;
  sent_at[n] = at;
  send_all(w->fd, request, (size_t)len);
}

static conn_t *idle_writer(void) {
  for (int i = 0; i < writer_count; i++)
    if (writers[i].waiting < 0) return &writers[i];
  return NULL;
}

static void read_writer(conn_t *w) {
  for (;;) {
    ssize_t n = read(w->fd, w->answer + w->answer_len, sizeof w->answer - w->answer_len - 1);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
    if (n <= 0) {
      fprintf(stderr, "a writer's connection closed\n");
      exit(2);
    }
    w->answer_len += (size_t)n;
    w->answer[w->answer_len] = 0;
    char *end = strstr(w->answer, "\r\n\r\n");
    if (!end) continue;
    char *length = strcasestr(w->answer, "\r\nContent-Length:");
    size_t want = (size_t)(end + 4 - w->answer) + (length ? strtoul(length + 17, NULL, 10) : 0);
    if (w->answer_len < want) continue;
    if (strncmp(w->answer, "HTTP/1.1 201", 12) != 0) {
      fprintf(stderr, "write refused: %.60s\n", w->answer);
      exit(2);
    }
    answered_at[w->waiting] = now_ns();
    answers++;
    w->waiting = -1;
    if (backlog > 0) {  // Writes that found no idle writer go now.
      send_write(w, written, now_ns());
      written++;
      backlog--;
    }
    return;
  }
}

static int compare(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static double percentile_ms(int64_t *values, size_t count, double p) {
  if (count == 0) return 0;
  size_t index = (size_t)(p * (double)(count - 1));
  return (double)values[index] / 1e6;
}

static const char *option(int argc, char **argv, const char *name, const char *fallback) {
  for (int i = 1; i + 1 < argc; i++)
    if (strcmp(argv[i], name) == 0) return argv[i + 1];
  return fallback;
}

int main(int argc, char **argv) {
  int subscribers = atoi(option(argc, argv, "--subscribers", "1000"));
  double rate = atof(option(argc, argv, "--rate", "1000"));
  double seconds = atof(option(argc, argv, "--seconds", "10"));
  double hold = atof(option(argc, argv, "--hold", "0"));
  writer_count = atoi(option(argc, argv, "--writers", "8"));
  write_port = atoi(option(argc, argv, "--write-port", "0"));
  char *ports_text = strdup(option(argc, argv, "--sub-ports", "8080"));
  int ports[16], port_count = 0;
  for (char *p = strtok(ports_text, ","); p && port_count < 16; p = strtok(NULL, ",")) ports[port_count++] = atoi(p);
  if (write_port == 0) write_port = ports[0];

  max_writes = (long)(rate * seconds) + 16;
  answered_at = calloc((size_t)max_writes, sizeof *answered_at);
  sent_at = calloc((size_t)max_writes, sizeof *sent_at);
  latency_cap = (size_t)max_writes * (size_t)subscribers;
  latencies_from_answer = malloc(latency_cap * sizeof(int64_t) + 8);
  latencies_from_send = malloc(latency_cap * sizeof(int64_t) + 8);
  epfd = epoll_create1(0);

  conn_t *subs = calloc((size_t)subscribers + 1, sizeof *subs);
  for (int i = 0; i < subscribers; i++) {
    conn_t *c = &subs[i];
    c->kind = SUBSCRIBER;
    c->port = ports[i % port_count];
    c->fd = open_conn(c->port);
    c->order = 0xcbf29ce484222325ULL;
    c->seen = calloc((size_t)max_writes / 8 + 1, 1);
    static const char subscribe[] = "GET /todos/events HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n";
    send_all(c->fd, subscribe, sizeof subscribe - 1);
    watch(c);
  }
  struct epoll_event ready[256];
  int64_t deadline = now_ns() + 30 * 1000000000LL;
  while (heads + refused < subscribers) {
    if (now_ns() > deadline) {
      fprintf(stderr, "only %ld of %d subscribers streaming after 30 s\n", heads, subscribers);
      return 2;
    }
    int n = epoll_wait(epfd, ready, 256, 100);
    for (int i = 0; i < n; i++) read_subscriber(ready[i].data.ptr);
  }
  printf("streaming subscribers=%ld refused=%ld\n", heads, refused);
  fflush(stdout);

  writers = calloc((size_t)writer_count, sizeof *writers);
  if (rate > 0) {
    for (int i = 0; i < writer_count; i++) {
      writers[i].kind = WRITER;
      writers[i].fd = open_conn(write_port);
      writers[i].waiting = -1;
      watch(&writers[i]);
    }
  }
  int64_t start = now_ns(), stop = start + (int64_t)((rate > 0 ? seconds : hold) * 1e9);
  long total_writes = rate > 0 ? (long)(rate * seconds) : 0;
  while (now_ns() < stop || (rate > 0 && answers < written)) {
    int64_t at = now_ns();
    long due = (long)((double)(at - start) / 1e9 * rate);
    if (due > total_writes) due = total_writes;
    while (written + backlog < due) {
      conn_t *w = idle_writer();
      if (!w) {
        backlog++;
        continue;
      }
      send_write(w, written, at);
      written++;
    }
    int n = epoll_wait(epfd, ready, 256, 1);
    for (int i = 0; i < n; i++) {
      conn_t *c = ready[i].data.ptr;
      if (c->kind == SUBSCRIBER) read_subscriber(c);
      else read_writer(c);
    }
    if (now_ns() > stop + 10 * 1000000000LL) break;  // Answers that never came: reported below.
  }
  // Events still on their way after the last answer: read until every subscriber has the last
  // write or 5 s pass.
  int64_t settle = now_ns() + 5 * 1000000000LL;
  while (rate > 0 && now_ns() < settle) {
    long behind = 0;
    for (int i = 0; i < subscribers; i++)
      if (subs[i].streaming && subs[i].distinct < answers) behind++;
    if (behind == 0) break;
    int n = epoll_wait(epfd, ready, 256, 10);
    for (int i = 0; i < n; i++) {
      conn_t *c = ready[i].data.ptr;
      if (c->kind == SUBSCRIBER) read_subscriber(c);
    }
  }
  // Complete: read every answered write. Orders: how many different orders the complete ones read.
  long complete = 0, orders = 0;
  uint64_t first_order = 0;
  for (int i = 0; i < subscribers; i++) {
    if (!subs[i].streaming || subs[i].distinct != answers) continue;
    if (complete++ == 0) {
      first_order = subs[i].order;
      orders = 1;
    } else if (subs[i].order != first_order) {
      orders = 2;
    }
  }
  gaps += (long)heads * answers - events + repeats;  // what no subscriber read
  qsort(latencies_from_answer, latency_count, sizeof(int64_t), compare);
  qsort(latencies_from_send, latency_count, sizeof(int64_t), compare);
  double elapsed = (double)(now_ns() - start) / 1e9;
  printf("bytes=%ld subscribers=%d writes=%ld answers=%ld write_rate=%.0f events=%ld expected=%ld complete=%ld orders=%ld missed=%ld "
         "repeats=%ld resyncs=%ld ended=%ld "
         "p50_ms=%.2f p90_ms=%.2f p99_ms=%.2f max_ms=%.2f send_p50_ms=%.2f send_p99_ms=%.2f elapsed_s=%.2f\n",
         bytes_read, subscribers, written, answers, (double)answers / seconds, events, answers * (long)heads, complete, orders, gaps,
         repeats, resyncs, ended, percentile_ms(latencies_from_answer, latency_count, 0.50),
         percentile_ms(latencies_from_answer, latency_count, 0.90),
         percentile_ms(latencies_from_answer, latency_count, 0.99),
         percentile_ms(latencies_from_answer, latency_count, 1.0),
         percentile_ms(latencies_from_send, latency_count, 0.50),
         percentile_ms(latencies_from_send, latency_count, 0.99), elapsed);
  return 0;
}
