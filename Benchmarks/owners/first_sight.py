#!/usr/bin/env python3
"""The cost of a JSON Web Token's first sight (its signature verified) against a token seen before
(a cache hit), on one keep-alive connection: COUNT requests `GET /todos/ID`, each with a token the
server has not seen (same owner, `exp` one second apart), then COUNT with one token it has.

Usage: first_sight.py PORT KEYS_DIR ISSUER AUDIENCE ID ALG [COUNT]. Prints one line per algorithm:
`first-sight ALG new_us=… seen_us=… verification_us=…` (medians of per-request times, in µs).
Tokens are signed with scripts/dev-tokens.py's code (Python's cryptography) before timing starts.
"""
import importlib.util
import json
import os
import socket
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from httpwire import take_response  # noqa: E402

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
spec = importlib.util.spec_from_file_location("dev_tokens", os.path.join(root, "scripts", "dev-tokens.py"))
dev_tokens = importlib.util.module_from_spec(spec)
spec.loader.exec_module(dev_tokens)

port, directory, issuer, audience, todo_id, alg = sys.argv[1:7]
count = int(sys.argv[7]) if len(sys.argv) > 7 else 2000
kind = {alg_name: kind for kind, alg_name in dev_tokens.KINDS.items()}[alg]
with open(os.path.join(directory, "jwks.json")) as file:
    kid = next(key["kid"] for key in json.load(file)["keys"] if key["alg"] == alg)
header = json.dumps({"alg": alg, "typ": "JWT", "kid": kid}, separators=(",", ":")).encode()
now = int(time.time())


def token(expires: int) -> str:
    claims = {"iss": issuer, "aud": audience, "sub": "bench", "iat": now, "exp": expires}
    return dev_tokens.compact(header, json.dumps(claims, separators=(",", ":")).encode(), directory, kind)


fresh = [token(now + 7200 + i) for i in range(count)]
seen = token(now + 7200 - 1)
sock = socket.create_connection(("127.0.0.1", int(port)))
sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def timed(bearer: str) -> float:
    request = f"GET /todos/{todo_id} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {bearer}\r\n\r\n".encode()
    started = time.perf_counter()
    sock.sendall(request)
    buffer = b""
    while (answer := take_response(buffer)) is None:
        buffer += sock.recv(65536)
    elapsed = time.perf_counter() - started
    if not answer[0].startswith("HTTP/1.1 200"):
        raise SystemExit(f"expected 200, got {answer[0]}")
    return elapsed * 1e6


timed(seen)
new_times = [timed(bearer) for bearer in fresh]
seen_times = [timed(seen) for _ in range(count)]
new, old = statistics.median(new_times), statistics.median(seen_times)
print(f"first-sight {alg} new_us={new:.1f} seen_us={old:.1f} verification_us={new - old:.1f}")
