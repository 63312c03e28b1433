#!/usr/bin/env python3
"""The Python clients of scripts/real-clients.sh, none of them written here: the standard library's
http.client, requests, aiohttp, and h11 as an oracle of the wire.

Every check appends one line to RESULTS: `pass<TAB>name` or `fail<TAB>name: detail` (the shell
script counts them with its own curl, wrk, ab and Node checks and prints the summary).

- http.client: one connection for a dozen requests (HEAD followed by GET, 304, 204, 404, OPTIONS *),
  the same socket throughout, every answer HTTP/1.1 and kept alive.
- requests (Session): the to-do life cycle with conditional requests, Link and X-Total-Count,
  problem answers (400, 404, 412, 415, 422), all over one pooled connection.
- aiohttp: concurrent creates and reads over a bounded pool, connections reused.
- h11: raw sockets, requests pipelined in one send (HEAD, 404, a POST with a body, 204s, a large
  answer, HTTP/1.0 with and without keep-alive, Connection: close); every byte received is fed to
  h11.Connection(our_role=CLIENT), which must parse every answer in order without a ProtocolError,
  HEAD with Content-Length and no body, and h11's states must show the keep-alive or close
  decision each request called for; `Expect: 100-continue` (100, then the answer; a refused body
  gets 413 and a close without 100; none to an HTTP/1.0 client; also on a chunked body), a chunked
  upload with a trailer, a malformed request line or TLS bytes after a good request: 400
  problem+json with Connection: close, then the end of the stream and nothing after it run; a
  pipeline of 100 requests whose answers (about 8 MB) exceed the server's output bound, sent before
  reading: all whole and in order; a pipeline split 7 bytes at a time. Every answer h11 parses must
  be HTTP/1.1 with a reason, an IMF-fixdate Date, no field twice, and no Content-Length on 1xx/204.

Usage: real_clients.py BASE_URL RESULTS
       real_clients.py shape KIND FILE   (exit 0 when FILE holds a KIND: health, index, todo,
                                          todos, problem; used by the shell script's curl checks)
"""
import asyncio
import http.client
import json
import socket
import sys
import time
import urllib.parse

TODO_KEYS = {"completed", "createdAt", "dueDate", "id", "order", "title", "updatedAt", "url"}


# Shapes of the answers' bodies (docs/API.md).

def is_todo(value):
    return (isinstance(value, dict) and set(value) == TODO_KEYS and isinstance(value["id"], str)
            and isinstance(value["title"], str) and isinstance(value["completed"], bool)
            and isinstance(value["url"], str) and value["url"].endswith("/todos/" + value["id"]))


def is_todos(value):
    return isinstance(value, list) and all(is_todo(item) for item in value)


def is_health(value):
    return isinstance(value, dict) and value.get("status") == "ok" and isinstance(value.get("todos"), int)


def is_index(value):
    return (isinstance(value, dict) and value.get("name") == "TodoServer" and isinstance(value.get("links"), dict)
            and isinstance(value.get("build"), dict) and isinstance(value.get("version"), str))


def is_problem(value, status=None):
    return (isinstance(value, dict) and {"type", "title", "status", "detail"} <= set(value)
            and isinstance(value["status"], int) and (status is None or value["status"] == status))


SHAPES = {"health": is_health, "index": is_index, "todo": is_todo, "todos": is_todos, "problem": is_problem}


def parse_json(data):
    try:
        return json.loads(data)
    except (ValueError, UnicodeDecodeError):
        return None


class Checks:
    def __init__(self, path):
        self.path = path

    def check(self, condition, name, detail=""):
        with open(self.path, "a", encoding="utf-8") as file:
            if condition:
                file.write(f"pass\t{name}\n")
            else:
                file.write(f"fail\t{name}: {detail}\n")
                print(f"FAIL {name}: {detail}", file=sys.stderr)
        return bool(condition)

    def equal(self, actual, expected, name):
        return self.check(actual == expected, name, f"got {actual!r}, expected {expected!r}")


def imf_date(value):
    """Whether a Date field is an IMF-fixdate (RFC 9110 §5.6.7) within a minute of now."""
    import email.utils
    import re

    if not value or not re.fullmatch(r"(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d\d:\d\d:\d\d GMT", value):
        return False
    return abs(email.utils.parsedate_to_datetime(value).timestamp() - time.time()) < 60


def header(headers, name):
    """The value of a field in a list of (name, value) byte pairs (h11's), or None."""
    name = name.lower().encode()
    values = [value.decode("latin-1") for key, value in headers if key.lower() == name]
    return ", ".join(values) if values else None


# http.client: one connection, many requests.

def check_http_client(c, host, port):
    conn = http.client.HTTPConnection(host, port, timeout=10)
    sockets = set()

    def request(method, path, body=None, headers=None):
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        data = response.read()
        sockets.add(id(conn.sock))
        where = f"http.client {method} {path}"
        c.check(response.version == 11 and not response.will_close, f"{where}: HTTP/1.1, kept alive",
                f"version {response.version}, will_close {response.will_close}")
        return response, data, where

    r, data, where = request("GET", "/healthz")
    c.equal(r.status, 200, where)
    c.check(r.getheader("Content-Type") == "application/json" and is_health(parse_json(data)), f"{where}: JSON health", data[:200])

    r, data, where = request("POST", "/todos", json.dumps({"title": "http.client"}), {"Content-Type": "application/json"})
    c.equal(r.status, 201, where)
    todo = parse_json(data)
    c.check(is_todo(todo) and todo["title"] == "http.client", f"{where}: a to-do", data[:200])
    c.check(todo and r.getheader("Location") == todo["url"] and r.getheader("ETag") == '"1"', f"{where}: Location, ETag",
            f"{r.getheader('Location')} {r.getheader('ETag')}")
    path = "/todos/" + (todo or {}).get("id", "missing")

    for target in ("/todos", path, "/openapi.json"):
        head, head_data, where = request("HEAD", target)
        c.check(head.status == 200 and head_data == b"" and head.getheader("Content-Length") is not None,
                f"{where}: 200, Content-Length, no body", f"{head.status} {head.getheader('Content-Length')} {head_data[:80]!r}")
        r, data, where = request("GET", target)
        c.check(r.status == 200 and str(len(data)) == head.getheader("Content-Length") == r.getheader("Content-Length"),
                f"{where} after HEAD: the body HEAD announced", f"{r.status}, {len(data)} bytes, HEAD said {head.getheader('Content-Length')}")

    r, data, where = request("PATCH", path, json.dumps({"completed": True}), {"Content-Type": "application/json", "If-Match": '"1"'})
    c.check(r.status == 200 and r.getheader("ETag") == '"2"' and (parse_json(data) or {}).get("completed") is True,
            f"{where}: 200, ETag \"2\", completed", f"{r.status} {r.getheader('ETag')} {data[:200]}")
    r, data, where = request("GET", path, headers={"If-None-Match": '"2"'})
    c.check(r.status == 304 and data == b"" and r.getheader("ETag") == '"2"', f"{where} If-None-Match: 304, no body",
            f"{r.status} {data[:80]!r}")
    r, data, where = request("GET", "/no/such/path")
    c.check(r.status == 404 and r.getheader("Content-Type") == "application/problem+json" and is_problem(parse_json(data), 404),
            f"{where}: 404 problem+json", f"{r.status} {r.getheader('Content-Type')} {data[:200]}")
    r, data, where = request("OPTIONS", "*")
    c.check(r.status == 204 and data == b"" and "GET" in (r.getheader("Allow") or ""), f"{where}: 204 with Allow",
            f"{r.status} {r.getheader('Allow')} {data[:80]!r}")
    r, data, where = request("DELETE", path)
    c.check(r.status == 204 and data == b"", f"{where}: 204, no body", f"{r.status} {data[:80]!r}")
    r, data, where = request("GET", path)
    c.check(r.status == 404 and is_problem(parse_json(data), 404), f"{where} after DELETE: 404 problem", f"{r.status} {data[:200]}")
    c.equal(len(sockets), 1, "http.client: every request on one connection")
    conn.close()


# requests: a Session over one pooled connection.

def check_requests(c, base):
    import requests

    session = requests.Session()
    session.headers["User-Agent"] = "real-clients (requests)"
    r = session.post(base + "/todos", json={"title": "requests", "order": 7, "dueDate": "2030-01-02"})
    todo = r.json() if r.status_code == 201 else None
    c.check(r.status_code == 201 and is_todo(todo) and todo["order"] == 7 and todo["dueDate"] == "2030-01-02"
            and r.headers.get("Location") == todo["url"], "requests POST /todos: 201, a to-do, Location", f"{r.status_code} {r.text[:200]}")
    url = r.headers.get("Location") or base + "/todos/missing"
    r = session.get(url)
    c.check(r.status_code == 200 and r.json() == todo and r.headers.get("ETag") == '"1"', "requests GET /todos/{id}: the same to-do",
            f"{r.status_code} {r.text[:200]}")
    r = session.put(url, json={"title": "requests, replaced", "completed": True})
    c.check(r.status_code == 200 and r.headers.get("ETag") == '"2"' and r.json()["title"] == "requests, replaced"
            and r.json()["order"] is None, "requests PUT /todos/{id}: replaced, ETag \"2\"", f"{r.status_code} {r.text[:200]}")
    r = session.patch(url, json={"title": "stale"}, headers={"If-Match": '"1"'})
    c.check(r.status_code == 412 and r.headers.get("ETag") == '"2"' and is_problem(r.json(), 412)
            and r.headers.get("Content-Type") == "application/problem+json", "requests PATCH with a stale If-Match: 412 with the ETag",
            f"{r.status_code} {r.headers.get('ETag')} {r.text[:200]}")
    r = session.get(url, headers={"If-None-Match": 'W/"2"'})
    c.check(r.status_code == 304 and r.content == b"", "requests GET with a weak If-None-Match: 304", f"{r.status_code} {r.content[:80]!r}")
    for n in range(3):
        session.post(base + "/todos", json={"title": f"requests page {n}"}).close()
    r = session.get(base + "/todos", params={"limit": 1, "offset": 1})
    total = r.headers.get("X-Total-Count", "")
    c.check(r.status_code == 200 and is_todos(r.json()) and len(r.json()) == 1 and total.isdigit() and int(total) >= 4,
            "requests GET /todos?limit=1&offset=1: one to-do, X-Total-Count", f"{r.status_code} {total} {r.text[:200]}")
    c.check({"first", "prev", "next", "last"} <= set(r.links) and r.links["next"]["url"].startswith(base + "/todos?"),
            "requests: Link parsed into first, prev, next, last", str(r.links))
    r = session.get(r.links.get("next", {}).get("url", base + "/todos"))
    c.check(r.status_code == 200 and len(r.json()) == 1, "requests: following Link rel=next", f"{r.status_code} {r.text[:200]}")
    r = session.get(base + "/todos", params={"completed": "maybe"})
    c.check(r.status_code == 400 and is_problem(r.json(), 400) and "completed" in r.json()["detail"],
            "requests GET /todos?completed=maybe: 400 naming it", f"{r.status_code} {r.text[:200]}")
    r = session.post(base + "/todos", data=b'{"title": "x",}', headers={"Content-Type": "application/json"})
    c.check(r.status_code == 400 and is_problem(r.json(), 400), "requests POST invalid JSON: 400 problem", f"{r.status_code} {r.text[:200]}")
    r = session.post(base + "/todos", json={"title": "x", "colour": "red"})
    c.check(r.status_code == 422 and is_problem(r.json(), 422) and isinstance(r.json().get("errors"), list),
            "requests POST an unknown field: 422 with errors", f"{r.status_code} {r.text[:200]}")
    r = session.post(base + "/todos", data=b"<todo/>", headers={"Content-Type": "application/xml"})
    c.check(r.status_code == 415 and is_problem(r.json(), 415), "requests POST application/xml: 415", f"{r.status_code} {r.text[:200]}")
    r = session.delete(url)
    c.check(r.status_code == 204 and r.content == b"", "requests DELETE /todos/{id}: 204", f"{r.status_code} {r.content[:80]!r}")
    r = session.get(url)
    c.check(r.status_code == 404 and is_problem(r.json(), 404), "requests GET after DELETE: 404", f"{r.status_code} {r.text[:200]}")
    r = session.head(base + "/todos")
    c.check(r.status_code == 200 and r.content == b"" and r.headers.get("Content-Length", "").isdigit(),
            "requests HEAD /todos: Content-Length, no body", f"{r.status_code} {r.headers}")
    r = session.get(base + "/todos")
    c.check(r.status_code == 200 and str(len(r.content)) == r.headers.get("Content-Length") and is_todos(r.json()),
            "requests GET /todos after HEAD: a list", f"{r.status_code} {r.text[:200]}")
    pools = session.get_adapter(base).poolmanager.pools
    connections = sum(pools[key].num_connections for key in pools.keys())  # noqa: SIM118 (urllib3's container has no iteration)
    c.equal(connections, 1, "requests: the session used one connection")
    session.close()


# aiohttp: concurrent requests over a bounded pool.

async def aiohttp_checks(c, base):
    import aiohttp

    connections = 0

    async def on_connection(session, context, params):
        nonlocal connections
        connections += 1

    trace = aiohttp.TraceConfig()
    trace.on_connection_create_end.append(on_connection)
    limit = 8
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=limit), trace_configs=[trace]) as session:
        async def create(n):
            async with session.post(base + "/todos", json={"title": f"aiohttp {n}", "order": n}) as r:
                return r.status, r.headers.get("Location"), await r.json(content_type=None)

        created = await asyncio.gather(*(create(n) for n in range(24)))
        c.check(all(status == 201 and is_todo(body) and location == body["url"] for status, location, body in created),
                "aiohttp: 24 concurrent POST /todos: 201, a to-do, Location", str([s for s, _, _ in created]))
        ids = [body["id"] for _, _, body in created if isinstance(body, dict) and "id" in body]
        c.equal(len(set(ids)), 24, "aiohttp: 24 distinct ids")

        async def fetch(method, path, expect, shape):
            async with session.request(method, base + path) as r:
                body = await r.read()
                value = parse_json(body) if body else None
                ok = r.status == expect and (shape(value) if shape else body == b"")
                length = r.headers.get("Content-Length")
                if method == "HEAD":
                    ok = ok and length is not None and length.isdigit()
                return ok, f"{method} {path} -> {r.status} {body[:120]!r}"

        jobs = []
        for n, todo_id in enumerate(ids):
            jobs.append(fetch("GET", f"/todos/{todo_id}", 200, is_todo))
            jobs.append(fetch("HEAD", f"/todos/{todo_id}", 200, None))
            jobs.append(fetch("GET", f"/todos?limit={n + 1}", 200, is_todos))
            jobs.append(fetch("GET", "/healthz", 200, is_health))
            jobs.append(fetch("GET", f"/nope/{n}", 404, lambda v: is_problem(v, 404)))
        results = await asyncio.gather(*jobs)
        bad = [where for ok, where in results if not ok]
        c.check(not bad, f"aiohttp: {len(jobs)} concurrent GET, HEAD and 404 answers as expected", "; ".join(bad[:5]))

        async def delete(todo_id):
            async with session.delete(f"{base}/todos/{todo_id}") as r:
                return r.status, await r.read()

        deleted = await asyncio.gather(*(delete(todo_id) for todo_id in ids))
        c.check(all(status == 204 and body == b"" for status, body in deleted), "aiohttp: 24 concurrent DELETE: 204, no body",
                str(deleted[:5]))
    c.check(0 < connections <= limit, f"aiohttp: {len(jobs) + 48} requests on at most {limit} connections", f"{connections} connections")


# h11: the oracle of the byte stream.

class Wire:
    """A raw socket whose received bytes all go into an h11 client connection."""

    def __init__(self, c, host, port, name):
        import h11

        self.h11 = h11
        self.c, self.name = c, name
        self.sock = socket.create_connection((host, port), timeout=15)
        self.conn = h11.Connection(our_role=h11.CLIENT, max_incomplete_event_size=1 << 20)
        self.received = 0
        self.host = f"{host}:{port}"

    @staticmethod
    def encode(h11, method, target, headers=(), body=None, chunks=None, trailers=()):
        """The bytes h11 writes for a request, and the events that model it."""
        events = [h11.Request(method=method, target=target, headers=list(headers))]
        if body is not None:
            events.append(h11.Data(data=body))
        for chunk in chunks or ():
            events.append(h11.Data(data=chunk))
        events.append(h11.EndOfMessage(headers=list(trailers)))
        writer = h11.Connection(our_role=h11.CLIENT)
        return b"".join(writer.send(event) or b"" for event in events), events

    def request(self, method, target, headers=(), body=None, chunks=None, trailers=()):
        """Bytes of a request in this connection's Host (the caller sends them), its model events."""
        headers = [("Host", self.host)] + list(headers)
        if body is not None:
            headers.append(("Content-Length", str(len(body))))
        return self.encode(self.h11, method, target, headers, body, chunks, trailers)

    def model(self, events):
        """Tells the parser which request an answer is for (h11 needs it: HEAD, close)."""
        for event in events:
            self.conn.send(event)

    def next_event(self):
        h11 = self.h11
        while True:
            event = self.conn.next_event()
            if event is not h11.NEED_DATA:
                return event
            data = self.sock.recv(65536)
            self.received += len(data)
            self.conn.receive_data(data)  # b"", the end of the stream, gives ConnectionClosed

    def response(self, where):
        """Reads one answer: (status, headers, body, informational responses) or None on an error."""
        h11 = self.h11
        informational, body = [], b""
        try:
            event = self.next_event()
            while isinstance(event, h11.InformationalResponse):
                informational.append(event.status_code)
                event = self.next_event()
            if not isinstance(event, h11.Response):
                self.c.check(False, f"{self.name}: {where}: a response", f"h11 gave {event!r}")
                return None
            status, headers = event.status_code, list(event.headers)
            version, reason = event.http_version, event.reason
            while True:
                part = self.next_event()
                if isinstance(part, h11.Data):
                    body += part.data
                elif isinstance(part, h11.EndOfMessage):
                    break
                else:
                    self.c.check(False, f"{self.name}: {where}: the body's end", f"h11 gave {part!r}")
                    return None
        except h11.ProtocolError as error:
            self.c.check(False, f"{self.name}: {where}: h11 parses the answer", f"{type(error).__name__}: {error}")
            return None
        except OSError as error:
            self.c.check(False, f"{self.name}: {where}: the answer arrives", f"{type(error).__name__}: {error}")
            return None
        self.c.check(version == b"1.1" and reason and imf_date(header(headers, "date")),
                     f"{self.name}: {where}: parsed by h11, HTTP/1.1, reason, an IMF-fixdate Date within a minute", f"{version!r} {reason!r} {headers}")
        names = [name.lower() for name, _ in headers]
        twice = {name for name in names if names.count(name) > 1}
        self.c.check(not twice, f"{self.name}: {where}: no field twice", str(twice))
        if status in (204, 304) or 100 <= status < 200:
            self.c.check(b"content-length" not in names or status == 304, f"{self.name}: {where}: {status} without Content-Length", str(headers))
        return status, headers, body, informational

    def kept_alive(self, where):
        """After an answer to a keep-alive request: both sides DONE, then a new cycle."""
        h11 = self.h11
        ok = self.c.check(self.conn.our_state is h11.DONE and self.conn.their_state is h11.DONE,
                          f"{self.name}: {where}: kept alive (h11 DONE/DONE)", f"{self.conn.our_state} / {self.conn.their_state}")
        if ok:
            self.conn.start_next_cycle()
        return ok

    def closed(self, where, shutdown=False):
        """After an answer that ends the connection: h11 MUST_CLOSE, then EOF and nothing more."""
        h11 = self.h11
        self.c.check(self.conn.their_state is h11.MUST_CLOSE, f"{self.name}: {where}: server closes (h11 MUST_CLOSE)",
                     f"{self.conn.our_state} / {self.conn.their_state}")
        if shutdown:
            self.sock.shutdown(socket.SHUT_WR)
        started = time.monotonic()
        try:
            event = self.next_event()
            ok = isinstance(event, h11.ConnectionClosed) or (event is h11.NEED_DATA)
            detail = repr(event)
        except h11.ProtocolError as error:
            ok, detail = False, f"{type(error).__name__}: {error} (bytes after the close answer)"
        except OSError as error:
            ok, detail = False, f"{type(error).__name__}: {error}"
        self.c.check(ok and self.conn.their_state is h11.CLOSED, f"{self.name}: {where}: then end of stream, nothing after it",
                     f"{detail}, state {self.conn.their_state}")
        return time.monotonic() - started

    def close(self):
        self.sock.close()


def check_h11(c, host, port):
    import h11

    # 1. Ten requests pipelined in one send, the last with Connection: close.
    w = Wire(c, host, port, "h11 pipeline")
    title = "pipelined " + "é" * 40
    body = json.dumps({"title": title}, ensure_ascii=False).encode()
    plan = [
        (("GET", "/healthz"), {}, 200, is_health),
        (("HEAD", "/todos"), {}, 200, "head"),
        (("GET", "/todos"), {}, 200, is_todos),
        (("GET", "/no/such/path"), {}, 404, lambda v: is_problem(v, 404)),
        (("POST", "/todos"), {"headers": [("Content-Type", "application/json")], "body": body}, 201,
         lambda v: is_todo(v) and v["title"] == title),
        (("OPTIONS", "/todos"), {"headers": [("Origin", "http://example.test"), ("Access-Control-Request-Method", "POST")]}, 204, None),
        (("DELETE", "/todos/00000000-0000-4000-8000-000000000000"), {}, 404, lambda v: is_problem(v, 404)),
        (("GET", "/openapi.json"), {}, 200, lambda v: isinstance(v, dict) and v.get("openapi") == "3.1.0"),
        (("PATCH", "/todos"), {}, 405, lambda v: is_problem(v, 405)),
        (("GET", "/"), {"headers": [("Connection", "close")]}, 200, is_index),
    ]
    wire, models = b"", []
    for (method, target), options, _, _ in plan:
        data, events = w.request(method, target, **options)
        wire += data
        models.append(events)
    w.sock.sendall(wire)
    head_length = None
    for n, (((method, target), options, status, shape), events) in enumerate(zip(plan, models)):
        where = f"#{n + 1} {method} {target}"
        w.model(events)
        answer = w.response(where)
        if answer is None:
            break
        got, headers, data, _ = answer
        c.equal(got, status, f"h11 pipeline: {where}: status, in order")
        length = header(headers, "content-length")
        if shape == "head":
            head_length = length
            c.check(length is not None and data == b"", f"h11 pipeline: {where}: Content-Length, no body", f"{length} {data[:80]!r}")
        elif shape is None:
            c.check(data == b"", f"h11 pipeline: {where}: no body", f"{length} {data[:80]!r}")
        else:
            c.check(shape(parse_json(data)) and length == str(len(data)), f"h11 pipeline: {where}: body shape, Content-Length",
                    f"{length} {data[:200]!r}")
        if method == "GET" and target == "/todos":
            c.equal(head_length, str(len(data)), "h11 pipeline: HEAD /todos announced the GET's length")
        if status == 201:
            c.check(header(headers, "location") == (parse_json(data) or {}).get("url"), "h11 pipeline: POST: Location", str(headers))
        if status == 405:
            c.check("GET" in (header(headers, "allow") or ""), "h11 pipeline: 405 with Allow", str(headers))
        if n < len(plan) - 1:
            c.check(header(headers, "connection") is None, f"h11 pipeline: {where}: no Connection field", str(header(headers, "connection")))
            if not w.kept_alive(where):
                break
        else:
            c.equal(header(headers, "connection"), "close", f"h11 pipeline: {where}: Connection: close")
            w.closed(where)
    w.close()

    # 2. HTTP/1.0: keep-alive asked for, then not. h11 only writes HTTP/1.1, so the bytes are ours;
    #    h11 parses the answers as those to the same requests over HTTP/1.1 (with the close the
    #    second one implies), and the framing HTTP/1.0 needs is checked besides: no chunked body.
    w = Wire(c, host, port, "h11 HTTP/1.0")
    w.sock.sendall(b"GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"
                   b"GET /todos?limit=2 HTTP/1.0\r\n\r\n")
    for n, (target, shape, keep) in enumerate([("/healthz", is_health, True), ("/todos?limit=2", is_todos, False)]):
        where = f"#{n + 1} GET {target} HTTP/1.0" + (" keep-alive" if keep else "")
        _, events = w.request("GET", target, headers=[] if keep else [("Connection", "close")])
        w.model(events)
        answer = w.response(where)
        if answer is None:
            break
        got, headers, data, _ = answer
        c.check(got == 200 and shape(parse_json(data)) and header(headers, "content-length") == str(len(data))
                and header(headers, "transfer-encoding") is None, f"h11 HTTP/1.0: {where}: 200, Content-Length, not chunked",
                f"{got} {headers} {data[:120]!r}")
        if keep:
            c.equal(header(headers, "connection"), "keep-alive", f"h11 HTTP/1.0: {where}: Connection: keep-alive")
            if not w.kept_alive(where):
                break
        else:
            w.closed(where)
    w.close()

    # 3. HTTP/1.1 requests, then HTTP/1.0 ones in the same send: the server follows each one's rule.
    w = Wire(c, host, port, "h11 mixed versions")
    first, first_events = w.request("GET", "/healthz")
    second, second_events = w.request("HEAD", "/")
    w.sock.sendall(first + second + b"GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"
                   b"HEAD / HTTP/1.0\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    _, keep_events = w.request("GET", "/healthz")
    _, close_events = w.request("HEAD", "/", headers=[("Connection", "close")])
    for n, (where, events, status, closes) in enumerate([
            ("GET /healthz HTTP/1.1", first_events, 200, False), ("HEAD / HTTP/1.1", second_events, 200, False),
            ("GET /healthz HTTP/1.0 keep-alive", keep_events, 200, False), ("HEAD / HTTP/1.0", close_events, 200, True)]):
        where = f"#{n + 1} {where}"
        w.model(events)
        answer = w.response(where)
        if answer is None:
            break
        got, headers, data, _ = answer
        c.check(got == status and (data == b"" if where.split()[1] == "HEAD" else is_health(parse_json(data))),
                f"h11 mixed versions: {where}: status and body", f"{got} {data[:120]!r}")
        if closes:
            w.closed(where)  # the HTTP/1.1 request after it is never answered: h11 would see its bytes
        elif not w.kept_alive(where):
            break
    w.close()

    # 4. Expect: 100-continue: 100 before a body the server reads, then the answer, and the
    #    connection goes on; a declared body over maxBodyBytes gets 413 at once, no 100, a close.
    w = Wire(c, host, port, "h11 expect")
    body = json.dumps({"title": "expect 100-continue"}).encode()
    data, events = w.request("POST", "/todos", headers=[("Content-Type", "application/json"), ("Expect", "100-continue")], body=body)
    head_end = data.index(b"\r\n\r\n") + 4
    w.sock.sendall(data[:head_end])
    w.model(events[:1])
    try:
        event = w.next_event()
        c.check(isinstance(event, h11.InformationalResponse) and event.status_code == 100, "h11 expect: 100 Continue before the body",
                repr(event))
    except (h11.ProtocolError, OSError) as error:
        c.check(False, "h11 expect: 100 Continue before the body", f"{type(error).__name__}: {error}")
    w.sock.sendall(data[head_end:])
    w.model(events[1:])
    answer = w.response("POST with Expect")
    if answer:
        c.check(answer[0] == 201 and is_todo(parse_json(answer[2])), "h11 expect: then 201 and the to-do", f"{answer[0]} {answer[2][:120]!r}")
        if w.kept_alive("POST with Expect"):
            data, events = w.request("GET", "/healthz")
            w.sock.sendall(data)
            w.model(events)
            answer = w.response("GET after it")
            c.check(answer and answer[0] == 200, "h11 expect: the connection serves the next request", str(answer and answer[0]))
    w.close()

    w = Wire(c, host, port, "h11 expect refused")
    big = 2 * 1024 * 1024
    head = (f"POST /todos HTTP/1.1\r\nHost: {w.host}\r\nContent-Type: application/json\r\nContent-Length: {big}\r\n"
            "Expect: 100-continue\r\n\r\n").encode()
    w.sock.sendall(head)
    w.model([h11.Request(method="POST", target="/todos", headers=[("Host", w.host), ("Content-Length", str(big)),
                                                                   ("Expect", "100-continue")])])
    started = time.monotonic()
    answer = w.response("POST 2 MiB with Expect")
    if answer:
        got, headers, data, informational = answer
        c.check(got == 413 and not informational and is_problem(parse_json(data), 413)
                and header(headers, "content-type") == "application/problem+json",
                "h11 expect refused: 413 problem+json without 100", f"{got} {informational} {data[:160]!r}")
        c.check(time.monotonic() - started < 5, "h11 expect refused: answered without waiting for the body",
                f"{time.monotonic() - started:.1f} s")
        c.equal(header(headers, "connection"), "close", "h11 expect refused: Connection: close")
        w.closed("413", shutdown=True)
    w.close()

    # 5. A chunked upload in three chunks with a trailer, then the connection goes on.
    w = Wire(c, host, port, "h11 chunked")
    parts = [b'{"title":', b' "chunked', b' upload", "order": 3}']
    data, events = w.request("POST", "/todos", headers=[("Content-Type", "application/json"), ("Transfer-Encoding", "chunked")],
                             chunks=parts, trailers=[("X-Checksum", "none")])
    c.check(b"\r\n0\r\nX-Checksum: none\r\n\r\n" in data, "h11 chunked: the request is chunked with a trailer", repr(data[-60:]))
    w.sock.sendall(data)
    w.model(events)
    answer = w.response("chunked POST")
    if answer:
        todo = parse_json(answer[2])
        c.check(answer[0] == 201 and is_todo(todo) and todo["title"] == "chunked upload" and todo["order"] == 3,
                "h11 chunked: 201 with the body read whole", f"{answer[0]} {answer[2][:160]!r}")
        if w.kept_alive("chunked POST"):
            data, events = w.request("DELETE", "/todos/" + (todo or {}).get("id", "x"))
            w.sock.sendall(data)
            w.model(events)
            answer = w.response("DELETE after it")
            c.check(answer and answer[0] == 204 and answer[2] == b"", "h11 chunked: then DELETE on the same connection: 204",
                    str(answer and answer[:3]))
    w.close()

    # 6. Refusals: a malformed request line after a good request, with a third behind it that must
    #    never run; and one alone. A well-formed 400 problem+json with Connection: close, then EOF.
    for name, garbage in [("malformed request line", b"GET /healthz HTTP/1.1 extra\r\nHost: x\r\n\r\n"),
                          ("not HTTP", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\x00" * 32)]:
        w = Wire(c, host, port, f"h11 refusal ({name})")
        good, good_events = w.request("GET", "/healthz")
        after, _ = w.request("DELETE", "/todos")
        w.sock.sendall(good + garbage + after)
        w.model(good_events)
        answer = w.response("the good request")
        if answer and c.check(answer[0] == 200, f"h11 refusal ({name}): the request before it answered", str(answer[0])):
            w.kept_alive("the good request")
            w.model(w.request("GET", "/")[1])  # what h11 believes was sent: any request
            answer = w.response(name)
            if answer:
                got, headers, data, _ = answer
                c.check(got == 400 and is_problem(parse_json(data), 400) and header(headers, "content-type") == "application/problem+json"
                        and header(headers, "content-length") == str(len(data)),
                        f"h11 refusal ({name}): 400 problem+json with Content-Length", f"{got} {headers} {data[:160]!r}")
                c.equal(header(headers, "connection"), "close", f"h11 refusal ({name}): Connection: close")
                w.closed(name, shutdown=True)
        w.close()
    health = http.client.HTTPConnection(host, port, timeout=10)
    health.request("GET", "/healthz")
    value = parse_json(health.getresponse().read())
    c.check(is_health(value) and value["todos"] > 0, "h11 refusal: the DELETE /todos behind the refusals never ran", str(value))
    health.close()

    # 7. The same pipeline split at every byte boundary of a few positions: answers do not change.
    w = Wire(c, host, port, "h11 split")
    requests = [w.request("GET", "/healthz"), w.request("HEAD", "/healthz"), w.request("GET", "/healthz", headers=[("Connection", "close")])]
    stream = b"".join(data for data, _ in requests)
    w.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    for position in range(0, len(stream), 7):
        w.sock.sendall(stream[position:position + 7])
    for n, (_, events) in enumerate(requests):
        w.model(events)
        answer = w.response(f"#{n + 1}")
        if not answer:
            break
        c.check(answer[0] == 200 and (answer[2] == b"" if n == 1 else is_health(parse_json(answer[2]))),
                f"h11 split: #{n + 1} sent 7 bytes at a time: 200", f"{answer[0]} {answer[2][:80]!r}")
        if n < 2:
            w.kept_alive(f"#{n + 1}")
        else:
            w.closed(f"#{n + 1}")
    w.close()


def check_h11_more(c, host, port):
    import h11

    # 8. A deep pipeline whose answers (about 8 MB) far exceed maxOutputBytes and maxPipelinedRequests,
    #    sent before reading anything: every answer arrives, whole and in order (each to-do's title
    #    names its place), HEADs among them without a body.
    setup = http.client.HTTPConnection(host, port, timeout=10)
    ids = []
    for n in range(10):
        setup.request("POST", "/todos", json.dumps({"title": f"deep {n}"}), {"Content-Type": "application/json"})
        ids.append((parse_json(setup.getresponse().read()) or {}).get("id", "missing"))
    setup.close()
    w = Wire(c, host, port, "h11 deep pipeline")
    plan = []
    for n in range(100):
        if n % 3 == 0:
            plan.append(("GET", "/openapi.json", lambda v: isinstance(v, dict) and v.get("openapi") == "3.1.0"))
        elif n % 3 == 1:
            title = f"deep {n % 10}"
            plan.append(("GET", f"/todos/{ids[n % 10]}", lambda v, title=title: is_todo(v) and v["title"] == title))
        else:
            plan.append(("HEAD", f"/todos/{ids[n % 10]}", None))
    requests = [w.request(method, target) for method, target, _ in plan]
    w.sock.sendall(b"".join(data for data, _ in requests))
    bad = []
    for n, ((method, target, shape), (_, events)) in enumerate(zip(plan, requests)):
        w.model(events)
        answer = w.response(f"#{n + 1} {method} {target}")
        if answer is None:
            bad.append(f"#{n + 1}: no answer")
            break
        got, _, data, _ = answer
        if got != 200 or (data != b"" if shape is None else not shape(parse_json(data))):
            bad.append(f"#{n + 1} {method} {target}: {got} {data[:80]!r}")
        if w.conn.our_state is not h11.DONE or w.conn.their_state is not h11.DONE:
            bad.append(f"#{n + 1}: {w.conn.our_state} / {w.conn.their_state}")
            break
        w.conn.start_next_cycle()
    c.check(not bad, f"h11 deep pipeline: 100 answers ({w.received} bytes) whole, in order, kept alive", "; ".join(bad[:5]))
    w.close()

    # 9. Connection: close in the middle of a pipeline: answered, then the end; what follows never runs.
    w = Wire(c, host, port, "h11 close mid-pipeline")
    first = w.request("POST", "/todos", headers=[("Content-Type", "application/json"), ("Connection", "close")],
                      body=b'{"title":"closing"}')
    after = w.request("DELETE", "/todos")
    w.sock.sendall(first[0] + after[0])
    w.model(first[1])
    answer = w.response("POST with Connection: close")
    if answer:
        c.check(answer[0] == 201 and header(answer[1], "connection") == "close", "h11 close mid-pipeline: 201 with Connection: close",
                f"{answer[0]} {answer[1]}")
        w.closed("POST with Connection: close")
    w.close()
    health = http.client.HTTPConnection(host, port, timeout=10)
    health.request("GET", "/healthz")
    value = parse_json(health.getresponse().read())
    c.check(is_health(value) and value["todos"] >= 11, "h11 close mid-pipeline: the DELETE /todos after it never ran", str(value))
    health.close()

    # 10. HTTP/1.0 with Expect: 100-continue: the expectation is ignored (RFC 9110 §10.1.1: no 100 to
    #     an HTTP/1.0 client), the body sent at once is read, one final answer, then the close.
    w = Wire(c, host, port, "h11 HTTP/1.0 expect")
    body = b'{"title":"expect over HTTP/1.0"}'
    w.sock.sendall(b"POST /todos HTTP/1.0\r\nContent-Type: application/json\r\nExpect: 100-continue\r\n"
                   b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    w.model(w.request("POST", "/todos", headers=[("Connection", "close")], body=body)[1])
    answer = w.response("POST HTTP/1.0 with Expect")
    if answer:
        got, _, data, informational = answer
        c.check(got == 201 and not informational and (parse_json(data) or {}).get("title") == "expect over HTTP/1.0",
                "h11 HTTP/1.0 expect: 201 and no 100 Continue", f"{got} {informational} {data[:120]!r}")
        w.closed("POST HTTP/1.0 with Expect")
    w.close()

    # 11. Expect: 100-continue on a chunked body, the chunks sent after the 100.
    w = Wire(c, host, port, "h11 chunked expect")
    data, events = w.request("POST", "/todos", headers=[("Content-Type", "application/json"), ("Transfer-Encoding", "chunked"),
                                                        ("Expect", "100-continue")], chunks=[b'{"title":', b'"chunked, expected"}'])
    head_end = data.index(b"\r\n\r\n") + 4
    w.sock.sendall(data[:head_end])
    w.model(events[:1])
    try:
        event = w.next_event()
        c.check(isinstance(event, h11.InformationalResponse) and event.status_code == 100, "h11 chunked expect: 100 Continue", repr(event))
    except (h11.ProtocolError, OSError) as error:
        c.check(False, "h11 chunked expect: 100 Continue", f"{type(error).__name__}: {error}")
    w.sock.sendall(data[head_end:])
    w.model(events[1:])
    answer = w.response("chunked POST with Expect")
    if answer:
        c.check(answer[0] == 201 and (parse_json(answer[2]) or {}).get("title") == "chunked, expected",
                "h11 chunked expect: 201 with the body", f"{answer[0]} {answer[2][:120]!r}")
        w.kept_alive("chunked POST with Expect")
    w.close()


def main(base, results):
    c = Checks(results)
    parts = urllib.parse.urlsplit(base)
    host, port = parts.hostname, parts.port
    for name, run in [("http.client", lambda: check_http_client(c, host, port)),
                      ("requests", lambda: check_requests(c, base)),
                      ("aiohttp", lambda: asyncio.run(aiohttp_checks(c, base))),
                      ("h11", lambda: check_h11(c, host, port)),
                      ("h11 (more)", lambda: check_h11_more(c, host, port))]:
        try:
            run()
        except Exception as error:  # noqa: BLE001 (a client that raises is a failed check; the others still run)
            c.check(False, f"{name}: ran to the end", f"{type(error).__name__}: {error}")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "shape":
        with open(sys.argv[3], "rb") as file:
            sys.exit(0 if SHAPES[sys.argv[2]](parse_json(file.read())) else 1)
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
