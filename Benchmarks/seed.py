#!/usr/bin/env python3
"""Seeds a server with N to-dos (30-character titles) over pipelined connections, fast.

Usage: seed.py PORT COUNT [CONNECTIONS] [TITLE_LENGTH]. Prints the ids of the first 100,
comma-separated. Fails unless every answer is 201. With TITLE_LENGTH, every to-do gets its own
title of that many random letters, both cases, and spaces (seeded: the same titles every run).
"""
import random
import socket
import sys
import threading

from httpwire import take_response

port, count = int(sys.argv[1]), int(sys.argv[2])
connections = int(sys.argv[3]) if len(sys.argv) > 3 else 4
title_length = int(sys.argv[4]) if len(sys.argv) > 4 else 0
body = b'{"title":"a thirty character title here!"}'
head = b"POST /todos HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
request = head % (len(body), body)
letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ    "


def requests(rng, count):
    """`count` POST requests: the fixed one, or each with its own random title."""
    if not title_length:
        return request * count
    bodies = (b'{"title":"x%s"}' % "".join(rng.choices(letters, k=title_length - 1)).encode() for _ in range(count))
    return b"".join(head % (len(b), b) for b in bodies)
ids, failures, lock = [], [], threading.Lock()


def worker(n, rng):
    sock = socket.create_connection(("127.0.0.1", port))
    buffer = b""
    sent = received = 0
    while received < n:
        batch = min(100, n - sent)
        if batch and sent - received < 200:
            sock.sendall(requests(rng, batch))
            sent += batch
        chunk = sock.recv(1 << 20)
        if not chunk:
            raise SystemExit("connection closed")
        buffer += chunk
        while (answer := take_response(buffer)) is not None:
            status_line, payload, buffer = answer
            received += 1
            if not status_line.startswith("HTTP/1.1 201"):
                with lock:
                    failures.append(status_line)
            elif len(ids) < 100:
                start = payload.find(b'"id":"') + 6
                with lock:
                    ids.append(payload[start:payload.find(b'"', start)].decode())
    sock.close()


threads = [threading.Thread(target=worker, args=(count // connections + (1 if i < count % connections else 0), random.Random(i)))
           for i in range(connections)]
for t in threads:
    t.start()
for t in threads:
    t.join()
if failures:
    raise SystemExit(f"{len(failures)} answers were not 201, first: {failures[0]}")
print(",".join(ids[:100]))
