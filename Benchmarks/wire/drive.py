#!/usr/bin/env python3
"""Sends COUNT identical requests one after another on one keep-alive connection.

Usage: drive.py PORT METHOD TARGET COUNT [BODY]. Fails on any answer of 400 or more.
"""
import os
import socket
import sys

# The shared response reader lives one folder up (Benchmarks/httpwire.py).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from httpwire import take_response  # noqa: E402

port, method, target, count = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
body = sys.argv[5].encode() if len(sys.argv) > 5 else b""
head = f"{method} {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
if body:
    head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
request = head.encode() + b"\r\n" + body
sock = socket.create_connection(("127.0.0.1", port))
buffer = b""
for _ in range(count):
    sock.sendall(request)
    while (answer := take_response(buffer)) is None:
        chunk = sock.recv(1 << 16)
        if not chunk:
            raise SystemExit("connection closed")
        buffer += chunk
    status_line, _, buffer = answer
    status = int(status_line.split(" ")[1])
    if status >= 400:
        raise SystemExit(f"{method} {target} answered {status}")
