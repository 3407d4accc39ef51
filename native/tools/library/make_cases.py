#!/usr/bin/env python3
"""Writes the library-side engine case files test/engine/cases/library-*.json.

Only templates and contexts live here; expected outputs are filled in by
scripts/engine-cases/generate.py (Python Jinja2 renders them). Re-running
keeps nothing from earlier runs, so run generate.py afterwards.
"""
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
OUT = os.path.join(ROOT, "test", "engine", "cases")
files = {}


def case(group, name, template, context_json="{}"):
    files.setdefault(group, []).append({"name": name, "template": template, "context_json": context_json})


# ---------------------------------------------------------------- values / printing
for i, lit in enumerate(["0.1", "1e16", "1e-5", "123456789.123", "9007199254740993.0", "-0.0", "1.0", "1e15",
                         "1e-7", "0.0001", "1.5e300", "5e-324", "NaN", "Infinity", "-Infinity", "2.5e-05",
                         "100.0", "0.30000000000000004", "1e22", "123456789012345.6"]):
    case("values", f"float_{i}", "{{ x }}|{{ [x] }}|{{ x|string }}", '{"x": %s}' % lit)
for i, lit in enumerate(["9223372036854775807", "9223372036854775808", "-9223372036854775809",
                         "123456789012345678901234567890", "0", "-0"]):
    case("values", f"int_{i}", "{{ x }}|{{ [x] }}|{{ x + 1 }}|{{ x * 3 }}|{{ x - 10**19 }}|{{ x // 7 }}|{{ x % 7 }}",
         '{"x": %s}' % lit)
case("values", "bigint_compare", "{{ x > y }}{{ x == y + 1 }}{{ x < 1e30 }}{{ x == 9223372036854775808.0 }}",
     '{"x": 9223372036854775808, "y": 9223372036854775807}')
case("values", "none_bool", "{{ none }}|{{ true }}|{{ False }}|{{ [none, true, false] }}|{{ n }}", '{"n": null}')
case("values", "tuple_print", "{{ (1,) }}|{{ () }}|{{ (1, 'a') }}|{{ ((1,),) }}")
case("values", "dict_print", "{{ d }}|{{ {} }}|{{ {'a': [1, {'b': none}]} }}", '{"d": {"k": "v", "n": 1}}')
case("values", "key_order", "{% for k in d %}{{ k }},{% endfor %}|{{ d }}|{{ d|tojson }}",
     '{"d": {"2": "a", "10": "b", "a": "c", "1": "d"}}')
case("values", "duplicate_keys", "{{ d }}|{{ d.a }}", '{"d": {"a": 1, "b": 2, "a": 3}}')
case("values", "nested_quotes", "{{ ['it\\'s', 'say \"hi\"', 'both \\' \"'] }}")
case("values", "escapes_repr", "{{ [s] }}", '{"s": "tab\\tnl\\ncr\\rbs\\\\ nul\\u0000 del\\u007f"}')
case("values", "unicode_repr", "{{ [s] }}", '{"s": "é😀中\\u00a0\\u200b\\u2028\\u0085\\ue000\\ufeff\\u0301"}')
case("values", "lone_surrogate", "{{ [s] }}|{{ s|length }}", '{"s": "a\\ud800b"}')
case("values", "surrogate_pair", "{{ s }}|{{ s|length }}|{{ [s] }}", '{"s": "\\ud83d\\ude00"}')
case("values", "undefined_print", "[{{ missing }}][{{ d.missing }}][{{ d['x'] }}][{{ l[9] }}]", '{"d": {}, "l": []}')
case("values", "undefined_in_list", "{{ [missing] }}")
case("values", "function_truthy", "{{ 'y' if d.items else 'n' }}", '{"d": {"items": 0}}')
case("values", "markup_repr", "{{ ['<'|e, 'x'|safe] }}")
case("values", "empty_containers_falsy", "{{ not [] }}{{ not {} }}{{ not '' }}{{ not 0 }}{{ not 0.0 }}{{ not none }}{{ not missing }}{{ not (1,) }}")
case("values", "float_int_key", "{{ d[1] }}{{ d[1.0] }}{{ d[true] }}", '{"d": {"1": "s"}}')
case("values", "nested_deep_print", "{{ x }}", '{"x": ' + "[" * 100 + "]" * 100 + "}")

case("values", "int_digit_limit", "{{ 2**20000 }}")
case("values", "int_digit_limit_compare", "{{ 2**20000 > 2**19999 }}")
case("values", "int_digit_limit_json", "{{ [2**20000]|tojson }}")
case("values", "bigint_4300_digits_ok", "{{ (10**4299)|string|length }}")
case("values", "round_tiny_precision", "{{ 1234.5|round(-400) }}|{{ 1234.5|round(-2) }}|{{ 1250|round(-2) }}|{{ 1350|round(-2) }}")
case("values", "float_keys_print", "{{ {1.5: 'a', none: 'b', true: 'c', (1, 2): 'd'} }}")
case("values", "unhashable_key", "{{ {[1]: 2} }}")
case("values", "str_repeat_big", "{{ ('ab' * 3000000)|length }}")
case("values", "negative_index", "{{ l[-1] }}{{ l[-4] }}{{ 'héllo'[-2] }}{{ l[-1:] }}{{ l[::-2] }}{{ 'héllo'[::-1] }}{{ l[5:1:-1] }}", '{"l": [1, 2, 3]}')
case("values", "slice_edge", "{{ l[10:] }}{{ l[:-10] }}{{ l[-10:10] }}{{ 'abc'[1:1] }}{{ l[::0] }}", '{"l": [1, 2, 3]}')
case("values", "context_nested_escape", "{{ d }}", '{"d": {"k\\\\\\"": ["\\\\u00e9", "\\ud83d\\ude00\\u0000"]}}')
case("values", "int_like_keys_access", "{{ d['10'] }}{{ d[10] }}{{ d.get('2') }}", '{"d": {"2": "two", "10": "ten"}}')
case("values", "whitespace_json_context", "{{ a }}|{{ b }}", ' \n\t{"a" :\r\n 1 , "b":[ ] }\n ')

# ---------------------------------------------------------------- json (tojson)
J = '{"d": {"b": 1, "a": "é<>&\'", "c": [1, 2.5, null, true], "e": {}, "f": []}}'
case("json", "tojson_default", "{{ d|tojson }}", J)
case("json", "tojson_indent2", "{{ d|tojson(indent=2) }}", J)
case("json", "tojson_indent0", "{{ d|tojson(indent=0) }}", J)
case("json", "tojson_indent_str", "{{ d|tojson(indent='\\t') }}", J)
case("json", "tojson_separators", "{{ d|tojson(separators=(',', ':')) }}", J)
case("json", "tojson_separators_list", "{{ d|tojson(separators=[',', ': ']) }}", J)
case("json", "tojson_sort_keys", "{{ d|tojson(sort_keys=true) }}", J)
case("json", "tojson_ensure_ascii", "{{ d|tojson(ensure_ascii=true) }}", J)
case("json", "tojson_positional_ensure_ascii", "{{ d|tojson(4) }}", J)
case("json", "tojson_all", "{{ d|tojson(ensure_ascii=true, indent=3, separators=(',', ' = '), sort_keys=true) }}", J)
case("json", "tojson_control_chars", "{{ s|tojson }}", '{"s": "\\u0000\\u0001\\b\\f\\n\\r\\t\\u001f\\u007f\\"\\\\/\\u2028"}')
case("json", "tojson_emoji_ascii", "{{ s|tojson(ensure_ascii=true) }}", '{"s": "😀é"}')
case("json", "tojson_numbers", "{{ l|tojson }}", '{"l": [1, -0.0, 1e16, 1.0, 0.1, 12345678901234567890, NaN, Infinity, -Infinity]}')
case("json", "tojson_int_keys", "{{ {1: 'a', 2.5: 'b', true: 'c', none: 'd'}|tojson }}")
case("json", "tojson_mixed_sort", "{{ {1: 'a', 'b': 2}|tojson(sort_keys=true) }}")
case("json", "tojson_undefined", "{{ missing|tojson }}")
case("json", "tojson_undefined_nested", "{{ [d.missing]|tojson }}", '{"d": {}}')
case("json", "tojson_tuple", "{{ (1, (2, 3))|tojson }}")
case("json", "tojson_markup", "{{ ('<b>'|safe)|tojson }}")
case("json", "tojson_dict_items", "{{ d.items()|tojson }}", '{"d": {"a": 1}}')
case("json", "tojson_namespace", "{% set ns = namespace(a=1) %}{{ ns|tojson }}")
case("json", "tojson_groupby", "{{ [{'a': 1}, {'a': 2}, {'a': 1}]|groupby('a')|tojson }}")
case("json", "tojson_range", "{{ range(3)|tojson }}")
case("json", "tojson_nested_indent", "{{ x|tojson(indent=2) }}", '{"x": [1, [2, [3, {}]], {"a": {"b": []}}]}')
case("json", "tojson_empty", "{{ {}|tojson(indent=2) }}{{ []|tojson(indent=2) }}{{ ''|tojson }}")
case("json", "tojson_string_value", "{{ 'a\"b'|tojson }}")
case("json", "tojson_bad_separators", "{{ [1]|tojson(separators=(',',)) }}")
case("json", "tojson_bad_kwarg", "{{ [1]|tojson(foo=1) }}")
case("json", "tojson_negative_indent", "{{ [1, 2]|tojson(indent=-1) }}")
case("json", "tool_schema_like", "{{ tools|tojson }}",
     '{"tools": [{"type": "function", "function": {"name": "get", "description": "Get \\"it\\"", "parameters": {"type": "object", "properties": {"q": {"type": "string", "enum": ["a", "b"]}}, "required": ["q"]}}}]}')
case("json", "context_nan", "{{ x }}|{{ x|tojson }}|{{ x == x }}", '{"x": NaN}')
case("json", "context_bigint_float", "{{ a }}|{{ b }}", '{"a": 1.0e400, "b": 100000000000000000000000}')

# ---------------------------------------------------------------- arithmetic
ops = [("3/2", "div"), ("4/2", "div_exact"), ("7//2", "fdiv"), ("-7//2", "fdiv_neg"), ("7 % -3", "mod_neg"),
       ("-7 % 3", "mod_neg2"), ("7.5 // 2", "fdiv_float"), ("-7.5 % 2", "mod_float"), ("2**10", "pow"),
       ("2**-1", "pow_neg"), ("2**0.5", "pow_float"), ("2**100", "pow_big"), ("'ab'*3", "str_mul"), ("3*'ab'", "str_rmul"),
       ("[1]*3", "list_mul"), ("[1,2]+[3]", "list_add"), ("'a'+'b'", "str_add"), ("1+2.5", "mixed_add"),
       ("0.1+0.2", "float_add"), ("-5//0.3", "fdiv_float_neg"), ("1e308*10", "float_overflow"), ("-(3)", "neg"),
       ("+(3)", "pos"), ("-true", "neg_bool"), ("true+true", "bool_add"), ("10/4*2", "chain"), ("2**3**2", "pow_assoc"),
       ("-2**2", "neg_pow"), ("7%3*2", "mod_mul"), ("'%s and %s'|format(1, 2)", "format_filter"), ("9223372036854775807+1", "overflow_add"),
       ("-9223372036854775807-2", "overflow_sub"), ("9223372036854775807*2", "overflow_mul"), ("(2**63)//(2**62)", "big_fdiv"),
       ("-(2**63)", "big_neg"), ("1/3", "third"), ("2/3", "two_thirds"), ("10**20/3", "big_div"), ("5 % 2.5", "mod_exact_float"),
       ("(-0.0)*1", "neg_zero"), ("'a' ~ 1 ~ none ~ true ~ 1.0", "tilde"), ("1 ~ [1]", "tilde_list")]
for expr, name in ops:
    case("arith", name, "{{ %s }}" % expr)
for expr, name in [("1/0", "zero_div"), ("1//0", "zero_fdiv"), ("1%0", "zero_mod"), ("1.0/0", "zero_fdiv_float"),
                   ("1.0%0", "zero_mod_float"), ("0**-1", "zero_pow_neg"), ("'a'+1", "str_plus_int"),
                   ("1+'a'", "int_plus_str"), ("[1]+(2,)", "list_plus_tuple"), ("'a'-'b'", "str_minus"),
                   ("'a'*1.5", "str_mul_float"), ("-'a'", "neg_str"), ("none+1", "none_plus"), ("x+1", "undef_plus"),
                   ("{}+{}", "dict_plus"), ("'a'*'b'", "str_mul_str")]:
    case("arith", name, "{{ %s }}" % expr)
for expr, name in [("1 == 1.0", "eq_int_float"), ("true == 1", "eq_bool_int"), ("'1' == 1", "eq_str_int"),
                   ("[1, 2] < [1, 3]", "list_lt"), ("[1] < [1, 0]", "list_prefix"), ("'a' < 'b'", "str_lt"),
                   ("'Z' < 'a'", "str_case"), ("'é' > 'z'", "str_unicode"), ("(1, 2) == (1, 2)", "tuple_eq"),
                   ("[1] == (1,)", "list_tuple_eq"), ("{'a': 1, 'b': 2} == {'b': 2, 'a': 1}", "dict_eq"),
                   ("none == none", "none_eq"), ("1 < 'a'", "int_lt_str"), ("none < 1", "none_lt"),
                   ("[1] < ['a']", "list_lt_mixed"), ("x == x", "undef_eq"), ("x < 1", "undef_lt"),
                   ("2**53 + 1 > 2.0**53", "bigint_float_cmp"), ("'a' in 'cat'", "in_str"), ("'k' in {'k': 1}", "in_dict"),
                   ("1 in [1.0]", "in_list"), ("1 in 'abc'", "in_str_int"), ("'a' not in ['a']", "not_in"),
                   ("1 in x", "in_undef"), ("1 in none", "in_none"), ("0.1 + 0.2 == 0.3", "float_eq")]:
    case("arith", name, "{{ %s }}" % expr)
case("arith", "percent_basic", "{{ '%s|%d|%.2f|%5s|%-5s|%05d|%x|%r|%%' % ('a', 3.9, 2.345, 'b', 'c', -42, 255, 'q') }}")
case("arith", "percent_single", "{{ '%s!' % 'x' }}{{ '%s' % [1] }}{{ '%s' % none }}")
case("arith", "percent_dict", "{{ '%(a)s-%(b)s' % {'a': 1, 'b': 'x'} }}")
case("arith", "percent_errors", "{{ '%s %s' % ('a',) }}")
case("arith", "percent_extra", "{{ '%s' % ('a', 'b') }}")
case("arith", "percent_bad_type", "{{ '%d' % 'x' }}")
case("arith", "percent_markup", "{{ ('%s'|safe) % '<' }}")
case("arith", "markup_add", "{{ ('<'|safe) + '<' }}|{{ '<' + ('<'|safe) }}|{{ '<' ~ ('<'|safe) }}")

# ---------------------------------------------------------------- methods
S = '{"s": "  Hello, World!  ", "t": "a,b,,c", "u": "ΣΑΣ straße ǅ İ ﬁ", "w": "\\u001c\\u0085 x \\u3000y\\ufeff"}'
methods = ["s.strip()", "s.lstrip()", "s.rstrip()", "s.strip(' !H')", "t.split(',')", "t.split(',', 1)", "s.split()",
           "s.split(None, 1)", "t.rsplit(',', 1)", "s.rsplit(maxsplit=1)", "t.split(sep=',', maxsplit=2)", "w.strip()",
           "w.split()", "s.upper()", "s.lower()", "s.title()", "s.capitalize()", "s.swapcase()", "u.lower()", "u.upper()",
           "u.title()", "u.casefold()", "u.capitalize()", "u.swapcase()", "s.startswith('  H')", "s.startswith(('x', '  '))",
           "s.endswith('!  ')", "s.endswith('l', 0, 5)", "s.replace('l', 'L')", "s.replace('l', 'L', 2)", "s.replace('', '.')",
           "s.find('o')", "s.rfind('o')", "s.find('zz')", "s.index('W')", "s.rindex('l')", "s.count('l')", "s.count('')",
           "', '.join(['a', 'b'])", "'-'.join('abc')", "'{} {}'.format(1, 'x')", "'{0}{1}{0}'.format('a', 'b')",
           "'{n:>6}|{n:<6}|{n:^6}'.format(n='ab')", "'{:.2f}|{:,}|{:08.3f}|{:+d}|{:x}|{:#b}|{:e}|{:%}'.format(3.14159, 1234567, -2.5, 3, 255, 5, 1234.5, 0.125)",
           "'{0[a]}-{0.a}'.format({'a': 1})", "'{!r}'.format('x')", "'42'.zfill(5)", "'-42'.zfill(6)", "'ab'.center(7, '*')",
           "'ab'.ljust(5) ~ '|'", "'ab'.rjust(5, '0')", "'a=b=c'.partition('=')", "'a=b=c'.rpartition('=')",
           "'pre-x'.removeprefix('pre-')", "'x.txt'.removesuffix('.txt')", "'a\\tbc\\td'.expandtabs(4)",
           "'a\\nb\\r\\nc\\x85d\\u2028e'.splitlines()", "'a\\nb\\n'.splitlines(true)", "'123'.isdigit()", "'½'.isnumeric()",
           "'½'.isdigit()", "'²'.isdigit()", "'²'.isdecimal()", "'abc'.isalpha()", "'ab1'.isalnum()", "' \\t'.isspace()",
           "'ABC'.isupper()", "'abc'.islower()", "'Ab Cd'.istitle()", "'Ab cd'.istitle()", "''.isupper()", "'x_1'.isidentifier()",
           "'a\\x00'.isprintable()", "'é'.isascii()", "s|length", "d.items()", "d.keys()", "d.values()", "d.get('a')",
           "d.get('zz')", "d.get('zz', 'dflt')", "d.items()|list", "d.copy()", "l.index(2)", "l.count(1)", "l.copy()",
           "(1, 2, 1).count(1)", "(1, 2).index(2)", "d.items()|length", "'a' in d.keys()", "d.items() is iterable",
           "d.items() is sequence"]
for i, mth in enumerate(methods):
    ctx = json.loads(S)
    ctx.update({"d": {"a": 1, "b": [2]}, "l": [1, 2, 1]})
    case("methods", f"m{i:02d}", "{{ %s }}" % mth, json.dumps(ctx, ensure_ascii=False))
for i, mth in enumerate(["'a'.strip(1)", "'a,b'.split('')", "'abc'.index('z')", "[1].index(5)", "'{}{}'.format(1)",
                         "'{'.format()", "'}'.format()", "'{x}'.format()", "'{:d}'.format(1.5)", "'-'.join([1, 2])",
                         "'ab'.center(5, 'xy')", "'a'.startswith(1)", "'a'.nosuch()"]):
    case("methods", f"err{i:02d}", "{{ %s }}" % mth)

# ---------------------------------------------------------------- filters
R = '{"recs": [{"n": "b", "v": 2, "o": {"x": 1}}, {"n": "a", "v": 1, "o": {"x": 3}}, {"n": "A", "v": 3, "o": {"x": 2}}, {"n": "c", "v": 0}], "words": ["b", "A", "a", "B"], "nums": [3, 1, 2]}'
filters = [
    "'  x  '|trim", "'xxhixx'|trim('x')", "words|length", "'a😀'|length", "words|count", "nums|first", "nums|last",
    "'abc'|first", "'abc'|last", "[]|first", "words|join", "words|join(', ')", "recs|join(', ', attribute='n')",
    "recs|map(attribute='n')|list", "recs|map(attribute='o.x', default=0)|list", "words|map('upper')|list",
    "[1.26, 2.5]|map('round', 1)|list", "nums|select('odd')|list", "nums|reject('odd')|list", "nums|select|list",
    "[0, 1, '', 'a', none]|select|list", "[1, 'a', none, 2.5]|select('number')|list", "nums|select('divisibleby', 3)|list",
    "nums|select('>', 1)|list", "nums|select('in', [1, 3])|list", "recs|selectattr('o')|map(attribute='n')|list",
    "recs|rejectattr('o')|list", "recs|selectattr('v', 'gt', 1)|map(attribute='n')|list",
    "recs|selectattr('n', 'equalto', 'a')|list", "words|list", "'ab'|list", "{'a': 1}|list", "123|string",
    "[1, 'a']|string", "'3.7'|int", "'0x1A'|int(base=16)", "' 1_0 '|int", "'1e3'|int", "'x'|int(7)", "none|int",
    "true|int", "3.99|int", "-3.99|int", "'12345678901234567890'|int", "'1.5'|float", "'x'|float", "'x'|float(1.5)",
    "' nan '|float", "3|float", "'-inf'|float", "missing|default('d')", "none|default('d')", "none|default('d', true)",
    "''|default('d', boolean=true)", "0|d('z', true)", "missing|d", "{'b': 1, 'a': 2}|items|list", "missing|items|list",
    "{'b': 1, 'A': 2, 'a': 3}|dictsort", "{'b': 1, 'A': 2, 'a': 3}|dictsort(true)",
    "{'b': 1, 'A': 2, 'a': 3}|dictsort(by='value', reverse=true)", "words|unique|list", "words|unique(true)|list",
    "recs|unique(attribute='n')|map(attribute='v')|list", "'hello World'|upper", "'HELLO'|lower",
    "\"it's a test-case (x) [y] {z} <w> tab\\tx\"|title", "'hELLO wORLD'|capitalize", "'aXbX'|replace('X', '-')",
    "'aXbX'|replace('X', '-', 1)", "2.5|round", "3.5|round", "2.675|round(2)", "42|round", "1.55|round(1, 'floor')",
    "1.51|round(1, 'ceil')", "-2.5|abs", "-3|abs", "'<a href=\"x\">&\\'</a>'|escape", "'<b>'|e|e", "'<b>'|safe",
    "'<b>'|safe|forceescape", "'a\\nb\\n\\nc'|indent", "'a\\nb'|indent(2, true)", "'a\\n\\nb'|indent('> ', first=true, blank=true)",
    "'one two  three'|wordcount", "nums|batch(2)|list", "nums|batch(2, 'x')|list", "nums|slice(2)|list",
    "[1, 2, 3, 4, 5]|slice(3, 0)|list", "words|sort", "words|sort(reverse=true)", "words|sort(case_sensitive=true)",
    "recs|sort(attribute='n')|map(attribute='n')|list", "recs|sort(attribute='o.x')|map(attribute='n')|list",
    "recs|sort(attribute='v,n')|map(attribute='n')|list", "nums|reverse|list", "'abc'|reverse", "nums|sum",
    "recs|sum(attribute='v')", "recs|sum(attribute='v', start=10)", "[0.1, 0.2]|sum", "words|min", "words|max",
    "words|max(case_sensitive=true)", "recs|min(attribute='v')", "recs|max(attribute='n')", "[]|max",
    "'%s-%s'|format(1, 'a')", "'%(a)s'|format(a=3)", "'ab'|center(8)", "'The quick brown fox'|truncate(10)",
    "'The quick brown fox'|truncate(10, true)", "'The quick brown fox'|truncate(12, end='…')",
    "'The quick brown fox jumps'|truncate(20, leeway=0)", "'<p>Hi <b>there</b><!-- x --></p> &amp; &lt;3'|striptags",
    "'a b/c?d=é'|urlencode", "{'a': 'b c', 'x': 1}|urlencode", "{'a': [1, 'x'], 'b': none}|pprint",
    "1000|filesizeformat", "1024|filesizeformat(true)", "1|filesizeformat", "3.5e12|filesizeformat",
    "{'a': 1}|attr('a')", "({'a': 1}|attr('items')|string)[:35]", "('abc'|attr('upper')|string)[:34]", "[]|attr('append')",
    "recs|groupby('n')|map(attribute='grouper')|list", "recs|groupby('n', case_sensitive=true)|map(attribute='grouper')|list",
    "recs|groupby('n')|first", "words|length is number", "{'class': 'a<b', 'id': 1, 'skip': none}|xmlattr",
    "{'a': 1}|xmlattr(false)", "{}|xmlattr", "'ab'|center(7)|length", "nums|join('|')|length",
]
for i, flt in enumerate(filters):
    case("filters", f"f{i:03d}", "{{ %s }}" % flt, R)
case("filters", "groupby_loop", "{% for g, items in recs|groupby('v') %}{{ g }}={{ items|map(attribute='n')|join(',') }};{% endfor %}", R)
case("filters", "groupby_attrs", "{% for g in recs|groupby('n') %}{{ g.grouper }}:{{ g.list|length }}:{{ g[0] }};{% endfor %}", R)
for i, flt in enumerate(["nums|map('nofilter')|list", "nums|select('notest')|list", "'abc'|truncate(2)",
                         "5|length", "none|length", "none|list", "none|join", "5|first", "1|reverse", "{'a': 1}|dictsort(by='x')",
                         "3.7|round(0, 'x')", "'x'|format(1, a=2)", "['a']|sum(start='')", "'x'|abs", "5|items|list",
                         "[1, 'a']|sort", "recs|sort(attribute='o')", "1|indent", "missing|attr('a')",
                         "recs|sort(attribute='q.r')|length", "recs|map|list", "nums|batch|list", "{'a b': 1}|xmlattr"]):
    case("filters", f"err{i:02d}", "{{ %s }}" % flt, R)

# ---------------------------------------------------------------- tests
vals = ["none", "true", "false", "0", "1", "2", "-3", "1.0", "2.5", "''", "'s'", "'S'", "[]", "[1]", "{}", "{'a': 1}",
        "(1,)", "missing", "d.items", "d.items()", "range(2)", "'<'|e", "ns"]
tests = ["defined", "undefined", "none", "boolean", "false", "true", "integer", "float", "number", "string", "mapping",
         "iterable", "sequence", "callable", "escaped", "lower", "upper"]
for i, v in enumerate(vals):
    tpl = "{% set ns = namespace() %}" + "".join("{{ (%s) is %s }}," % (v, t) for t in tests)
    case("tests", f"t{i:02d}", tpl, '{"d": {"a": 1}}')
for i, expr in enumerate(["1 is odd", "2 is even", "1.0 is odd", "6 is divisibleby 3", "7 is divisibleby(2)",
                          "1 is eq 1.0", "1 is equalto 1", "1 is ne 2", "1 is lt 2", "2 is le 2", "3 is gt 2",
                          "3 is ge 4", "3 is greaterthan 2", "1 is lessthan 2", "1 is == 1", "1 is != 1",
                          "'a' is in 'cat'", "1 is in [1, 2]", "'x' is in {'x': 1}", "none is sameas none",
                          "true is sameas true", "1 is sameas 1", "'upper' is filter", "'nofilter' is filter",
                          "'odd' is test", "'a' is not none", "x is not defined", "1 is not string",
                          "'a' is odd", "1 is divisibleby 0", "x is odd", "1 is eq", "1 is nosuchtest"]):
    case("tests", f"e{i:02d}", "{{ %s }}" % expr)

# ---------------------------------------------------------------- unicode
U = '{"s": "héllo wörld ΣΑΣ οδός straße ﬁne İstanbul ǅungla 中文 😀 \\u2028 \\u0085 \\u00a0 \\u3000"}'
for i, expr in enumerate(["s|length", "s|upper", "s|lower", "s|title", "s|capitalize", "s.title()", "s.swapcase()",
                          "s.casefold()", "s[0]", "s[-1]", "s[1:5]", "s[::-1]", "s[::2]", "s[-3:]", "s|list|length",
                          "s.split()", "s|wordcount", "s|trim|length", "s.find('ö')", "s.index('😀')",
                          "s|center(60)", "s|truncate(20)", "[s]", "s|tojson", "s|tojson(ensure_ascii=true)",
                          "s.split(' ')|length", "s|reverse", "s.upper().lower()", "s|replace('ö', 'oe')",
                          "s.count('l')", "s|urlencode", "s.encode is defined", "s.splitlines()"]):
    case("unicode", f"u{i:02d}", "{{ %s }}" % expr, U)
case("unicode", "iterate_codepoints", "{% for c in s %}[{{ c }}]{% endfor %}", '{"s": "aé😀中"}')
case("unicode", "strip_unicode_ws", "[{{ s|trim }}][{{ s.strip() }}]", '{"s": "\\u001c\\u001f\\u0085\\u3000\\u2000x\\ufeff\\u200b"}')
case("unicode", "sort_codepoint", "{{ l|sort }}{{ l|sort(case_sensitive=true) }}", '{"l": ["é", "z", "E", "😀", "\\uffff", "a"]}')
case("unicode", "final_sigma", "{{ 'ΟΔΟΣ ΣΑΣ Σ ΑΣ.'|lower }}")
case("unicode", "greek_cyrillic", "{{ 'Привет Мир'|upper }}|{{ 'ΑΒΓ'|lower }}|{{ 'ǆ'|title }}|{{ 'ǅ'.upper() }}")
case("unicode", "special_upper", "{{ 'ßŉǰΐ'.upper() }}|{{ 'ﬃ'.title() }}|{{ 'İ'.lower()|length }}")
case("unicode", "digits", "{{ '٣٤'|int }}|{{ '٣'.isdigit() }}|{{ '①'.isdigit() }}|{{ '①'.isdecimal() }}")

# ---------------------------------------------------------------- sandbox / undefined
for i, expr in enumerate(["[].append", "[].append(1)", "{}.update({'a': 1})", "{}.pop('a')", "[1].pop()",
                          "[2, 1].sort()", "{}.setdefault('a', 1)", "{}.clear()", "[].extend([1])", "''.__class__",
                          "''.__class__.__mro__", "d.__len__", "d._private", "(d.items|string)[:35]", "d['items']", "d.items()",
                          "d.update", "x.y", "x['y']", "x.y.z", "none.y", "none.y.z", "d.missing.x", "d.missing",
                          "x()", "x|length", "x|list", "x|first", "(x ~ 'a')", "x + 1", "-x", "x[0]", "d.a.b",
                          "range(200000)|length", "range(5)|list", "range(10, 0, -3)|list", "range(3)",
                          "range(1, 2, 0)", "range(1.5)", "dict(a=1, b=[2])", "dict({'x': 1}, y=2)", "namespace(a=[1])",
                          "raise_exception('boom')", "lipsum is defined", "cycler is callable",
                          "d.items is callable", "1()", "('abc'.upper|string)[:34]", "l[9]", "l[-1]", "l[1:]", "l['x']",
                          "'abc'[5]", "d[0]", "d.get('_private')", "strftime_now('%Y-%m-%d %H:%M:%S.%f %a %b %j %p %I %A %B %y %%|%z|%Z')",
                          "strftime_now('%d %b %Y')", "strftime_now(1)"]):
    case("sandbox", f"s{i:02d}", "{{ %s }}" % expr, '{"d": {"a": 1, "items": "KEY", "_private": 2}, "l": [1, 2, 3]}')
for i, expr in enumerate(["namespace(u)", "dict(u)", "namespace(none)", "dict(none)", "namespace({'a': 1})",
                          "namespace([['a', 1]])", "dict([[1, 2, 3]])", "namespace(1, 2)", "dict(1)", "namespace(a=u)",
                          "namespace(u).a", "u in 'abc'", "dict(a=1, **{'b': 2})", "range(3)|length", "range(3)[1]",
                          "range(0, 10, 3)", "range(3) is sequence", "3 in range(5)"]):
    case("sandbox", f"g{i:02d}", "{{ %s }}" % expr)
case("sandbox", "deep_nesting_limit_ok", "{% set ns = namespace(x=[]) %}{% for i in range(500) %}{% set ns.x = [ns.x] %}{% endfor %}{{ (ns.x|string)|length }}")
case("sandbox", "namespace_accumulate", "{% set ns = namespace(c=0, l=[]) %}{% for i in range(4) %}{% set ns.c = ns.c + i %}{% endfor %}{{ ns.c }}|{{ ns }}")
case("sandbox", "namespace_print", "{% set ns = namespace(a=[1]) %}{{ ns }}|{{ ns.a }}|{{ ns.missing }}|")
case("sandbox", "cycler_joiner", "{% set c = cycler('a', 'b') %}{% set j = joiner('|') %}{% for i in range(3) %}{{ j() }}{{ c.next() }}{{ c.current }}{% endfor %}")
case("sandbox", "set_attr_non_namespace", "{% set d.a = 1 %}{{ d }}", '{"d": {}}')
case("sandbox", "unsafe_undefined_print", "[{{ [].append }}][{{ {}.update }}]")
case("sandbox", "dict_items_loop", "{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %}", '{"d": {"b": 1, "a": [2]}}')
case("sandbox", "dict_items_shadow", "{% for k, v in schema.items() %}{{ k }};{% endfor %}|{{ schema['items'] }}",
     '{"schema": {"type": "array", "items": {"type": "string"}}}')

# ---------------------------------------------------------------- undefined operands
undef_exprs = ['"%s|" % x', '"%r" % x', '"%d" % x', '"%s %s" % (x, 1)', '[1] + x', '"a" + x', '1 + x', 'x + 1',
               '"a" * x', '2 * x', 'x == 1', 'x != x', '1 < x', 'x in [1]', 'x in "abc"', '"a" in x', '(x, 1)', '[x]|tojson',
               '"{}".format(x)', '"{:>3}".format(x)']
undef_filters = ["string", "int", "float", "round", "abs", "upper", "trim", "join", "sort", "sum", "dictsort", "e",
                 "length", "default(1)", "indent", "center", "replace('a', 'b')", "format", "wordcount", "title",
                 "batch(2)|list", "unique|list", "min", "max", "first", "last", "map('upper')|list", "select|list",
                 "truncate", "tojson", "pprint", "urlencode", "striptags", "items|list", "list", "xmlattr",
                 "attr('a')", "groupby('a')", "slice(2)|list", "capitalize", "filesizeformat", "safe",
                 "forceescape", "lower", "count", "string|length", "reject|list", "selectattr('a')|list"]
for i, e in enumerate(undef_exprs):
    case("undefined", f"op{i:02d}", "{{ %s }}" % e)
for i, flt in enumerate(undef_filters):
    case("undefined", f"f{i:02d}", "{{ x|%s }}" % flt)
    case("undefined", f"attr_f{i:02d}", "{{ d.missing|%s }}" % flt, '{"d": {}}')
for i, t in enumerate(["defined", "undefined", "none", "string", "number", "mapping", "iterable", "sequence",
                       "callable", "odd", "divisibleby 2", "eq 1", "lt 1", "in [1]", "sameas x", "lower", "upper",
                       "escaped", "boolean", "true", "filter", "test"]):
    case("undefined", f"t{i:02d}", "{{ x is %s }}" % t)

for group, cases in files.items():
    path = os.path.join(OUT, f"library-{group}.json")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(json.dumps({"cases": cases}, ensure_ascii=False, indent=1) + "\n")
print(sum(len(c) for c in files.values()), "cases in", len(files), "files")
