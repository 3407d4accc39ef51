"""Inputs for check.py's "call" section: [kind, name, input, args, kwargs]."""
S = []


def f(name_, x, *a, **k):
    S.append(["filter", name_, x, list(a), k])


def t(name_, x, *a, **k):
    S.append(["test", name_, x, list(a), k])


def m(name_, x, *a, **k):
    S.append(["method", name_, x, list(a), k])


def op(o, x, y):
    S.append(["op", o, x, [y], {}])


def g(name_, *a, **k):
    S.append(["global", name_, None, list(a), k])


texts = ["", "abc", "  Hello World  ", "\x1c\x85 x\u3000\ufeff", "it's a test-case (x) [y] {z} <w>", "ÉCOLE élève",
         "straße", "ǅungla", "ΣΑΣ ΟΔΟΣ", "İstanbul", "ﬁne", "a\tb\nc\r\nd\x0be\x85f\u2028g", "😀 smile 中文 ",
         "hello\u00a0world", "Ⅻ ½ ²³ ٣", "a_b-c d", "x" * 3]
for s in texts:
    for name in ["upper", "lower", "title", "capitalize", "trim", "length", "wordcount", "string", "list",
                 "reverse", "first", "last", "escape", "striptags", "urlencode", "center", "int", "float"]:
        f(name, s)
    for meth in ["upper", "lower", "title", "capitalize", "swapcase", "casefold", "strip", "lstrip", "rstrip",
                 "split", "rsplit", "splitlines", "isdigit", "isalpha", "isalnum", "isspace", "isupper",
                 "islower", "istitle", "isnumeric", "isdecimal", "isprintable", "isidentifier", "expandtabs"]:
        m(meth, s)
    m("splitlines", s, True)
    m("split", s, None, 1)
    m("rsplit", s, None, 1)
    t("lower", s)
    t("upper", s)

m("strip", "xxhixyx", "xy")
m("lstrip", "xxhixyx", "x")
m("rstrip", "  a  ", None)
m("strip", "a", 1)
m("split", "a,b,,c", ",")
m("split", "a,b,,c", ",", 1)
m("split", "a,b,,c", sep=",", maxsplit=2)
m("rsplit", "a,b,,c", ",", 1)
m("split", "a", "")
m("split", "  a  b  ", maxsplit=1)
m("rsplit", "  a  b  c ", maxsplit=1)
m("startswith", "hello", "he")
m("startswith", "hello", ("x", "hel"))
m("startswith", "hello", "l", 2)
m("startswith", "hello", "", 6)
m("startswith", "hello", 1)
m("endswith", "hello", "lo")
m("endswith", "héllo😀", "😀")
m("endswith", "hello", "l", 0, 4)
m("replace", "aaa", "a", "b")
m("replace", "aaa", "a", "b", 2)
m("replace", "abc", "", "-")
m("replace", "abc", "", "-", 2)
m("replace", "é😀é", "😀", "x")
for meth in ["find", "rfind", "index", "rindex", "count"]:
    m(meth, "héllo wörld lo", "lo")
    m(meth, "héllo wörld lo", "lo", 4)
    m(meth, "héllo wörld lo", "lo", -3)
    m(meth, "héllo wörld lo", "zz")
    m(meth, "abc", "")
    m(meth, "abc", "", 5)
    m(meth, "abc", "b", 0, 1)
m("join", ", ", ["a", "b"])
m("join", "", [])
m("join", "-", ["a", 1])
m("join", "-", "abc")
m("zfill", "42", 5)
m("zfill", "-42", 5)
m("zfill", "é", 3)
m("center", "ab", 7, "*")
m("center", "ab", 6)
m("center", "abc", 6, "é")
m("ljust", "ab", 5)
m("rjust", "ab", 5, "0")
m("center", "ab", 5, "xx")
m("partition", "a=b=c", "=")
m("rpartition", "a=b=c", "=")
m("partition", "abc", "=")
m("rpartition", "abc", "=")
m("removeprefix", "prefix-x", "prefix-")
m("removesuffix", "x.txt", ".txt")
m("removesuffix", "x.txt", "")
m("expandtabs", "a\tbc\td", 4)
m("format", "{} {}", 1, "a")
m("format", "{0}{1}{0}", "x", "y")
m("format", "{name}!", name="Bob")
m("format", "{:>10}|{:<5}|{:^7}", "r", "l", "c")
m("format", "{:.2f} {:,} {:08.3f} {:+d} {:x} {:#o} {:e} {:g} {:%}", 3.14159, 1234567, -3.5, 5, 255, 8, 12345.678, 0.00001, 0.25)
m("format", "{:_} {:,.2f} {:*^9} {:=+6}", 1000000, 1234567.891, "mid", 42)
m("format", "{0[a]} {0[0]}", {"a": 1, "0": 2})
m("format", "{0.a}", {"a": 1})
m("format", "{!r} {!s} {!a}", "é", 1, "é")
m("format", "{}{}", 1)
m("format", "{", 1)
m("format", "}", 1)
m("format", "{0}{}", 1, 2)
m("format", "{x}", 1)
m("format", "{:d}", 1.5)
m("format", "{:s}", 1)
m("format", "{{}} {}", 1)
m("format", "{:.3}", "abcdef")
m("format", "{:.3} {:.2} {:10.4}", 100.0, 1234.5, 3.14159265)
m("format", "{} {} {} {}", None, True, [1, "a"], {"k": None})
m("format", "{:>5}", True)
m("format", "{:5}", None)

for d in [{"a": 1, "b": [1, 2]}, {}, {"items": 5, "get": 1}]:
    m("items", d)
    m("keys", d)
    m("values", d)
    m("get", d, "a")
    m("get", d, "zz", "dflt")
    m("copy", d)
    S.append(["attr", "items", d, [], {}])
    S.append(["attr", "update", d, [], {}])
m("update", {"a": 1}, {"b": 2})
m("pop", {"a": 1}, "a")
m("append", [1], 2)
m("sort", [2, 1])
m("index", [1, 2, 3], 2)
m("index", [1, 2, 3], 5)
m("count", [1, 2, 1], 1)
m("copy", [1, 2])
S.append(["attr", "append", [1], [], {}])
S.append(["attr", "__class__", "x", [], {}])
S.append(["attr", "_private", {"_private": 1}, [], {}])
S.append(["attr", "missing", {"a": 1}, [], {}])
S.append(["attr", "real", 5, [], {}])
for x, k in [([1, 2, 3], -1), ([1, 2, 3], 5), ("héllo", 1), ("héllo", -1), ({"a": 1}, "a"), ({"1": "s", 1: "i"}, 1),
             ({"a": 1}, "items"), ("abc", "upper"), ([1], "count"), ({"a": 1}, 0), ([1, 2], True)]:
    S.append(["item", "", x, [k], {}])

nums = [0, 1, -1, 7, -7, 3, -3, 2.5, -2.5, 0.0, -0.0, 1e308, 9223372036854775807, -9223372036854775808,
        12345678901234567890, True, False, 0.1, 3.0]
for a in nums:
    for b in [3, -3, 2, 0, 0.5, -2.5, True, 9223372036854775807, 10 ** 20]:
        for o in ["+", "-", "*", "/", "//", "%", "==", "<", ">="]:
            op(o, a, b)
for a, b in [(2, 10), (2, -1), (0, -1), (-8, 0.5), (2.0, 0.5), (10, 30), (-2, 63), (2, 64), (3, 3), (True, 2),
             (1.5, 2), (0, 0), (-1, 0.5)]:
    op("**", a, b)
for a, b in [("a", "b"), ("a", 1), (1, "a"), ([1], [2]), ([1], (2,)), ((1,), (2,)), ("ab", 3), (3, "ab"), ([1, 2], 2),
             ("ab", -1), ("a", 1.5), (None, 1), ("%s-%s", ["x", "y"]), ("%d%%", 5), ("%s", {"a": 1}),
             ("%(a)s %(b)05.1f", {"a": "x", "b": 2.25}), ("%x %X %o %e %g %c %r %a", [255, 255, 8, 1234.5, 0.0001, 65, "é", "é"]),
             ("%5s|%-5s|%.1s", ["a", "b", "cd"]), ("%s %s", ["a"]), ("%s", ["a", "b"]), ("%d", "x"), ("%f", "x"), ("%z", 1),
             ("%", 1), ("x", 1), ("x", []), ("%i %u %+d % d %05d %-5d|", [3.7, 2, 5, 5, -42, 42]), ("%.3d", 5),
             ("%s", None), ("%c", "ab")]:
    o = "%" if isinstance(a, str) and a.find("%") >= 0 or (a == "x") else "+"
    if o == "%" and isinstance(b, list):
        b = tuple(b)
    S.append(["op", "%" if o == "%" else "+", a, [b], {}])
    if o == "+":
        op("*", a, b)
for a, b in [([1, 2], [1, 3]), ([1, 2], [1]), ([1], ["a"]), ("a", "b"), ("é", "z"), ("😀", "\uffff"), (None, None),
             ({}, {}), ((1, 2), (1, 2)), ([1], (1,)), (1, 1.0), (True, 1), (float("nan"), float("nan")),
             (10 ** 20, 1e20), (2 ** 53 + 1, float(2 ** 53)), ({"a": 1, "b": 2}, {"b": 2, "a": 1})]:
    for o in ["==", "!=", "<", "<=", ">", ">="]:
        op(o, a, b)
for a, b in [("a", "cat"), ("x", "cat"), ("k", {"k": 1}), (1, [1, 2]), (1.0, [1]), (1, "abc"), ([1], {"a": 1}),
             ("a", None), (1, 3)]:
    op("in", a, b)

f("tojson", {"b": 1, "a": "é<>&'", "c": [1, 2.5, None, True]})
f("tojson", {"b": 1, "a": [1, {}]}, indent=2)
f("tojson", {"b": 1, "a": [1, {}]}, indent="  ", sort_keys=True)
f("tojson", {"b": 1, "a": "x"}, separators=[",", ":"])
f("tojson", {"b": 1, "a": "é😀"}, ensure_ascii=True)
f("tojson", {"a": 1}, 4)
f("tojson", {"x": "\u2028\x00\x1f\x7f"})
f("tojson", [1, "x"], None, 0)
f("tojson", {1: 2, "b": 3})
f("tojson", {1: 2, "b": 3}, sort_keys=True)
f("tojson", [float("nan"), float("inf"), -0.0, 1e16, 10 ** 30])
for x in [[3, 1, 2], ["b", "A", "a", "B"], [], [{"n": "b", "v": 2}, {"n": "a", "v": 1}, {"n": "A", "v": 3}]]:
    f("sort", x)
    f("sort", x, reverse=True)
    f("sort", x, case_sensitive=True)
    f("unique", x)
    f("min", x)
    f("max", x)
    f("first", x)
    f("last", x)
    f("length", x)
    f("list", x)
    f("reverse", x)
    f("join", x)
    f("join", x, ", ")
    f("batch", x, 2)
    f("batch", x, 2, "FILL")
    f("slice", x, 2)
    f("slice", x, 2, "F")
    f("select", x)
    f("reject", x)
recs = [{"n": "b", "v": 2, "o": {"x": 1}}, {"n": "a", "v": 1, "o": {"x": 3}}, {"n": "A", "v": 3, "o": {"x": 2}},
        {"n": "c", "v": 0}]
f("sort", recs, attribute="n")
f("sort", recs, attribute="o.x")
f("sort", recs, attribute="n,v")
f("sort", recs, attribute="v", reverse=True)
f("unique", recs, attribute="n")
f("unique", recs, attribute="n", case_sensitive=True)
f("min", recs, attribute="v")
f("max", recs, attribute="n")
f("max", recs, attribute="n", case_sensitive=True)
f("map", recs, attribute="n")
f("map", recs, attribute="o.x", default=0)
f("map", recs, "string")
f("map", ["a", "B"], "upper")
f("map", [1.26, 2.5], "round", 1)
f("map", [1], "nofilter")
f("selectattr", recs, "o")
f("rejectattr", recs, "o")
f("selectattr", recs, "v", "gt", 1)
f("selectattr", recs, "n", "equalto", "a")
f("selectattr", recs, "n", "in", ["a", "b"])
f("select", [1, 2, 3, 4], "odd")
f("reject", [1, 2, 3, 4], "even")
f("select", [1, "a", None, 2.5], "number")
f("select", [1, 2, 3], "divisibleby", 3)
f("select", [1], "notest")
f("join", recs, ", ", attribute="n")
f("sum", [1, 2, 3])
f("sum", recs, attribute="v")
f("sum", recs, attribute="v", start=10)
f("sum", [0.1, 0.2])
f("sum", ["a"])
f("groupby", recs, "n")
f("groupby", recs, "n", case_sensitive=True)
f("groupby", [{"a": 1}, {"a": None}, {}], "a", default=5)
f("dictsort", {"b": 1, "A": 2, "a": 3})
f("dictsort", {"b": 1, "A": 2, "a": 3}, case_sensitive=True)
f("dictsort", {"b": 1, "A": 2, "a": 3}, by="value", reverse=True)
f("dictsort", {"b": 1}, by="x")
f("items", {"b": 1, "a": [2]})
f("items", 5)
f("default", None, "d")
f("default", None, "d", True)
f("default", "", "d", boolean=True)
f("default", 0)
f("d", False, "x", True)
for x in ["3.7", "0x1A", " 1_0 ", "1e3", "inf", "nan", "-12", "abc", "", "12345678901234567890", 3.99, -3.99, True, None, [1]]:
    f("int", x)
    f("float", x)
f("int", "ff", base=16)
f("int", "0b101", 0, 2)
f("int", "z", 7)
f("float", "x", 1.5)
for x in [2.5, 3.5, -2.5, 2.675, 1.23456, 42, -7, 1e20, 0.5]:
    f("round", x)
    f("round", x, 2)
    f("round", x, 1, "floor")
    f("round", x, 1, "ceil")
    f("abs", x)
f("round", 1234.5, -2)
f("round", 1250, -2)
f("round", 3.7, 0, "x")
f("abs", "x")
f("abs", -9223372036854775808)
for x in ["a\nb\n\nc", "a\n", "", "single", "x\r\ny\x85z"]:
    f("indent", x)
    f("indent", x, 2, True)
    f("indent", x, "> ", first=True, blank=True)
f("indent", 1)
for x in ["The quick brown fox jumps over the lazy dog", "short", "abcdefghijklmnop"]:
    f("truncate", x, 10)
    f("truncate", x, 10, True)
    f("truncate", x, 10, end="…")
    f("truncate", x, 20, leeway=0)
    f("truncate", x, 2)
f("replace", "aXbXc", "X", "-")
f("replace", "aXbXc", "X", "-", 1)
f("replace", 123, 2, 9)
f("format", "%s-%s", 1, "a")
f("format", "%(a)s", a=3)
f("format", "x", 1, a=2)
f("format", "%.2f", 3.14159)
f("center", "ab", 9)
f("center", "ab")
f("striptags", "<p>Hello <b>World</b><!-- c --></p> &amp; &lt;x&gt; &#39;q&#39;  spaced\n  out")
f("urlencode", "a b/c?d=é")
f("urlencode", {"a": "b c", "x": 1})
f("urlencode", [["k", "v&"], ["é", 2]])
for x in [0, 1, 999, 1000, 1024, 1536, 10 ** 6, 10 ** 9, 3.5e12, 10 ** 30, "2048"]:
    f("filesizeformat", x)
    f("filesizeformat", x, True)
f("pprint", {"a": [1, "x"], "b": None})
f("xmlattr", {"class": "a<b", "id": 1, "skip": None, "q": "\"'"})
f("xmlattr", {"a": 1}, False)
f("xmlattr", {"a b": 1})
f("xmlattr", {})
f("string", [1, "a"])
f("safe", "<b>")
f("escape", "<a href=\"x\">'&'</a>")
f("e", None)
f("forceescape", "<b>")
f("wordcount", "Hello, world! it's a_b 42 ünïcode")
f("attr", {"a": 1}, "a")
f("attr", {"a": 1}, "items")
f("attr", "abc", "upper")
f("length", 5)
f("length", None)
f("first", [])
f("first", 3)
f("last", "héllo")
f("last", {"a": 1, "b": 2})
f("list", {"a": 1, "b": 2})
f("list", None)
f("join", None)
f("join", [1, None, True, 2.0, "é"], "|")
f("reverse", 5)
f("random", [1])

values = [None, True, False, 0, 1, 2, -3, 1.0, 2.5, "", "s", "S", [], [1], {}, {"a": 1}, (1,)]
for v in values:
    for name in ["defined", "undefined", "none", "boolean", "false", "true", "integer", "float", "number",
                 "string", "mapping", "iterable", "sequence", "callable", "escaped"]:
        t(name, v)
    if isinstance(v, (int, float)) and not isinstance(v, bool) or isinstance(v, bool):
        t("odd", v)
        t("even", v)
        t("divisibleby", v, 2)
    t("eq", v, 1)
    t("ne", v, 1)
    t("sameas", v, v)
t("divisibleby", 1, 0)
t("odd", "a")
t("lt", 1, 2)
t("<", 1, 2)
t("le", 2, 2)
t("gt", "b", "a")
t("greaterthan", 3, 2)
t("lessthan", 3, 2)
t(">=", 1, 2)
t("in", "a", "cat")
t("in", 1, [1, 2])
t("in", "x", {"x": 1})
t("eq", 1)
t("filter", "upper")
t("filter", "nofilter")
t("test", "odd")
t("test", 5)
t("sameas", 1000, 1000)
t("sameas", None, None)

g("range", 5)
g("range", 2, 10, 3)
g("range", 10, 0, -2)
g("range", 0)
g("range", 1, 2, 0)
g("range", 1.5)
g("range", 200000)
g("dict", a=1, b=[2])
g("dict", {"x": 1}, y=2)
g("dict", [["k", "v"]])
g("namespace", a=[1])
g("namespace")
g("raise_exception", "boom")
g("joiner")
g("cycler")
S.append(["filter", "list", None, [], {}])
SPECS = S
