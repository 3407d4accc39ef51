#!/usr/bin/env python3
"""Cross-check the library side against CPython + Jinja2.

Runs native/tools/library/build/libcheck on generated inputs and compares each
result line with what Python itself computes (repr, json.dumps, json.loads
errors, filters/tests/methods through a sandboxed Jinja2 environment).
Usage: python3 native/tools/library/check.py [-v]
"""
import json
import math
import os
import random
import struct
import subprocess
import sys
import types

import jinja2
from jinja2.sandbox import ImmutableSandboxedEnvironment

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.path.join(HERE, "build", "libcheck")
VERBOSE = "-v" in sys.argv


def run(mode, lines, extra=()):
    data = ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass")
    p = subprocess.run([BIN, mode, *extra], input=data, capture_output=True, check=True)
    if p.stderr:
        print(p.stderr.decode("utf-8", "replace")[:3000], file=sys.stderr)
    out = p.stdout.decode("utf-8", "surrogatepass").split("\n")[:-1]
    return [json.loads(x) for x in out]


def err(e):
    return f"ERR {type(e).__name__}: {e}"


failures = 0
total = 0


def compare(section, inputs, got, expected):
    global failures, total
    for i, g, e in zip(inputs, got, expected):
        total += 1
        if g != e:
            failures += 1
            if failures < 80 or VERBOSE:
                print(f"[{section}] {i!r}\n   got {g!r}\n  want {e!r}")


def jd(v):
    return json.dumps(v, ensure_ascii=False)


# ---------------------------------------------------------------- values
values = [
    "0", "-0", "1", "-1", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
    "-9223372036854775809", "123456789012345678901234567890", "0.1", "1.0", "-0.0", "1e16", "1e15", "1e-5",
    "0.0001", "123456789.123", "9007199254740993.0", "1.5e300", "1e400", "-1e400", "NaN", "Infinity",
    "-Infinity", "2.5", "100.0", "1e22", "5e-324", "1.7976931348623157e308", "0.30000000000000004",
    '"a"', '"it\'s"', '"say \\"hi\\""', '"both \' and \\""', '"tab\\tnl\\ncr\\r"', '"\\u0000\\u001f\\u007f"',
    '"é😀中文"', '"\\u2028\\u2029\\u0085\\u00a0\\u200b\\ue000\\ufeff"', '"\\ud800"', '"\\udc00x"',
    '"\\ud83d\\ude00"', '"back\\\\slash"', '[]', '{}', '[1, 2.0, null, true, false, "x"]',
    '{"b": 1, "a": [1, {"c": null}]}', '{"2": 1, "10": 2, "a": 3}', '{"a": 1, "a": 2, "b": 3}',
    '[[[]]]', '[{"k": "\'"}]', '"\\u0301e\\u0301"', '"\\U0001F600"', '"\\x"',
]
rnd = random.Random(7)
for _ in range(400):
    bits = rnd.getrandbits(64)
    f = struct.unpack("<d", struct.pack("<Q", bits))[0]
    if math.isfinite(f):
        values.append(repr(f))
for _ in range(200):
    values.append(repr(rnd.uniform(-1e6, 1e6)))
    values.append(repr(round(rnd.uniform(0, 100), rnd.randint(0, 5))))

expected_repr, expected_str = [], []
for t in values:
    try:
        v = json.loads(t)
        expected_repr.append(repr(v))
        expected_str.append(str(v))
    except Exception as e:  # noqa: BLE001
        expected_repr.append(err(e))
        expected_str.append(err(e))
compare("repr", values, run("repr", values), expected_repr)
compare("str", values, run("str", values), expected_str)

# ---------------------------------------------------------------- json.loads errors
bad = ['', ' ', '"abc', '"a\\', '"a\\x"', '"\\u12"', '"\\u12zz"', '"\\ud800\\u12"', '"a\tb"', '[1,]', '{"a":1,}',
       '{', '{"a"', '{"a" 1}', '[1', '[', '1 2', '-', '01', '1.', '1.e5', '1e', '{1:2}', 'nul', '[1,\n2,,]',
       '"é\\q"', 'tru', '[1 2]', '{"a":1 "b":2}', '  [1,\n   {"é": x}]', '"é" x', 'nan', '+1', '.5',
       '{"a":}', '[' * 2000 + ']' * 2000, '1' * 5000]
exp = []
for t in bad:
    try:
        exp.append(jd(json.loads(t)))
    except RecursionError:
        exp.append("ERR RecursionError: maximum recursion depth exceeded while decoding a JSON document")
    except Exception as e:  # noqa: BLE001
        exp.append(err(e))
# Mutated documents: every error message and position must match Python's.
seed_docs = ['{"a": [1, 2.5, "x\\n\\u00e9"], "b": {"c": null, "d": true}}', '[1, -2e-3, "é😀", {"k": false}]']
alphabet = ['"', "\\", "{", "}", "[", "]", ",", ":", " ", "\n", "1", "-", ".", "e", "u", "é", "n", "\t", "\x01", "0"]
for _ in range(600):
    d = list(rnd.choice(seed_docs))
    for _ in range(rnd.randint(1, 3)):
        pos = rnd.randrange(len(d) + 1)
        op_ = rnd.random()
        if op_ < 0.4 and d:
            del d[min(pos, len(d) - 1)]
        elif op_ < 0.8:
            d.insert(pos, rnd.choice(alphabet))
        else:
            d = d[:pos]
    bad.append("".join(d))
exp = []
for t in bad:
    try:
        exp.append(jd(json.loads(t)))
    except RecursionError:
        exp.append("ERR RecursionError: maximum recursion depth exceeded while decoding a JSON document")
    except Exception as e:  # noqa: BLE001
        exp.append(err(e))
got = run("loads", [json.dumps(b) for b in bad])
compare("loads", bad, got, exp)

# ---------------------------------------------------------------- json.dumps
docs = [t for t in values[:60]] + ['{"b": [1, {"x": []}], "a": {}, "c": "é\\n"}', '{"1": 1, "0": 2}',
                                   '[1, [2, [3, []]], {}]']
for opts in [{}, {"indent": 2}, {"indent": 0}, {"indent": "\t"}, {"separators": [",", ":"]},
             {"sort_keys": True}, {"ensure_ascii": True}, {"indent": 4, "sort_keys": True, "ensure_ascii": True}]:
    exp = []
    for t in docs:
        try:
            v = json.loads(t)
            kw = dict(opts)
            if "separators" in kw:
                kw["separators"] = tuple(kw["separators"])
            kw.setdefault("ensure_ascii", False)
            exp.append(json.dumps(v, **kw))
        except Exception as e:  # noqa: BLE001
            exp.append(err(e))
    compare("dumps " + json.dumps(opts), docs, run("dumps", docs, [json.dumps(opts)]), exp)

# ---------------------------------------------------------------- filters, tests, methods
env = ImmutableSandboxedEnvironment()


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def pyrepr(v):
    if isinstance(v, (types.GeneratorType, type(iter([])), type(reversed([])))):
        v = list(v)
    return repr(v)


env.filters["tojson"] = tojson
env.filters["pyrepr"] = pyrepr


def py_call(spec):
    kind, name, x = spec[0], spec[1], spec[2]
    a = spec[3] if len(spec) > 3 else []
    k = spec[4] if len(spec) > 4 else {}
    if kind == "filter":
        src = "{{ x|%s(*a, **k)|pyrepr }}" % name
    elif kind == "test":
        src = "{{ (x is %s(*a, **k))|pyrepr }}" % name
    elif kind == "method":
        src = "{{ x.%s(*a, **k)|pyrepr }}" % name
    elif kind == "attr":
        src = "{{ x.%s|pyrepr }}" % name
    elif kind == "item":
        src = "{{ x[a[0]]|pyrepr }}"
    elif kind == "global":
        src = "{{ %s(*a, **k)|pyrepr }}" % name
    else:
        src = "{{ (x %s a[0])|pyrepr }}" % name
    try:
        return env.from_string(src).render(x=x, a=a, k=k)
    except Exception as e:  # noqa: BLE001
        return err(e)


sys.path.insert(0, HERE)
from call_specs import SPECS  # noqa: E402

def has_tuple(x):
    if isinstance(x, tuple):
        return True
    if isinstance(x, list):
        return any(has_tuple(i) for i in x)
    if isinstance(x, dict):
        return any(has_tuple(k) or has_tuple(v) for k, v in x.items()) or any(not isinstance(k, str) for k in x)
    return False


# Known, accepted divergences (documented): complex results of ** and the
# nondeterministic |random; raise_exception is not in this plain environment.
# Tuples/int keys cannot travel through the JSON spec line, identity (sameas)
# of equal objects and object addresses are not comparable.
def comparable(spec):
    kind, name, x = spec[0], spec[1], spec[2]
    if has_tuple(spec[2:]) or name in ("random", "raise_exception") or kind == "test" and (name == "sameas" or not name.isalpha()):
        return False
    if kind == "op" and name == "**" and isinstance(x, (int, float)) and x < 0:
        return False
    return True


import re  # noqa: E402

specs = [s for s in SPECS if comparable(s)]
lines = [jd(s) for s in specs]
addr = re.compile(r" at 0x[0-9a-f]+")
compare("call", lines, [addr.sub("", x) for x in run("call", lines)], [addr.sub("", py_call(s)) for s in specs])

# ---------------------------------------------------------------- strftime
import datetime  # noqa: E402

fmts = ["%Y-%m-%d %H:%M:%S.%f", "%a %A %b %B %h", "%c|%x|%X|%D|%F|%T|%R|%r", "%d %e %j %m %y %C %I %l %k %p %P",
        "%U %W %V %G %g %u %w", "%-d %-m %-H %-I %-j %_d %_H %05Y %^a %^B %#p %#a %10A", "%%|%%f|%z|%Z|%Q|%|%Ey %Od",
        "%n%t%", "%-f", "Today is %d %B %Y.", ""]
dates = [(2026, 1, 15, 10, 30, 5, 123456), (2024, 2, 29, 0, 0, 0, 0), (2023, 12, 31, 23, 59, 59, 999999),
         (2021, 1, 1, 12, 0, 0, 1), (2020, 12, 31, 13, 5, 9, 0), (2027, 1, 3, 1, 2, 3, 4), (1999, 6, 7, 8, 9, 10, 11)]
for y in range(2015, 2031):
    for m, d in [(1, 1), (1, 4), (12, 28), (12, 31)]:
        dates.append((y, m, d, 12, 0, 0, 0))
specs = [[f] + list(d) for f in fmts for d in dates]
compare("strftime", [jd(x) for x in specs], run("strftime", [jd(x) for x in specs]),
        [datetime.datetime(*x[1:]).strftime(x[0]) for x in specs])

# ---------------------------------------------------------------- every code point (--ucd)
if "--ucd" in sys.argv:
    preds = ["isprintable", "isspace", "isalpha", "isdecimal", "isdigit", "isnumeric", "isupper", "islower",
             "istitle", "isalnum", "isidentifier"]
    want = []
    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        c = chr(cp)
        want.append("%x %s %s %s %s %s %s %s" % (cp, c.upper(), c.lower(), c.title(), c.casefold(), c.swapcase(),
                                                c.capitalize(), "".join("1" if getattr(c, p)() else "0" for p in preds)))
    p = subprocess.run([BIN, "ucd"], capture_output=True, check=True)
    got = p.stdout.decode("utf-8", "surrogatepass").split("\n")[:-1]
    want = "\n".join(want).split("\n")  # the line for U+000A holds newlines itself
    compare("ucd", [w.split(" ")[0] for w in want], got, want)

print(f"{total - failures}/{total} checks passed")
sys.exit(1 if failures else 0)
