#!/usr/bin/env python3
"""Follows a server's live change feed and counts the events it is sent.

Usage: subscriber.py PORT COUNT_FILE. Opens `GET /todos/events` on one connection; once the
answer's head has come (the subscription is made), writes 0 to COUNT_FILE, then rewrites it with
the number of `event:` lines received so far after every read, until the stream ends or the
process is killed. A benchmark waits for the file (the subscriber is on) and, after its drive, for
the count it expects (every change was delivered).
"""
import os
import socket
import sys

port, count_file = int(sys.argv[1]), sys.argv[2]


def publish(count):
    """Replaces COUNT_FILE at once (a reader never sees it half written)."""
    with open(count_file + ".tmp", "w") as out:
        out.write(str(count))
    os.replace(count_file + ".tmp", count_file)


sock = socket.create_connection(("127.0.0.1", port))
sock.sendall(b"GET /todos/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
buffer = b""
while b"\r\n\r\n" not in buffer:
    chunk = sock.recv(1 << 16)
    if not chunk:
        raise SystemExit("the feed closed before its head")
    buffer += chunk
head, _, buffer = buffer.partition(b"\r\n\r\n")
status = int(head.split(b" ")[1])
if status != 200:
    raise SystemExit(f"GET /todos/events answered {status}")
chunked = b"transfer-encoding: chunked" in head.lower()
# The body, de-chunked, is counted per line: an `event:` split across two reads or two chunks
# counts once, when its line is whole.
events, raw, body = 0, buffer, b""
publish(events)
while True:
    if chunked:
        while (end := raw.find(b"\r\n")) >= 0:
            size = int(raw[:end].split(b";")[0], 16)
            if len(raw) < end + 2 + size + 2:
                break
            if size == 0:
                raise SystemExit(0)
            body += raw[end + 2:end + 2 + size]
            raw = raw[end + 2 + size + 2:]
    else:
        body, raw = body + raw, b""
    lines = body.split(b"\n")
    body = lines.pop()
    events += sum(1 for line in lines if line.startswith(b"event:"))
    publish(events)
    chunk = sock.recv(1 << 16)
    if not chunk:
        break
    raw += chunk
