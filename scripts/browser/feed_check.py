#!/usr/bin/env python3
"""Issue 19's browser check: a real browser follows the live change feed across a server restart.

Serves scripts/browser/feed.html from an origin of its own (a second port) and starts TodoServer
with a data directory, a write and a read token, and a CORS allow-list of that origin with
credentials. Headless Chromium opens the page, which lists the to-dos (credentials included, read
token), reads X-Last-Event-ID, subscribes with EventSource(".../todos/events?lastEventId=...&
access_token=...", {withCredentials: true}) and reports what it sees back here (POST /observe).
The checker makes changes with curl (POST, PATCH, DELETE) and checks that the page saw exactly those,
in order. Then it stops the server with SIGTERM, lets the page's EventSource fail one reconnect
attempt against the stopped server, starts the server again on the same data directory, makes
changes at once (before the browser's next attempt: only the journal's replay from Last-Event-ID
brings them to the page; the URL still carries the first lastEventId=, so the header must win) and
more after the page is back, and checks that the EventSource
reconnected by itself and caught up: every change exactly once, in order, no resync, no give-up.
The same page opened from a third origin, not on the allow-list, must be refused (its listing fails
and its EventSource closes for good, seeing nothing).

Every wait is a poll with a deadline. Prints failures (then what the page saw and the logs' tails)
and one summary line; exits 1 on any failure. Standard library only, plus curl and Chromium; what it
shares with todo_backend_check.py is in harness.py.

Usage: feed_check.py --server STAGING/todo-server [--chromium chromium] [--keep]
"""

import http.client
import json
import os
import subprocess
import threading
import time
import urllib.parse

import harness
from harness import Abort

WRITE_TOKEN = "feed-check-write-token"
READ_TOKEN = "feed-check-read-token"
CONNECTING, OPEN, CLOSED = 0, 1, 2  # EventSource.readyState


class Observations:
    """What each tab of the page reported, by its sequence number."""

    def __init__(self):
        self.lock = threading.Lock()
        self.by_tab = {}

    def add(self, observation):
        with self.lock:
            self.by_tab.setdefault(observation["tab"], {})[observation["seq"]] = observation

    def in_order(self, tab):
        """A tab's observations numbered 0, 1, 2, ... up to the first hole (one still in flight)."""
        with self.lock:
            numbered = self.by_tab.get(tab, {})
            out = []
            while len(out) in numbered:
                out.append(numbered[len(out)])
            return out


def static_server(observations):
    """The page's server (harness.static_server): feed.html, and its reports to POST /observe."""
    # A cookie for the host: cookies ignore ports, so the browser sends it to the API's origin too,
    # as a front end behind a session cookie would.
    return harness.static_server("feed.html", "/observe", observations, "observation",
                                 [("Set-Cookie", "feed_check=1; Path=/; SameSite=Lax")])


def curl(method, url, token=WRITE_TOKEN, body=None):
    """One request with curl; returns (status, headers as a lower-cased dict, body)."""
    args = ["curl", "-sS", "-X", method, "-D", "-", "--max-time", "10", "-H", f"Authorization: Bearer {token}"]
    if body is not None:
        args += ["-H", "Content-Type: application/json", "--data-binary", json.dumps(body)]
    out = subprocess.run(args + [url], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise Abort(f"curl {method} {url}: exit {out.returncode}: {out.stderr.strip()}")
    head, _, payload = out.stdout.replace("\r\n", "\n").partition("\n\n")
    lines = head.split("\n")
    fields = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        fields[name.strip().lower()] = value.strip()
    return int(lines[0].split()[1]), fields, payload


class Check(harness.Check):
    def __init__(self, args):
        super().__init__(args, "browser-feed-")
        self.data_dir = os.path.join(self.work, "data")
        os.mkdir(self.data_dir)
        self.observations = Observations()
        self.server = None
        self.server_logs = []
        self.expected = []  # (type, id, title, completed) of every change made since the page listed

    # -- the server -----------------------------------------------------------------------------

    def start_server(self):
        log_path = os.path.join(self.work, f"server-{len(self.server_logs) + 1}.log")
        self.server_logs.append(log_path)
        options = ["--data-dir", self.data_dir, "--cors-origin", self.page_origin, "--cors-credentials", "true",
                   "--auth-tokens", WRITE_TOKEN, "--read-tokens", READ_TOKEN]
        self.server = harness.Server(os.path.abspath(self.args.server), log_path, options, port=self.api_port)
        self.wait_up(self.server)

    def stop_server(self):
        """SIGTERM, then waits for the exit."""
        status = self.server.stop(20)
        if status is None:
            self.fail("the server did not exit within 20 s of SIGTERM")
        elif status != 0:
            self.fail(f"the server's exit status after SIGTERM: {status}")

    def stream_headers(self, origin):
        """The head of a GET /todos/events answer to a browser of `origin` (the stream is left)."""
        connection = http.client.HTTPConnection("127.0.0.1", self.api_port, timeout=5)
        try:
            connection.request("GET", f"/todos/events?access_token={READ_TOKEN}",
                               headers={"Origin": origin, "Accept": "text/event-stream", "Cookie": "feed_check=1"})
            response = connection.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}
        finally:
            connection.close()

    # -- changes, as another client than the page makes them -------------------------------------

    def change(self, method, path, body, want_status):
        status, _, text = curl(method, f"{self.api}{path}", body=body)
        if status != want_status:
            raise Abort(f"{method} {path}: {status} {text[:200]}")
        return json.loads(text) if text else None

    def create(self, title):
        todo = self.change("POST", "/todos", {"title": title}, 201)
        self.expected.append(("created", todo["id"], title, False))
        return todo["id"]

    def update(self, todo_id, title, completed):
        self.change("PATCH", f"/todos/{todo_id}", {"title": title, "completed": completed}, 200)
        self.expected.append(("updated", todo_id, title, completed))

    def delete(self, todo_id):
        self.change("DELETE", f"/todos/{todo_id}", None, 204)
        self.expected.append(("deleted", todo_id, None, None))

    def clear(self):
        self.change("DELETE", "/todos", None, 204)
        self.expected.append(("cleared", None, None, None))

    def listing_position(self):
        status, headers, text = curl("GET", f"{self.api}/todos", token=READ_TOKEN)
        if status != 200:
            self.fail(f"GET /todos: {status} {text[:200]}")
        return headers.get("x-last-event-id")

    # -- what the page saw ----------------------------------------------------------------------

    def seen(self, kind, tab="main"):
        return [o for o in self.observations.in_order(tab) if o["kind"] == kind]

    def events(self, tab="main"):
        return self.seen("event", tab)

    def wait_for_events(self, what, seconds=15):
        self.wait_for(what, lambda: len(self.events()) >= len(self.expected), seconds)

    def compare(self, phase):
        """The page's events are exactly the changes made so far, in order, each with its own id."""
        got = [(e["type"], e.get("id"), e.get("title"), e.get("completed")) for e in self.events()]
        if got != self.expected:
            first = next(i for i in range(max(len(got), len(self.expected)))
                         if i >= len(got) or i >= len(self.expected) or got[i] != self.expected[i])
            want = self.expected[first] if first < len(self.expected) else None
            saw = got[first] if first < len(got) else None
            self.fail(f"{phase}: {len(self.expected)} changes made, the page saw {len(got)} events; "
                      f"the first difference, at {first + 1}: expected {want}, saw {saw}")
        positions = [e["position"] for e in self.events()]
        if not all(positions):
            self.fail(f"{phase}: an event without an id: {positions}")
        if len(set(positions)) != len(positions):
            self.fail(f"{phase}: an id twice: {positions}")
        for failure in self.seen("failure"):
            self.fail(f"{phase}: the page failed: {failure['message']}")

    # -- the run --------------------------------------------------------------------------------

    def run(self):
        self.static, self.page_origin = static_server(self.observations)
        self.intruder, self.intruder_origin = static_server(self.observations)
        self.api_port = harness.free_port()
        self.api = f"http://127.0.0.1:{self.api_port}"
        self.start_server()
        self.check_headers()

        # Two to-dos before the page lists: its listing reflects them, and its subscription from
        # that listing's position must not show them again.
        seeded = [self.create("seeded one"), self.create("seeded two")]
        self.expected.clear()
        listed_at = self.listing_position()
        self.open_browser()
        self.check_listing(listed_at, len(seeded))

        # 1. Live: the page sees each change as it is made.
        a = self.create("alpha")
        b = self.create("bravo")
        self.update(a, "alpha", True)
        self.update(seeded[0], "seeded one, renamed", False)
        self.delete(b)
        self.delete(seeded[1])
        c = self.create("charlie")
        self.wait_for_events("the page sees the first changes")
        self.compare("live")
        self.notes["before"] = len(self.expected)
        last_before = self.events()[-1]["position"] if self.events() else None

        # 2. A restart on the same data directory. The stream's end is the page's first error; the
        # second is its reconnect attempt failing against the stopped server (it must go on trying).
        errors = len(self.seen("error"))
        opens = len(self.seen("open"))
        self.stop_server()
        self.wait_for("the page's EventSource notices the end of its stream",
                      lambda: len(self.seen("error")) > errors, 10)
        self.wait_for("the page's EventSource tries again while the server is stopped",
                      lambda: len(self.seen("error")) > errors + 1, 15)
        self.start_server()
        position_after = self.listing_position()
        if position_after != last_before:
            self.fail(f"after the restart GET /todos says X-Last-Event-ID {position_after!r}; "
                      f"the last event before it was {last_before!r}")
        # Changes at once, before the browser's next attempt (the retry hint, 2 s): they reach the
        # page only through the replay from its Last-Event-ID.
        d = self.create("delta")
        self.update(c, "charlie", True)
        self.delete(a)
        self.notes["before reconnect"] = 3 if len(self.seen("open")) == opens else 0
        if self.wait_for("the page's EventSource reconnects by itself",
                         lambda: len(self.seen("open")) > opens, 20):
            error_at = self.seen("error")[errors]["atMs"]
            self.notes["reconnect ms"] = self.seen("open")[opens]["atMs"] - error_at
        # Live again after the reconnect.
        self.update(d, "delta", True)
        self.create("echo")
        self.clear()
        self.wait_for_events("the page catches up after the restart")
        self.compare("across the restart")

        resyncs = [e for e in self.events() if e["type"] == "resync"]
        if resyncs:
            self.fail(f"{len(resyncs)} resync event(s): the positions did not survive the restart")
        if any(e["readyState"] == CLOSED for e in self.seen("error")):
            self.fail("the page's EventSource gave up (readyState CLOSED after an error)")
        final = self.listing_position()
        if self.events() and final != self.events()[-1]["position"]:
            self.fail(f"GET /todos says X-Last-Event-ID {final!r}; the page's last event has "
                      f"{self.events()[-1]['position']!r}")
        strangers = {e["origin"] for e in self.events()} - {self.api}
        if strangers:
            self.fail(f"events from {strangers}, expected {self.api}")
        self.check_intruder()

    def check_headers(self):
        """The stream's answer to the page's origin and to one not on the allow-list."""
        status, headers = self.stream_headers(self.page_origin)
        want = {"access-control-allow-origin": self.page_origin, "access-control-allow-credentials": "true",
                "content-type": "text/event-stream", "cache-control": "no-store"}
        if status != 200:
            self.fail(f"GET /todos/events from {self.page_origin}: status {status}")
        for name, value in want.items():
            if headers.get(name) != value:
                self.fail(f"GET /todos/events from the page's origin: {name}: {headers.get(name)!r}, want {value!r}")
        if "origin" not in headers.get("vary", "").lower():
            self.fail(f"GET /todos/events: Vary {headers.get('vary')!r} lacks Origin")
        if "x-last-event-id" not in headers.get("access-control-expose-headers", "").lower():
            self.fail("Access-Control-Expose-Headers lacks X-Last-Event-ID")
        status, headers = self.stream_headers(self.intruder_origin)
        if "access-control-allow-origin" in headers or "access-control-allow-credentials" in headers:
            self.fail(f"GET /todos/events from an origin not on the list got CORS headers: {headers}")

    def open_browser(self):
        """Chromium with the page from the allowed origin, which embeds it from the other one."""
        def page(origin, tab, **more):
            query = urllib.parse.urlencode(dict(api=self.api, token=READ_TOKEN, tab=tab, **more))
            return f"{origin}/feed.html?{query}"
        self.open_chromium(page(self.page_origin, "main", frame=page(self.intruder_origin, "intruder")))
        if not self.wait_for("the page lists and its EventSource opens",
                             lambda: self.seen("open") or self.seen("failure") or self.seen("list failed"), 30):
            raise Abort("the page did not start")

    def check_listing(self, listed_at, count):
        for failure in self.seen("list failed") + self.seen("failure"):
            raise Abort(f"the page's GET /todos failed: {failure['message']}")
        listing = self.seen("list")[0]
        if listing["status"] != 200:
            self.fail(f"the page's GET /todos: status {listing['status']}")
        if listing["position"] is None:
            self.fail("the page cannot read X-Last-Event-ID (not exposed by CORS?)")
        elif listing["position"] != listed_at:
            self.fail(f"the page's X-Last-Event-ID {listing['position']!r}, curl's {listed_at!r}")
        if listing["count"] != count:
            self.fail(f"the page listed {listing['count']} to-dos, {count} exist")
        if not self.seen("subscribe")[0]["withCredentials"]:
            self.fail("the page's EventSource is not withCredentials")

    def check_intruder(self):
        """The page from an origin not on the list: its listing and its EventSource are refused."""
        self.wait_for("the page from the other origin is refused",
                      lambda: [e for e in self.seen("error", "intruder") if e["readyState"] == CLOSED], 10)
        if self.seen("list", "intruder") or not self.seen("list failed", "intruder"):
            self.fail(f"an origin not on the allow-list was not refused GET /todos: {self.seen('list', 'intruder')}")
        if self.seen("open", "intruder") or self.events("intruder"):
            self.fail(f"an origin not on the allow-list opened the feed: {self.observations.in_order('intruder')}")

    def finish(self):
        self.stop_browser()
        if self.server is not None:
            self.server.kill()
        took = time.monotonic() - self.started
        with open(os.path.join(self.work, "observations.json"), "w") as f:
            json.dump({tab: self.observations.in_order(tab) for tab in ("main", "intruder")}, f, indent=1)
        if self.failures:
            for tab in ("main", "intruder"):
                print(f"-- what the page ({tab}) reported:")
                for o in self.observations.in_order(tab):
                    print("  ", json.dumps(o))
            for path in self.server_logs:
                self.print_tail(f"{os.path.basename(path)} (last lines):", path, 15)
            self.print_browser_log()
            print(f"browser feed: {len(self.events())} events seen, {len(self.failures)} failures ({took:.1f} s)")
        else:
            n = self.notes
            print(f"browser feed: {len(self.events())} events seen in order across a restart "
                  f"({n['before']} before it, {len(self.events()) - n['before']} after, "
                  f"{n['before reconnect']} of these made before the page was back; it reconnected "
                  f"by itself {n['reconnect ms'] / 1000:.1f} s after its stream ended, no resync; "
                  f"another origin refused), 0 failures ({took:.1f} s)")
        return self.done()


if __name__ == "__main__":
    harness.main(__doc__, Check, "logs, data, profile")
