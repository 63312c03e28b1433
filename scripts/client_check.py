#!/usr/bin/env python3
"""Drives every operation of a running TodoServer through a client that openapi-python-client
generated from the server's own /openapi.json (scripts/client-check.sh generates it and runs this).

Checks, for each call: the status is the one expected and one the document lists (the client
raises on any other); a 2xx with a body parses into a generated model (a list of them, or text for
/metrics), never an untyped value; an error with a body parses into Problem; HEAD errors, which
have no body, come back as a status without a crash. At the end every operation of the generated
client must have been called.

With OWNER_TOKEN, OTHER_OWNER_TOKEN and OPERATOR_TOKEN in the environment (client-check.sh
starts the server with owner tokens), the to-do operations run as one owner through the generated
AuthenticatedClient, /metrics and the health count as an operator, and the owners are checked to
be apart: no token is 401, the other owner gets 404 on the first's to-do and sees an empty list,
an owner's token on /metrics is 403.

Usage: client_check.py CLIENT_PARENT_DIR PACKAGE BASE_URL
"""
import datetime
import importlib
import os
import pkgutil
import sys


def main(parent, package, base_url):
    sys.path.insert(0, parent)
    client_module = importlib.import_module(package)
    api = importlib.import_module(package + ".api")
    models = importlib.import_module(package + ".models")
    operations = {}
    for group in pkgutil.iter_modules(api.__path__):
        tag = importlib.import_module(f"{package}.api.{group.name}")
        for module in pkgutil.iter_modules(tag.__path__):
            operations[module.name] = importlib.import_module(f"{package}.api.{group.name}.{module.name}")

    owner_token = os.environ.get("OWNER_TOKEN")

    def authenticated(token):
        if token is None:
            return client_module.Client(base_url=base_url, raise_on_unexpected_status=True)
        return client_module.AuthenticatedClient(base_url=base_url, token=token, raise_on_unexpected_status=True)

    client = authenticated(owner_token)
    operator = authenticated(os.environ.get("OPERATOR_TOKEN"))
    other = authenticated(os.environ.get("OTHER_OWNER_TOKEN")) if owner_token else None
    anonymous = authenticated(None)
    called, failures = set(), []
    calls = 0

    def typed(value):
        """Whether a parsed body is a generated model, a list of them, or text."""
        if isinstance(value, list):
            return all(typed(item) for item in value)
        return isinstance(value, str) or type(value).__module__.startswith(package + ".models.")

    def call(name, status, *args, body_type=None, as_client=None, **kwargs):
        nonlocal calls
        calls += 1
        called.add(name)
        response = operations[name].sync_detailed(*args, client=as_client or client, **kwargs)
        where = f"{name} -> {int(response.status_code)}"
        if response.status_code != status:
            failures.append(f"{where}: expected {status}")
            return response
        parsed = response.parsed
        if body_type is not None:
            if not isinstance(parsed, body_type) or not typed(parsed):
                failures.append(f"{where}: parsed {type(parsed).__name__}, expected {body_type.__name__}")
        elif parsed is not None:
            failures.append(f"{where}: parsed {type(parsed).__name__} where there is no body")
        if status >= 400 and body_type is models.Problem and parsed.status != status:
            failures.append(f"{where}: problem status {parsed.status}")
        return response

    def expect(condition, message):
        if not condition:
            failures.append(message)

    M = models
    # System.
    index = call("get_index", 200, body_type=M.Index).parsed
    expect(isinstance(index.links, M.IndexLinks) and index.links.todos == base_url + "/todos", f"index links: {index.links}")
    expect(isinstance(index.build, M.BuildInfo) and isinstance(index.build.started_at, datetime.datetime), "index build")
    call("get_index_head", 200)
    call("preflight_index", 204, access_control_request_method="GET")
    health = call("get_health", 200, body_type=M.Health).parsed
    expect(health.status == M.HealthStatus.OK, f"health status {health.status}")
    call("get_health_head", 200)
    call("preflight_health", 204)
    document = call("get_open_api_document", 200, body_type=M.OpenAPIDocument).parsed
    expect(document["servers"][0]["url"] == base_url, f"servers {document['servers']}")
    expect(document.openapi == "3.1.0" and isinstance(document.info, M.OpenAPIInfo) and document.info.title == "TodoServer",
           f"document {document.openapi} {document.info}")
    call("get_open_api_document_head", 200)
    call("preflight_open_api", 204)
    metrics = call("get_metrics", 200, body_type=str, as_client=operator).parsed
    expect("http_requests_total" in metrics, "metrics text")
    call("get_metrics_head", 200, as_client=operator)
    call("preflight_metrics", 204)

    # To-dos: create, list, read, change, delete.
    call("delete_all_todos", 204)
    today = datetime.date.today()
    created = call("create_todo", 201, body=M.TodoCreate(title="Buy milk", order=1, due_date=today), body_type=M.Todo)
    milk = created.parsed
    expect(created.headers["Location"] == milk.url, f"Location {created.headers.get('Location')} vs url {milk.url}")
    expect(milk.due_date == today and milk.completed is False, "created fields")
    call("create_todo", 201, body=M.TodoCreate(title="Water the plants", completed=True, order=2), body_type=M.Todo)
    call("create_todo", 201, body=M.TodoCreate(title="Call the plumber"), body_type=M.Todo)
    invalid = call("create_todo", 422, body=M.TodoCreate(title=""), body_type=M.Problem).parsed
    expect([error.field for error in invalid.errors] == ["title"], f"422 errors {invalid.errors}")
    listed = call("list_todos", 200, body_type=list)
    expect([todo.title for todo in listed.parsed] == ["Buy milk", "Water the plants", "Call the plumber"],
           f"list {[todo.title for todo in listed.parsed]}")
    expect(listed.headers["X-Total-Count"] == "3", "X-Total-Count")
    page = call("list_todos", 200, completed=False, sort=M.TodoSort.TITLE_DESC, limit=1, body_type=list)
    expect([todo.title for todo in page.parsed] == ["Call the plumber"] and 'rel="next"' in page.headers["Link"], "filtered page")
    call("list_todos", 304, if_none_match=listed.headers["ETag"])
    call("list_todos", 400, limit=0, body_type=M.Problem)
    call("list_todos_head", 200, sort=M.TodoSort.DUE_DATE_DESC)
    call("list_todos_head", 304, if_none_match=listed.headers["ETag"])
    call("list_todos_head", 400, limit=0)  # no body: the client must not try to parse one
    read = call("get_todo", 200, milk.id, body_type=M.Todo)
    etag = read.headers["ETag"]
    call("get_todo", 304, milk.id, if_none_match=etag)
    call("get_todo", 404, "no-such-id", body_type=M.Problem)
    call("get_todo_head", 200, milk.id)
    call("get_todo_head", 304, milk.id, if_none_match=etag)
    call("get_todo_head", 404, "no-such-id")
    patched = call("patch_todo", 200, milk.id, body=M.TodoPatch(completed=True, due_date=None), if_match=etag, body_type=M.Todo)
    expect(patched.parsed.completed is True and patched.parsed.due_date is None, "patched fields")
    call("patch_todo", 412, milk.id, body=M.TodoPatch(title="Buy soy milk"), if_match=etag, body_type=M.Problem)
    call("patch_todo", 404, "no-such-id", body=M.TodoPatch(title="x"), body_type=M.Problem)
    replaced = call("replace_todo", 200, milk.id, body=M.TodoReplace(title="Buy oat milk", order=2), body_type=M.Todo)
    expect(replaced.parsed.title == "Buy oat milk" and replaced.parsed.completed is False, "replaced fields")
    call("replace_todo", 422, milk.id, body=M.TodoReplace(title=""), body_type=M.Problem)
    call("preflight_todos", 204, access_control_request_method="POST", access_control_request_headers="content-type")
    call("preflight_todo", 204, milk.id, access_control_request_method="PATCH")

    # Upcoming.
    call("create_todo", 201, body=M.TodoCreate(title="Due tomorrow", due_date=today + datetime.timedelta(days=1)), body_type=M.Todo)
    upcoming = call("get_upcoming", 200, tz="UTC", week_start=M.WeekStart.MONDAY, body_type=M.Upcoming).parsed
    expect(any(isinstance(item, M.Todo) and item.title == "Due tomorrow" for section in upcoming.sections for item in section.items),
           "upcoming holds the to-do due tomorrow")
    call("get_upcoming", 400, tz="Nowhere/Else", body_type=M.Problem)
    call("get_upcoming_head", 200, week_start=M.WeekStart.SUNDAY)
    call("get_upcoming_head", 400, tz="Nowhere/Else")
    call("preflight_upcoming", 204)
    # The live feed: its head, its preflight, and GET itself against a server that takes no
    # subscribers (client-check.sh), since a generated client reads a body to its end and the
    # stream has none.
    call("get_events_head", 200)
    call("preflight_events", 204)
    call("get_events", 503, body_type=M.Problem)

    if other is not None:
        # Owners apart: the other owner's token reaches none of this owner's to-dos.
        call("list_todos", 401, body_type=M.Problem, as_client=anonymous)
        expect(call("list_todos", 200, body_type=list, as_client=other).parsed == [], "the other owner's list is empty")
        call("get_todo", 404, milk.id, body_type=M.Problem, as_client=other)
        call("delete_todo", 404, milk.id, body_type=M.Problem, as_client=other)
        call("delete_all_todos", 204, as_client=other)
        call("get_todo", 200, milk.id, body_type=M.Todo)
        call("get_metrics", 403, body_type=M.Problem, as_client=other)
    call("delete_todo", 412, milk.id, if_match='"0"', body_type=M.Problem)
    call("delete_todo", 204, milk.id)
    call("delete_todo", 404, milk.id, body_type=M.Problem)
    call("delete_all_todos", 204)
    expect(call("get_health", 200, body_type=M.Health, as_client=operator).parsed.todos == 0, "health after DELETE /todos")

    for name in sorted(set(operations) - called):
        failures.append(f"operation never called: {name}")
    for failure in failures:
        print("FAIL", failure)
    print(f"client check: {len(called)} of {len(operations)} operations of the generated client driven, "
          f"{calls} calls, typed 2xx bodies, HEAD errors handled, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
