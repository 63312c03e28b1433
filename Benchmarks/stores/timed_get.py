#!/usr/bin/env python3
"""Times GET requests one after another on one keep-alive connection.

Usage: timed_get.py PORT TARGET COUNT. Prints one line:
`target=… requests=N median_ms=… min_ms=… max_ms=… status=200 body_bytes=… total=<X-Total-Count>`.
Fails unless every answer is 200. The time of a request is from the first byte sent to the last
byte of its answer read.
"""
import os
import socket
import statistics
import sys
import time

# The shared response reader lives one folder up (Benchmarks/httpwire.py).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from httpwire import take_response  # noqa: E402

port, target, count = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
request = b"GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" % target.encode()
sock = socket.create_connection(("127.0.0.1", port))
sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
sock.settimeout(600)
times, body_bytes, total = [], 0, ""
buffer = b""
for _ in range(count):
    started = time.perf_counter()
    sock.sendall(request)
    while (answer := take_response(buffer)) is None:
        # Acknowledge at once: a delayed ACK would hold the server's last segment back ~40 ms
        # (Nagle) and measure the TCP stack instead of the request.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)
        chunk = sock.recv(1 << 20)
        if not chunk:
            raise SystemExit("connection closed")
        buffer += chunk
    times.append((time.perf_counter() - started) * 1000)
    status_line, payload, buffer = answer
    if not status_line.startswith("HTTP/1.1 200"):
        raise SystemExit(f"{target}: {status_line}")
    body_bytes = len(payload)
sock.close()
print(f"target={target} requests={count} median_ms={statistics.median(times):.2f} min_ms={min(times):.2f} "
      f"max_ms={max(times):.2f} status=200 body_bytes={body_bytes}")
