#!/usr/bin/env python3
"""Checks the OpenAPI document against the server's real answers.

1. The document is valid OpenAPI 3.1 (openapi-spec-validator).
2. Every response the end-to-end tests received (recorded by them in a JSON Lines file when
   TODO_RESPONSE_LOG is set) matches the document: the path and method name an operation (else the
   answer must be the documented 404 or 405 problem), the status is documented for it (no
   `default`: an operation lists what it can answer), the media type is one the document lists,
   the JSON body validates against the schema, every required header is present, and there is no
   body where the document has none.

3. Every operation and status the document lists was answered at least once; a shared response
   marked x-any-operation (a refusal every operation can get) on at least one operation, and one
   marked x-requires-configuration (401/403, which need tokens configured) is reported, not failed,
   when no test got it.

Usage: scripts/check_openapi.py DOCUMENT RESPONSES.jsonl
"""
import json
import re
import sys

from jsonschema.exceptions import ValidationError
from openapi_schema_validator import OAS31Validator
from openapi_spec_validator import validate
from referencing import Registry
from referencing.jsonschema import DRAFT202012


def main(document_path, responses_path):
    with open(document_path) as f:
        document = json.load(f)
    validate(document)

    def closed(node):
        """The document with every object schema that lists properties and does not state
        additionalProperties closed to others: the server sends only what the document names."""
        if isinstance(node, list):
            return [closed(v) for v in node]
        if not isinstance(node, dict):
            return node
        copy = {k: closed(v) for k, v in node.items()}
        if isinstance(node.get("properties"), dict) and "additionalProperties" not in node and "$ref" not in node:
            copy["additionalProperties"] = False
        return copy

    registry = Registry().with_resource("urn:openapi", DRAFT202012.create_resource(closed(document)))

    def resolve(node):
        while isinstance(node, dict) and "$ref" in node:
            node = registry.resolver().lookup("urn:openapi" + node["$ref"]).contents
        return node

    def absolute(schema):
        """The schema with document-local references made absolute, to validate it on its own."""
        if isinstance(schema, dict):
            return {k: ("urn:openapi" + v if k == "$ref" and v.startswith("#") else absolute(v)) for k, v in schema.items()}
        if isinstance(schema, list):
            return [absolute(v) for v in schema]
        return schema

    templates = []
    for path in document["paths"]:
        pattern = "^" + re.sub(r"\{[^/]+\}", "[^/]+", path) + "$"
        templates.append((path, re.compile(pattern), path.count("{")))
    templates.sort(key=lambda t: t[2])  # static paths win over {id}

    failures, checked, operations = [], 0, set()
    with open(responses_path) as f:
        entries = [json.loads(line) for line in f if line.strip()]
    for entry in entries:
        method, target, status = entry["method"].lower(), entry["target"], entry["status"]
        headers = {name.lower(): value for name, value in entry["headers"]}
        body = entry["body"]
        where = f"{entry['method']} {target} -> {status}"
        if target == "?" or status == 413 and not headers.get("content-type", "").startswith("application/problem+json"):
            continue  # evhttp's own 413 past the hard limit, documented as outside the contract
        path = target.split("?", 1)[0]
        if path.startswith(("http://", "https://")):  # absolute form (RFC 9112 §3.2.2): the path after the authority
            path = "/" + path.split("/", 3)[3] if path.count("/") >= 3 else "/"
        matched = next((p for p, rx, _ in templates if rx.match(path)), None)
        if path == "*" and method == "options" and status not in (400, 401, 413, 414):
            # Asterisk-form, which OpenAPI paths cannot name: the info description promises 204 and
            # an Allow listing every method some path of the document answers.
            methods = ("get", "head", "post", "put", "patch", "delete", "options")
            documented = {m.upper() for item in document["paths"].values() for m in item if m in methods} | {"HEAD", "OPTIONS"}
            allow = {m.strip() for m in headers.get("allow", "").split(",") if m.strip()}
            checked += 1
            if status != 204 or allow != documented:
                failures.append(f"{where}: OPTIONS * must be 204 with Allow {sorted(documented)}, got Allow {sorted(allow)}")
            continue
        if matched is None:
            response = resolve(document["components"]["responses"]["Problem"])
            # 401 first when tokens are on: an unknown path is not told apart from a known one.
            if status not in (400, 401, 404, 414, 413):
                failures.append(f"{where}: unknown path answered other than 400/401/404/413/414")
                continue
        else:
            item = document["paths"][matched]
            operation = item.get(method)
            if operation is None:
                if status not in (400, 405, 413, 414):
                    failures.append(f"{where}: undocumented method answered other than 405")
                    continue
                response = resolve(document["components"]["responses"]["Problem"])
            else:
                operations.add((matched, method, str(status)))
                response = operation["responses"].get(str(status)) or operation["responses"].get("default")
                if response is None:
                    failures.append(f"{where}: status not documented for {method.upper()} {matched}")
                    continue
                response = resolve(response)
        checked += 1
        for name, header in response.get("headers", {}).items():
            header = resolve(header)
            if (header.get("required") or header.get("x-always-sent")) and name.lower() not in headers and not (name == "Content-Length" and status == 304):
                failures.append(f"{where}: required header {name} missing")
        content = response.get("content")
        if not body:
            continue
        if not content:
            failures.append(f"{where}: a body where the document has none")
            continue
        media = headers.get("content-type", "").split(";")[0].strip()
        if media not in content:
            failures.append(f"{where}: Content-Type {media!r} not in {sorted(content)}")
            continue
        if not media.endswith("json"):
            continue
        try:
            instance = json.loads(body)
        except ValueError as error:
            failures.append(f"{where}: body is not JSON: {error}")
            continue
        schema = closed(content[media]["schema"])
        validator = OAS31Validator(absolute(schema), registry=registry)
        try:
            validator.validate(instance)
        except ValidationError as error:
            failures.append(f"{where}: {error.message} at {'/'.join(map(str, error.absolute_path))}")

    for failure in failures[:50]:
        print("FAIL", failure)
    # Coverage. An operation's own responses must each be answered on that operation. A shared
    # response marked x-any-operation: GROUP (a refusal before routing, such as 414 or 431, that
    # every operation can get; HEAD's body-less twin is in the same group) must be answered, for
    # each status, on at least one of the operations that list the group; one marked
    # x-requires-configuration is reported, not failed, when no test got it (the tests may not
    # configure what it needs).
    own, shared = set(), {}
    for p, item in document["paths"].items():
        for m, op in item.items():
            if not isinstance(op, dict) or "responses" not in op:
                continue
            for s, response in op["responses"].items():
                if s == "default":
                    continue
                component = resolve(response)
                if component.get("x-any-operation"):
                    group = (component["x-any-operation"], s, component.get("x-requires-configuration"))
                    shared.setdefault(group, set()).add((p, m, s))
                else:
                    own.add((p, m, s))
    missing = sorted(own - operations)
    for path, method, status in missing:
        failures.append(f"never answered: {method.upper()} {path} {status}")
        print(f"FAIL never answered: {method.upper()} {path} {status}")
    unanswered_shared, unconfigured = [], []
    for (name, status, needs), members in sorted(shared.items(), key=lambda item: item[0][:2]):
        if members & operations:
            continue
        if needs:
            unconfigured.append(f"{status} {name} (needs {needs})")
        else:
            unanswered_shared.append((name, status))
            failures.append(f"never answered on any operation: {status} {name}")
            print(f"FAIL never answered on any operation: {status} {name}")
    if unconfigured:
        print("openapi: no test got (reported, not failed): " + ", ".join(unconfigured))
    print(f"openapi document valid; {len(own) - len(missing)} of {len(own)} operation/status pairs answered on their operation, "
          f"{len(shared) - len(unanswered_shared) - len(unconfigured)} of {len(shared)} shared refusals answered on some operation")
    print(f"openapi: {checked} responses checked, {len(failures)} failures")
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
