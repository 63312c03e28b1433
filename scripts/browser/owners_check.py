#!/usr/bin/env python3
"""Issue 36's browser check: two owners in one real browser, each seeing only their own to-dos.

Starts TodoServer (in memory) with two owner tokens and a CORS allow-list of the page's origin, and
serves scripts/browser/feed.html from that origin. Headless Chromium opens the page as alice, which
embeds the same page as bob (a frame: headless Chromium opens one tab only); each lists its
owner's to-dos with its token and subscribes with EventSource(".../todos/events?lastEventId=...&
access_token=<its token>", {withCredentials: true}). The checker makes changes for both owners with
curl and checks that each page listed its owner's to-dos only and saw exactly its owner's changes,
in order, none of the other's, a clear included.

Every wait is a poll with a deadline. Prints failures (then what the pages saw and the log's tail)
and one summary line; exits 1 on any failure. Standard library only, plus curl and Chromium.

Usage: owners_check.py --server STAGING/todo-server [--chromium chromium] [--keep]
"""

import json
import os
import time
import urllib.parse

import feed_check
import harness
from harness import Abort

TOKENS = {"alice": "owners-check-alice-token", "bob": "owners-check-bob-token"}


class Check(harness.Check):
    def __init__(self, args):
        super().__init__(args, "browser-owners-")
        self.observations = feed_check.Observations()
        self.server = None
        self.log_path = os.path.join(self.work, "server.log")
        self.expected = {owner: [] for owner in TOKENS}

    def change(self, owner, method, path, body, want_status):
        status, _, text = feed_check.curl(method, f"{self.api}{path}", token=TOKENS[owner], body=body)
        if status != want_status:
            raise Abort(f"{owner}: {method} {path}: {status} {text[:200]}")
        return json.loads(text) if text else None

    def create(self, owner, title, expected=True):
        todo = self.change(owner, "POST", "/todos", {"title": title}, 201)
        if expected:
            self.expected[owner].append(("created", todo["id"], title))
        return todo["id"]

    def events(self, owner):
        return [o for o in self.observations.in_order(owner) if o["kind"] == "event"]

    def run(self):
        self.static, self.page_origin = feed_check.static_server(self.observations)
        self.api_port = harness.free_port()
        self.api = f"http://127.0.0.1:{self.api_port}"
        pairs = ",".join(f"{owner}:{token}" for owner, token in TOKENS.items())
        self.server = harness.Server(os.path.abspath(self.args.server), self.log_path,
                                     ["--cors-origin", self.page_origin, "--cors-credentials", "true",
                                      "--owner-tokens", pairs], port=self.api_port)
        self.wait_up(self.server)

        # Before the pages list: one to-do of alice's, two of bob's.
        self.create("alice", "alice seeded", expected=False)
        bobs = [self.create("bob", "bob seeded one", expected=False), self.create("bob", "bob seeded two", expected=False)]

        def page(owner, **more):
            query = urllib.parse.urlencode(dict(api=self.api, token=TOKENS[owner], tab=owner, **more))
            return f"{self.page_origin}/feed.html?{query}"
        self.open_chromium(page("alice", frame=page("bob")))
        for owner in TOKENS:
            if not self.wait_for(f"{owner}'s page lists and its EventSource opens",
                                 lambda: [o for o in self.observations.in_order(owner) if o["kind"] in ("open", "list failed")], 30):
                raise Abort(f"{owner}'s page did not start")
        for owner, count in (("alice", 1), ("bob", 2)):
            listings = [o for o in self.observations.in_order(owner) if o["kind"] == "list"]
            if not listings or listings[0]["status"] != 200 or listings[0]["count"] != count:
                self.fail(f"{owner}'s page listed {listings[:1]}, expected status 200 and {count} to-dos (its own)")

        # Changes of both, interleaved; bob's attempt on alice's to-do is a 404 and no event.
        first = self.create("alice", "alice one")
        self.create("bob", "bob one")
        self.change("bob", "DELETE", f"/todos/{first}", None, 404)
        self.change("bob", "PATCH", f"/todos/{first}", {"title": "taken"}, 404)
        self.change("alice", "PATCH", f"/todos/{first}", {"title": "alice one, renamed"}, 200)
        self.expected["alice"].append(("updated", first, "alice one, renamed"))
        self.change("bob", "DELETE", "/todos", None, 204)
        self.expected["bob"].append(("cleared", None, None))
        self.create("alice", "alice two")
        self.change("bob", "DELETE", f"/todos/{bobs[0]}", None, 404)  # cleared already
        self.create("bob", "bob two")

        for owner in TOKENS:
            self.wait_for(f"{owner}'s page sees its changes", lambda: len(self.events(owner)) >= len(self.expected[owner]), 15)
            got = [(e["type"], e.get("id"), e.get("title")) for e in self.events(owner)]
            if got != self.expected[owner]:
                self.fail(f"{owner}'s page saw {got}, expected exactly its own changes {self.expected[owner]}")
            failures = [o for o in self.observations.in_order(owner) if o["kind"] in ("failure", "list failed")]
            if failures:
                self.fail(f"{owner}'s page failed: {failures}")
        status, _, text = feed_check.curl("GET", f"{self.api}/todos", token=TOKENS["alice"])
        titles = [todo["title"] for todo in json.loads(text)] if status == 200 else None
        if titles != ["alice seeded", "alice one, renamed", "alice two"]:
            self.fail(f"alice's list after bob's clear: {status} {titles}")

    def finish(self):
        self.stop_browser()
        if self.server is not None:
            self.server.kill()
        took = time.monotonic() - self.started
        if self.failures:
            for owner in TOKENS:
                print(f"-- what {owner}'s page reported:")
                for o in self.observations.in_order(owner):
                    print("  ", json.dumps(o))
            self.print_tail("server log (last lines):", self.log_path, 15)
            self.print_browser_log()
            print(f"browser owners: {len(self.failures)} failures ({took:.1f} s)")
        else:
            print(f"browser owners: alice's page saw her {len(self.events('alice'))} changes, bob's his "
                  f"{len(self.events('bob'))}, none of the other's; each listed only its own, 0 failures ({took:.1f} s)")
        return self.done()


if __name__ == "__main__":
    harness.main(__doc__, Check, "logs, profile")
