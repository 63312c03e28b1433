"""What the browser checks share: feed_check.py (issue 19) and todo_backend_check.py (issue 24).

A static server that serves a check's page from an origin of its own and records what the page
reports; todo-server processes on loopback ports, started from the binary's folder and waited for;
headless Chromium; a base class for a check's failures, polls with deadlines, log tails and work
folder; and main(), the command line both share. Standard library only.
"""

import argparse
import http.client
import http.server
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))


class Abort(Exception):
    """A step that the rest cannot do without failed."""


def static_server(page_name, post_path, collector, what, page_headers=()):
    """An HTTP server on a free loopback port that serves the page and records its reports.

    GET /page_name answers scripts/browser/page_name (with page_headers); a POST to post_path is a
    JSON report for collector.add(), which raises ValueError, KeyError or TypeError on one it cannot
    take (then the page gets 400 "bad <what>"). Returns (server, origin)."""
    with open(os.path.join(HERE, page_name), "rb") as f:
        page = f.read()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def reply(self, status, body=b"", content_type="text/plain", extra=()):
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            for name, value in extra:
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            if urllib.parse.urlsplit(self.path).path == f"/{page_name}":
                self.reply(200, page, "text/html; charset=utf-8", page_headers)
            else:
                self.reply(404, b"not found")

        def do_POST(self):
            if self.path != post_path:
                self.reply(404, b"not found")
                return
            length = int(self.headers.get("Content-Length", "0"))
            try:
                collector.add(json.loads(self.rfile.read(length)))
            except (ValueError, KeyError, TypeError):
                self.reply(400, f"bad {what}".encode())
                return
            self.reply(204)

    class Quiet(http.server.ThreadingHTTPServer):
        daemon_threads = True

        def handle_error(self, request, client_address):
            # Chromium drops its keep-alive connections when it is killed at the end.
            if not isinstance(sys.exc_info()[1], ConnectionError):
                super().handle_error(request, client_address)

    server = Quiet(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(port, method, path, headers=None):
    """One request with http.client; returns (status, headers as a lower-cased dict, body text)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        connection.request(method, path, headers=headers or {})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read().decode()
    finally:
        connection.close()


class Server:
    """One todo-server process on a loopback port (a free one unless given), logging to `log`."""

    def __init__(self, binary, log, options, port=None, name=None):
        self.name = name
        self.label = f"the {name} server" if name else "the server"
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = log
        self.command = [binary, "--host", "127.0.0.1", "--port", str(self.port), *options]
        with open(log, "wb") as f:
            # From the binary's folder, as the image runs it (Config/todo-server.json beside it).
            self.process = subprocess.Popen(self.command, cwd=os.path.dirname(binary), stdout=f,
                                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

    def exited(self):
        """What Abort says when the process ended before it answered."""
        return f"{self.label} exited ({self.process.returncode}) at start"

    def up(self):
        if self.process.poll() is not None:
            raise Abort(self.exited())
        try:
            return request(self.port, "GET", "/healthz")[0] == 200
        except OSError:
            return False

    def stop(self, seconds):
        """SIGTERM, then waits for the exit: its status, or None if it was killed after `seconds`."""
        if self.process.poll() is not None:
            return self.process.returncode
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            self.kill()
            return None

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


class Check:
    """A check's failures, waits, browser and work folder (prefix: the folder's name's start)."""

    def __init__(self, args, prefix):
        self.args = args
        self.failures = []
        self.work = tempfile.mkdtemp(prefix=prefix)
        self.browser = None
        self.browser_log = os.path.join(self.work, "chromium.log")
        self.notes = {}
        self.started = time.monotonic()

    def fail(self, message):
        self.failures.append(message)
        print(f"FAIL {message}", flush=True)

    def wait_for(self, what, predicate, seconds):
        """Polls until predicate() is true, for at most `seconds`; fails at the deadline."""
        deadline = time.monotonic() + seconds
        while True:
            value = predicate()
            if value:
                return value
            if self.browser is not None and self.browser.poll() is not None:
                raise Abort(f"{what}: Chromium exited ({self.browser.returncode})")
            if time.monotonic() >= deadline:
                self.fail(f"{what}: not within {seconds} s")
                return value
            time.sleep(0.02)

    def wait_up(self, server):
        if not self.wait_for(f"{server.label} answers /healthz", server.up, 30):
            raise Abort(f"{server.label} did not start")

    def open_chromium(self, url):
        """Headless Chromium on `url`, in a session of its own, logging to self.browser_log."""
        profile = os.path.join(self.work, "chromium-profile")
        with open(self.browser_log, "wb") as log:
            self.browser = subprocess.Popen(
                [self.args.chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-sync",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
                 "--enable-logging=stderr", "--v=0", f"--user-data-dir={profile}", url],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)

    def stop_browser(self):
        if self.browser is not None and self.browser.poll() is None:
            os.killpg(self.browser.pid, signal.SIGKILL)  # its whole process group (renderers, GPU)
            self.browser.wait()

    def print_tail(self, title, path, lines):
        """`-- title` and the last `lines` lines of the log at `path`."""
        print(f"-- {title}")
        with open(path, errors="replace") as f:
            for line in f.readlines()[-lines:]:
                print("  ", line.rstrip())

    def print_browser_log(self):
        if os.path.exists(self.browser_log):
            print("-- Chromium's log (without D-Bus noise):")
            with open(self.browser_log, errors="replace") as f:
                for line in f:
                    if "dbus" not in line.lower() and line.strip():
                        print("  ", line.rstrip()[:400])

    def done(self):
        """Keeps (--keep) or removes the work folder; the exit status."""
        if self.args.keep:
            print(f"kept {self.work}")
        else:
            shutil.rmtree(self.work, ignore_errors=True)
        return 1 if self.failures else 0


def main(doc, check_class, keep_what, options=None):
    """Parses the command line (`options(parser)` adds a check's own), runs the check, exits."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--server", required=True, help="the todo-server binary")
    parser.add_argument("--chromium", default="chromium")
    parser.add_argument("--keep", action="store_true", help=f"keep the work folder ({keep_what})")
    if options is not None:
        options(parser)
    args = parser.parse_args()
    check = check_class(args)
    try:
        check.run()
    except Abort as abort:
        check.fail(str(abort))
    except Exception as error:  # noqa: BLE001 - reported as a failure with the page's state
        check.fail(f"{type(error).__name__}: {error}")
    sys.exit(check.finish())
