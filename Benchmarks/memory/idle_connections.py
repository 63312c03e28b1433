#!/usr/bin/env python3
"""Memory per idle keep-alive connection of a running server.

Usage: idle_connections.py PID PORT [CONNECTIONS=10000]
Opens CONNECTIONS connections, sends one `GET /healthz` on each and reads its answer (so that each
is an idle keep-alive connection, as a browser leaves them), then reads VmRSS from
/proc/PID/status 5 s after the last answer (the loops' sweeps have run by then), and prints the
RSS before, with the connections open, and the difference per connection in KiB. Raise `ulimit -n`
for this process and the server first.
"""
import socket
import sys
import time


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise SystemExit("no VmRSS")


def main():
    pid, port = int(sys.argv[1]), int(sys.argv[2])
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 10000
    before = rss_kib(pid)
    request = b"GET /healthz HTTP/1.1\r\nHost: bench\r\n\r\n"
    sockets = []
    for _ in range(count):
        connection = socket.create_connection(("127.0.0.1", port))
        connection.sendall(request)
        sockets.append(connection)
    for connection in sockets:
        answer = b""
        while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
            chunk = connection.recv(4096)
            if not chunk:
                raise SystemExit("the server closed a connection")
            answer += chunk
        if not answer.startswith(b"HTTP/1.1 200"):
            raise SystemExit(f"unexpected answer: {answer[:60]!r}")
    # Let the loops finish their sweeps of the burst: the figure is what idle connections hold.
    deadline = time.monotonic() + 5
    loaded = rss_kib(pid)
    while time.monotonic() < deadline:
        time.sleep(0.5)
        loaded = rss_kib(pid)
    print(f"connections={count} rss_before_kib={before} rss_open_kib={loaded} "
          f"kib_per_connection={(loaded - before) / count:.2f}")
    for connection in sockets:
        connection.close()


if __name__ == "__main__":
    main()
