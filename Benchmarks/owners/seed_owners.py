#!/usr/bin/env python3
"""Seeds OWNERS owners with PER_OWNER to-dos each, over pipelined connections.

Usage: seed_owners.py PORT OWNERS PER_OWNER [CONNECTIONS] [--ids]. Owner i's token is `t<i>` (the
server runs with the owner tokens `o<i>:t<i>`, which `run.sh` writes to a file). Titles are the
fixed 30-character one seed.py uses. Fails unless every answer is 201. With `--ids`, prints the id
of each owner's first to-do, owner 0 first, comma-separated (postgres-peer.sh's OWNERS mode).
"""
import socket
import sys
import threading

sys.path.insert(0, __file__.rsplit("/", 2)[0])
from httpwire import take_response  # noqa: E402

print_ids = "--ids" in sys.argv
arguments = [a for a in sys.argv[1:] if a != "--ids"]
port, owners, per_owner = int(arguments[0]), int(arguments[1]), int(arguments[2])
connections = int(arguments[3]) if len(arguments) > 3 else 4
body = b'{"title":"a thirty character title here!"}'
failures, lock = [], threading.Lock()
first_ids = {}  # owner → the id of their first to-do


def request(owner: int) -> bytes:
    return (b"POST /todos HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer t%d\r\n"
            b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s") % (owner, len(body), body)


def worker(first: int, last: int) -> None:
    sock = socket.create_connection(("127.0.0.1", port))
    pending = [request(owner) for owner in range(first, last) for _ in range(per_owner)]
    total, sent, received, buffer = len(pending), 0, 0, b""
    while received < total:
        if sent < total and sent - received < 200:
            batch = pending[sent:sent + 100]
            sock.sendall(b"".join(batch))
            sent += len(batch)
        chunk = sock.recv(1 << 20)
        if not chunk:
            raise SystemExit("connection closed")
        buffer += chunk
        while (answer := take_response(buffer)) is not None:
            status_line, payload, buffer = answer
            if not status_line.startswith("HTTP/1.1 201"):
                with lock:
                    failures.append(status_line)
            elif print_ids and received % per_owner == 0:
                # Answers come in the order sent: this one is the first of its owner's.
                start = payload.find(b'"id":"') + 6
                first_ids[first + received // per_owner] = payload[start:payload.find(b'"', start)].decode()
            received += 1
    sock.close()


share = (owners + connections - 1) // connections
threads = [threading.Thread(target=worker, args=(i * share, min(owners, (i + 1) * share))) for i in range(connections)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
if failures:
    raise SystemExit(f"{len(failures)} answers were not 201, first: {failures[0]}")
if print_ids:
    print(",".join(first_ids[owner] for owner in range(owners)))
