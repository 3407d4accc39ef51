#!/usr/bin/env python3
"""Python's json.loads as an oracle for scripts/fuzz/request-fuzz.mjs.

Reads one JSON string per line on stdin (the document to decode, itself
JSON-encoded so lone surrogates survive the pipe) and answers one line per
input on stdout:
  ["ok", TAGGED, DUMPS]     the decoded value as a tagged tree, and
                            json.dumps(value, ensure_ascii=False)
  ["err", TYPE, MESSAGE]    the exception class and str(e)
Tagged tree (the same as test/protocol/canonical.ts): ["none"], ["bool", b],
["int", "digits"], ["float", repr], ["str", s], ["list", [...]],
["dict", [[key, tagged], ...]] in insertion order.
"""

import json
import sys

def tag(v):
    if v is None:
        return ["none"]
    if v is True or v is False:
        return ["bool", v]
    if isinstance(v, int):
        return ["int", str(v)]
    if isinstance(v, float):
        return ["float", repr(v)]
    if isinstance(v, str):
        return ["str", v]
    if isinstance(v, list):
        return ["list", [tag(x) for x in v]]
    return ["dict", [[k, tag(x)] for k, x in v.items()]]


def main():
    for line in sys.stdin:
        doc = json.loads(line)
        try:
            v = json.loads(doc)
            out = ["ok", tag(v), json.dumps(v, ensure_ascii=False)]
        except RecursionError as e:
            out = ["err", "RecursionError", str(e)]
        except ValueError as e:  # JSONDecodeError is a ValueError
            out = ["err", type(e).__name__, str(e)]
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
