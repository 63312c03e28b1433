#!/usr/bin/env python3
"""Issue 24's browser check: the Todo-Backend specs, run by a real browser from another origin.

Todo-Backend (todobackend.com) checks a to-do backend from a browser page on another origin with
cross-origin requests. This is our own equivalent (none of its code): scripts/browser/todo_backend.html
runs the same groups of steps (the pre-requisites; storing new to-dos by POSTing to the root;
working with an existing to-do through the `url` in answers: title, completedness, persistence,
delete; tracking order) with the browser's own fetch and "Content-Type: application/json" on every
request, so Chromium makes real preflights, and checks concrete values at each step.

This script serves that page from an origin of its own (a loopback port) and starts two release
binaries: one with the default corsOrigin ("*") and one whose allow-list (--cors-origin) names only
the page's origin. Headless Chromium opens the page, which runs every spec against the first, then
the second, and reports each run here (POST /result). Then the page embeds itself from a third
origin, not on the list: every request of that one to the allow-listed server must be refused by
the browser (and its POST must not reach the store), while the "*" server answers it. The
servers' /metrics must show the preflights (OPTIONS) the browser made; the raw preflight answers
are checked with http.client too, so that a CORS fault is named precisely.

Every wait is a poll with a deadline. Prints failures (then the page's requests and the logs'
tails) and one summary line; exits 1 on any failure. Standard library only, plus Chromium; what it
shares with feed_check.py is in harness.py.

Usage: todo_backend_check.py --server STAGING/todo-server [--chromium chromium] [--keep]
       [--open-cors ORIGINS] [--listed-cors ORIGINS]
The last two replace the servers' corsOrigin (default: none, so "*"; and the page's origin): give
an allow-list without the page's origin to see the check fail as a server with CORS broken would.
"""

import json
import os
import re
import threading
import time
import urllib.parse

import harness
from harness import Abort, request

SPECS = 17  # in scripts/browser/todo_backend.html: 4 + 4 + 5 + 4
RUN_SECONDS = 30  # Chromium's start and both runs of the specs (about 1.5 s together on the 2-core machine)


class Reports:
    """What the page (and its embedded copy) reported."""

    def __init__(self):
        self.lock = threading.Lock()
        self.items = []

    def add(self, report):
        if not isinstance(report, dict):
            raise TypeError("not an object")
        with self.lock:
            self.items.append(report)

    def of(self, role, kind):
        with self.lock:
            return [r for r in self.items if r.get("role") == role and r.get("kind") == kind]

    def all(self):
        with self.lock:
            return list(self.items)


def static_server(reports):
    """The page's server (harness.static_server): todo_backend.html, and its reports to POST /result."""
    return harness.static_server("todo_backend.html", "/result", reports, "report")


class Server(harness.Server):
    """One todo-server process, in memory, on a port of its own."""

    def __init__(self, name, binary, work, cors_origin):
        options = ["--cors-origin", cors_origin] if cors_origin is not None else []
        super().__init__(binary, os.path.join(work, f"server-{name}.log"), options, name=name)

    def exited(self):
        return f"{super().exited()}: {' '.join(self.command)}"

    def preflights(self):
        """OPTIONS requests by route, from /metrics."""
        status, _, text = request(self.port, "GET", "/metrics")
        if status != 200:
            raise Abort(f"GET /metrics on the {self.name} server: {status}")
        counts = {}
        for match in re.finditer(r'^http_requests_total\{route="([^"]*)",method="OPTIONS",status="(\d+)"\} (\d+)',
                                 text, re.M):
            counts[match[1]] = counts.get(match[1], 0) + int(match[3])
        return counts


class Check(harness.Check):
    def __init__(self, args):
        super().__init__(args, "todo-backend-")
        self.reports = Reports()
        self.servers = []

    # -- the run --------------------------------------------------------------------------------

    def run(self):
        self.static, self.page_origin = static_server(self.reports)
        self.intruder, self.intruder_origin = static_server(self.reports)
        binary = os.path.abspath(self.args.server)
        listed_cors = self.args.listed_cors if self.args.listed_cors is not None else self.page_origin
        self.open = Server("open", binary, self.work, self.args.open_cors)
        self.listed = Server("listed", binary, self.work, listed_cors)
        self.servers = [self.open, self.listed]
        for server in self.servers:
            self.wait_up(server)
        self.check_preflight_answers()
        self.preflights_before = {server.name: server.preflights() for server in self.servers}
        self.open_browser()

        # Both runs of the specs, then the probe from the origin not on the list.
        runs = self.wait_for("the page runs the specs against both servers",
                             lambda: len(self.reports.of("main", "run")) >= 2 or self.reports.of("main", "failure"),
                             RUN_SECONDS)
        for failure in self.reports.of("main", "failure") + self.reports.of("intruder", "failure"):
            self.fail(f"the page failed: {failure.get('message')}")
        if not runs or len(self.reports.of("main", "run")) < 2:
            raise Abort("the page did not report both runs")
        by_target = {r["target"]: r for r in self.reports.of("main", "run")}
        labels = {"open": 'default corsOrigin "*"', "listed": "allow-list naming the page's origin"}
        for target in ("open", "listed"):
            self.check_run(labels[target], by_target.get(target))
        self.check_preflights()
        if self.wait_for("the page from an origin not on the allow-list reports its probes",
                         lambda: self.reports.of("intruder", "probe"), 10):
            self.check_probe(self.reports.of("intruder", "probe")[0]["probes"])

    def check_preflight_answers(self):
        """The raw answers to the preflights the browser will make, so a fault is named exactly."""
        ask = {"Access-Control-Request-Method": "PATCH", "Access-Control-Request-Headers": "content-type"}
        status, headers, _ = request(self.open.port, "OPTIONS", "/todos/some-id", {"Origin": self.page_origin, **ask})
        self.expect_preflight("open", self.page_origin, status, headers, "*")
        status, headers, _ = request(self.listed.port, "OPTIONS", "/todos/some-id", {"Origin": self.page_origin, **ask})
        self.expect_preflight("listed", self.page_origin, status, headers, self.page_origin)
        if "origin" not in headers.get("vary", "").lower():
            self.fail(f"the allow-listed server's preflight answer: Vary {headers.get('vary')!r} lacks Origin")
        status, headers, _ = request(self.listed.port, "OPTIONS", "/todos", {"Origin": self.intruder_origin, **ask})
        granted = {k: v for k, v in headers.items() if k.startswith("access-control-allow-")}
        if granted:
            self.fail(f"the allow-listed server's preflight answer to {self.intruder_origin} (not on the list) "
                      f"grants {granted}")

    def expect_preflight(self, name, origin, status, headers, allow_origin):
        where = f"the {name} server's preflight answer to {origin} (OPTIONS /todos/{{id}}, PATCH, content-type)"
        if status not in (200, 204):
            self.fail(f"{where}: status {status}")
        if headers.get("access-control-allow-origin") != allow_origin:
            self.fail(f"{where}: Access-Control-Allow-Origin {headers.get('access-control-allow-origin')!r}, "
                      f"expected {allow_origin!r}")
            return
        methods = {m.strip().upper() for m in headers.get("access-control-allow-methods", "").split(",")}
        missing = {"GET", "POST", "PATCH", "DELETE"} - methods
        if missing:
            self.fail(f"{where}: Access-Control-Allow-Methods lacks {sorted(missing)}")
        if "content-type" not in headers.get("access-control-allow-headers", "").lower():
            self.fail(f"{where}: Access-Control-Allow-Headers {headers.get('access-control-allow-headers')!r} "
                      f"lacks Content-Type")

    def open_browser(self):
        """Chromium with the page from the allowed origin; it embeds itself from the other one."""
        def page(origin, role):
            query = urllib.parse.urlencode(dict(role=role, open=self.open.base, listed=self.listed.base))
            return f"{origin}/todo_backend.html?{query}"
        main_page = page(self.page_origin, "main") + "&" + urllib.parse.urlencode(
            dict(frame=page(self.intruder_origin, "intruder")))
        self.open_chromium(main_page)

    def check_run(self, label, run):
        if run is None:
            self.fail(f"[{label}] no results")
            return
        results = run["results"]
        run["failed"] = not all(r["ok"] for r in results)
        self.notes.setdefault("specs", {})[label] = sum(r["ok"] for r in results)
        self.notes.setdefault("requests", 0)
        self.notes["requests"] += len(run["requests"])
        for r in results:
            if not r["ok"]:
                self.fail(f"[{label}] {r['group']} > {r['name']}: {r['message']}")
        if len(results) != SPECS and not run["failed"]:
            self.fail(f"[{label}] {len(results)} specs ran, expected {SPECS}: {[r['name'] for r in results]}")

    def check_preflights(self):
        """Chromium preflighted the collection and the items (Content-Type: application/json)."""
        failed = {r["target"] for r in self.reports.of("main", "run") if r.get("failed")}
        for server in self.servers:
            if server.name in failed:
                continue  # its failures say why
            before = self.preflights_before[server.name]
            counts = {route: n - before.get(route, 0) for route, n in server.preflights().items()}
            self.notes[f"preflights {server.name}"] = sum(counts.values())
            for route in ("/todos", "/todos/{id}"):
                if not counts.get(route):
                    self.fail(f"the {server.name} server counted no preflight (OPTIONS) from the browser on "
                              f"{route}: {counts}")

    def check_probe(self, probes):
        answered = [p for p in probes if p["target"] == "listed" and p["outcome"] != "refused"]
        for p in answered:
            self.fail(f"from {self.intruder_origin}, not on the allow-list: {p['method']} {p['path']} "
                      f"({'preflighted' if p['preflighted'] else 'simple'}) was answered in the browser: "
                      f"{p['status']} {p.get('body', '')[:100]}")
        refused = [p for p in probes if p["target"] == "listed" and p["outcome"] == "refused"]
        self.notes["refused"] = (len(refused), len(refused) + len(answered))
        if len(refused) + len(answered) < 4:
            self.fail(f"the probe from {self.intruder_origin} made {len(refused) + len(answered)} requests, expected 4")
        for p in probes:
            if p["target"] == "open":
                if p["outcome"] != "answered" or p["status"] != 200:
                    self.fail(f"from {self.intruder_origin}, the default (\"*\") server did not answer "
                              f"{p['method']} {p['path']}: {p.get('status', p.get('message'))}")
        # The refused POST was preflighted: it must never have reached the store.
        status, _, text = request(self.listed.port, "GET", "/todos")
        titles = [t.get("title") for t in json.loads(text)] if status == 200 else None
        if titles is None or "from a stranger" in titles:
            self.fail(f"the POST from {self.intruder_origin} reached the allow-listed server's store: "
                      f"GET /todos {status} {text[:200]}")

    # -- the end --------------------------------------------------------------------------------

    def finish(self):
        self.stop_browser()
        for server in self.servers:
            server.stop(10)
        took = time.monotonic() - self.started
        with open(os.path.join(self.work, "reports.json"), "w") as f:
            json.dump(self.reports.all(), f, indent=1)
        if self.failures:
            for report in self.reports.all():
                if report.get("kind") == "run" and report.get("failed"):
                    print(f"-- the page's requests to the {report['target']} server ({report['base']}), "
                          "status 0 = refused by the browser:")
                    print("   " + ", ".join(f"{q['method']} {q['path']} {q['status']}" for q in report["requests"]))
                elif report.get("kind") == "probe":
                    print("-- the probe from the origin not on the allow-list:")
                    for p in report["probes"]:
                        print("  ", json.dumps(p))
            for server in self.servers:
                self.print_tail(f"{os.path.basename(server.log)} ({' '.join(server.command[1:])}), last lines:",
                                server.log, 8)
            self.print_browser_log()
            passed = sum(self.notes.get("specs", {}).values())
            print(f"todo-backend: {passed} of {2 * SPECS} specs passed (two runs of {SPECS}), "
                  f"{len(self.failures)} failures ({took:.1f} s)")
        else:
            n = self.notes
            (label_open, passed_open), (label_listed, passed_listed) = n["specs"].items()
            print(f"todo-backend: {passed_open} specs passed in headless Chromium from another origin with "
                  f"the {label_open} and {passed_listed} with an {label_listed} ({n['requests']} requests, "
                  f"{n['preflights open'] + n['preflights listed']} preflights), an origin not on the list "
                  f"refused ({n['refused'][0]} of {n['refused'][1]} requests), 0 failures ({took:.1f} s)")
        return self.done()


def options(parser):
    parser.add_argument("--open-cors", help="corsOrigin of the first server (default: none given, so \"*\")")
    parser.add_argument("--listed-cors", help="corsOrigin of the second server (default: the page's origin)")


if __name__ == "__main__":
    harness.main(__doc__, Check, "logs, reports, profile", options)
