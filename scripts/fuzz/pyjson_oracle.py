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

import importlib.util
import json
import os
import sys

# The tagged tree of scripts/conversation-vectors.py (the protocol vectors' format).
_spec = importlib.util.spec_from_file_location(
    "conversation_vectors", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "conversation-vectors.py"))
_vectors = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_vectors)
tag = _vectors.tag

def main():
    for line in sys.stdin:
        doc = json.loads(line)
        try:
            v = json.loads(doc)
            out = json.dumps(["ok", tag(v), json.dumps(v, ensure_ascii=False)])
        except RecursionError as e:
            # json.loads, or the tagged tree (twice as deep) of a value just
            # under the limit: not compared
            out = json.dumps(["err", "RecursionError", str(e)])
        except ValueError as e:  # JSONDecodeError is a ValueError
            out = json.dumps(["err", type(e).__name__, str(e)])
        sys.stdout.write(out + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
