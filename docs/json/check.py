#!/usr/bin/env python3
"""Check one axbench --json document against its schema (docs/JSON.md).

    axbench results --json | python3 docs/json/check.py results

Reads stdin, which must hold exactly one JSON document and nothing else
(json.loads refuses trailing text), validates it against
docs/json/NAME.schema.json (draft 2020-12; the schemas refer to
common.schema.json, loaded from the same directory, never fetched), and
checks the rule no schema can state for every field at once: no string
anywhere is exactly "true" or "false" (a boolean must be a JSON boolean).
A schema's "x-bool-text" lists the dotted paths (* matches any key or
index) where such a word is text by design, and --allow-bool-text PATH
adds one (compare's rows.*.params: see docs/JSON.md#compare).  Exit 0 when the document holds, 1 with every
problem on stderr when not, 2 on bad usage.

Needs python3-jsonschema (scripts/deps.sh --test installs it).
"""
import argparse
import json
import os
import sys

import jsonschema

HERE = os.path.dirname(os.path.abspath(__file__))


def load_schemas():
    store = {}
    for name in sorted(os.listdir(HERE)):
        if name.endswith(".schema.json"):
            with open(os.path.join(HERE, name), encoding="utf-8") as f:
                schema = json.load(f)
            store[schema["$id"]] = schema
    return store


def make_validator(cls, schema, key, store):
    """The schemas refer to each other by $id: a registry of them all
    (jsonschema 4.18 and later), or the older RefResolver (Debian 12's
    4.10).  Nothing is fetched."""
    try:
        from referencing import Registry, Resource
    except ImportError:
        resolver = jsonschema.RefResolver(key, schema, store=store)
        return cls(schema, resolver=resolver)
    registry = Registry().with_resources(
        (k, Resource.from_contents(v)) for k, v in store.items())
    return cls(schema, registry=registry)


def bool_text(doc, allowed):
    """Paths of the strings "true" / "false" outside the allowed paths."""
    found = []

    def exempt(path):
        for pattern in allowed:
            if len(path) < len(pattern):
                continue
            if all(p == "*" or p == str(k) for p, k in zip(pattern, path)):
                return True
        return False

    def walk(node, path):
        if exempt(path):
            return
        if isinstance(node, dict):
            for key, value in node.items():
                walk(value, path + [key])
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, path + [i])
        elif node in ("true", "false"):
            found.append(".".join(str(p) for p in path) or "(document)")

    walk(doc, [])
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("name", help="the schema: devices, results, run ...")
    ap.add_argument("--allow-bool-text", action="append", default=[],
                    metavar="PATH")
    args = ap.parse_args()
    store = load_schemas()
    key = "https://axbench.invalid/json/%s.schema.json" % args.name
    if key not in store:
        names = sorted(k.rsplit("/", 1)[1][:-len(".schema.json")]
                       for k in store)
        print("check.py: no schema %r; one of %s" % (args.name,
              ", ".join(names)), file=sys.stderr)
        return 2
    text = sys.stdin.read()
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        print("check.py: stdout is not exactly one JSON document: %s" % e,
              file=sys.stderr)
        return 1
    schema = store[key]
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    validator = make_validator(cls, schema, key, store)
    problems = []
    for e in validator.iter_errors(doc):
        # Under anyOf / oneOf the message says only that no branch held:
        # name the deepest reason instead.
        deep = jsonschema.exceptions.best_match(e.context) if e.context \
            else e
        problems.append("%s: %s" % ("/".join(
            str(p) for p in deep.absolute_path) or "(document)",
            deep.message))
    # A schema names the text fields where the words are text, not a
    # boolean (suites' default_text: what -p takes).
    allowed = [p.split(".") for p in
               args.allow_bool_text + schema.get("x-bool-text", [])]
    problems += ["%s: a boolean written as the string true/false" % p
                 for p in bool_text(doc, allowed)]
    for p in problems:
        print("check.py: %s: %s" % (args.name, p), file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
