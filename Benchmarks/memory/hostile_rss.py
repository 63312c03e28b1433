#!/usr/bin/env python3
"""Resident size of a running server under hostile connections (issue 9).

Usage: hostile_rss.py PID PORT KIND [CONNECTIONS=50] [SECONDS=10]
KIND: pipeline  each connection pipelines `GET /todos` as fast as the server takes them and never
                reads an answer;
      bigbody   each connection declares and sends a 4,000,000-byte body (the default limit is 1 MiB).
Prints VmRSS (from /proc/PID/status) before, the peak while the connections are open, and 5 s after
they are closed, in MiB.
"""
import select
import socket
import sys
import time


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def main():
    pid, port, kind = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    count = int(sys.argv[4]) if len(sys.argv) > 4 else 50
    seconds = float(sys.argv[5]) if len(sys.argv) > 5 else 10
    before = rss_mib(pid)
    sockets = []
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", port))
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.setblocking(False)
        sockets.append(s)
    if kind == "pipeline":
        chunk = b"GET /todos HTTP/1.1\r\nHost: h\r\n\r\n" * 2000
        pending = {s: b"" for s in sockets}
    elif kind == "bigbody":
        size = 4_000_000
        head = f"POST /todos HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nContent-Length: {size}\r\n\r\n".encode()
        pending = {s: head + b" " * size for s in sockets}
        chunk = b""
    else:
        raise SystemExit(f"unknown kind {kind}")
    peak = before
    sent = 0
    deadline = time.time() + seconds
    next_sample = 0.0
    open_sockets = set(sockets)
    while time.time() < deadline:
        _, writable, _ = select.select([], list(open_sockets), [], 0.05)
        for s in writable:
            data = pending[s] or chunk
            if not data:
                continue
            try:
                n = s.send(data[:262144])
                sent += n
                pending[s] = data[n:]
            except (BlockingIOError, InterruptedError):
                pass
            except OSError:
                open_sockets.discard(s)
        if time.time() >= next_sample:
            peak = max(peak, rss_mib(pid))
            next_sample = time.time() + 0.2
    peak = max(peak, rss_mib(pid))
    for s in sockets:
        s.close()
    time.sleep(5)
    after = rss_mib(pid)
    print(f"{kind}: {count} connections, {sent / 1048576:.1f} MiB sent in {seconds:.0f} s; "
          f"VmRSS before {before:.1f} MiB, peak {peak:.1f} MiB, 5 s after close {after:.1f} MiB")


if __name__ == "__main__":
    main()
