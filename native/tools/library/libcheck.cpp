// Check driver for the library side of the engine. Reads one JSON text per
// stdin line and prints one JSON-encoded result line per input, so a Python
// script can compare against CPython (see check.py).
//
//   libcheck repr | str           json.loads then repr()/str()
//   libcheck dumps '<options>'     json.loads then json.dumps with options
//   libcheck loads                 json.loads then json.dumps (round trip)
//   libcheck call                  [kind, name, input, args, kwargs]: kind is
//                                  "filter", "test", "method", "global", "op"
#include <chrono>
#include <cstdio>
#include <iterator>
#include <iostream>
#include <string>

#include "errors.h"
#include "filters.h"
#include "globals.h"
#include "json.h"
#include "operators.h"
#include "pyformat.h"
#include "unicode.h"

using namespace jinja;

static std::string enc(const std::string& s) {
  JsonDumpsOptions o;
  return json_dumps(Value::string(s), o);
}

static std::string err(const Error& e) { return "ERR " + e.python_type + ": " + e.what(); }

static Value run_call(RenderState& st, const Value& spec) {
  const auto& a = spec.items();
  std::string kind = a.at(0).as_str(), name = a.at(1).as_str();
  CallArgs ca;
  if (a.size() > 3) ca.args = a[3].items();
  if (a.size() > 4)
    for (const auto& e : a[4].as_dict().entries()) ca.kwargs.emplace_back(e.first.as_str(), e.second);
  const Value& input = a.at(2);
  if (kind == "filter") {
    FilterFn f = find_filter(name);
    if (!f) throw Error(ErrorKind::Runtime, "TemplateAssertionError", "No filter named '" + name + "'.");
    return f(st, input, ca);
  }
  if (kind == "test") {
    TestFn t = find_test(name);
    if (!t) throw Error(ErrorKind::Runtime, "TemplateAssertionError", "No test named '" + name + "'.");
    return Value::boolean(t(st, input, ca));
  }
  if (kind == "method") return call_value(st, get_attr(st, input, name), ca);
  if (kind == "attr") return get_attr(st, input, name);
  if (kind == "item") return get_item(st, input, ca.args.at(0));
  if (kind == "global") {
    const Value* g = default_globals().find_str(name);
    if (!g) throw Error(ErrorKind::Runtime, "UndefinedError", "no global " + name);
    return call_value(st, *g, ca);
  }
  if (kind == "op") {
    const Value& b = ca.args.at(0);
    if (name == "+") return binary_op(BinOp::Add, input, b);
    if (name == "-") return binary_op(BinOp::Sub, input, b);
    if (name == "*") return binary_op(BinOp::Mul, input, b);
    if (name == "/") return binary_op(BinOp::Div, input, b);
    if (name == "//") return binary_op(BinOp::FloorDiv, input, b);
    if (name == "%") return binary_op(BinOp::Mod, input, b);
    if (name == "**") return binary_op(BinOp::Pow, input, b);
    if (name == "==") return Value::boolean(compare(CmpOp::Eq, input, b));
    if (name == "!=") return Value::boolean(compare(CmpOp::Ne, input, b));
    if (name == "<") return Value::boolean(compare(CmpOp::Lt, input, b));
    if (name == "<=") return Value::boolean(compare(CmpOp::Le, input, b));
    if (name == ">") return Value::boolean(compare(CmpOp::Gt, input, b));
    if (name == ">=") return Value::boolean(compare(CmpOp::Ge, input, b));
    if (name == "in") return Value::boolean(contains(b, input));
  }
  throw Error(ErrorKind::Runtime, "ValueError", "bad call spec");
}

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  std::string mode = argc > 1 ? argv[1] : "repr";
  JsonDumpsOptions opts;
  if (mode == "dumps" && argc > 2) {
    Value o = json_loads(argv[2]);
    const DictData& d = o.as_dict();
    if (const Value* v = d.find_str("indent"); v && !v->is_none())
      opts.indent = v->is_str() ? v->as_str() : std::string(size_t(std::max<int64_t>(0, v->as_int())), ' ');
    if (const Value* v = d.find_str("separators"); v && !v->is_none()) {
      opts.item_separator = v->items()[0].as_str();
      opts.key_separator = v->items()[1].as_str();
    }
    if (const Value* v = d.find_str("sort_keys")) opts.sort_keys = truthy(*v);
    if (const Value* v = d.find_str("ensure_ascii")) opts.ensure_ascii = truthy(*v);
  }
  if (mode == "ucd") {
    // Every code point through the str methods that use the Unicode tables.
    RenderState st;
    std::string out;
    const char* preds[] = {"isprintable", "isspace", "isalpha", "isdecimal", "isdigit", "isnumeric",
                           "isupper", "islower", "istitle", "isalnum", "isidentifier"};
    const char* maps[] = {"upper", "lower", "title", "casefold", "swapcase", "capitalize"};
    for (char32_t cp = 0; cp < 0x110000; ++cp) {
      if (cp >= 0xD800 && cp <= 0xDFFF) continue;
      std::string ch;
      unicode::append_utf8(ch, cp);
      Value v = Value::string(ch);
      char buf[16];
      std::snprintf(buf, sizeof buf, "%x", unsigned(cp));
      out += buf;
      for (const char* m : maps) {
        CallArgs a;
        out.push_back(' ');
        out += call_value(st, get_attr(st, v, m), a).as_str();
      }
      out.push_back(' ');
      for (const char* p : preds) {
        CallArgs a;
        out.push_back(call_value(st, get_attr(st, v, p), a).as_bool() ? '1' : '0');
      }
      out.push_back('\n');
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
  }
  if (mode == "bench") {
    // Whole stdin is one JSON document: time json_loads, json_dumps and str().
    std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    auto t0 = std::chrono::steady_clock::now();
    Value v;
    for (int i = 0; i < 5; ++i) v = json_loads(text);
    auto t1 = std::chrono::steady_clock::now();
    std::string d;
    for (int i = 0; i < 5; ++i) d = json_dumps(v, JsonDumpsOptions{});
    auto t2 = std::chrono::steady_clock::now();
    std::string r;
    for (int i = 0; i < 5; ++i) { r.clear(); append_py_str(r, v); }
    auto t3 = std::chrono::steady_clock::now();
    auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count() / 5; };
    std::printf("bytes=%zu loads=%.2fms (%.0f MB/s) dumps=%.2fms str=%.2fms\n", text.size(), ms(t0, t1),
                text.size() / 1e3 / ms(t0, t1), ms(t1, t2), ms(t2, t3));
    return 0;
  }
  std::string line;
  RenderState st;
  st.now = DateTime{2026, 1, 15, 10, 30, 5, 123456};
  while (std::getline(std::cin, line)) {
    std::string out;
    try {
      Value v;
      if (mode == "loads") {
        // The input line is a JSON string holding the text to parse.
        v = json_loads(json_loads(line).as_str());
      } else {
        v = json_loads(line);
      }
      if (mode == "repr") out = py_repr(v);
      else if (mode == "str") out = py_str(v);
      else if (mode == "dumps") out = json_dumps(v, opts);
      else if (mode == "loads") out = json_dumps(v, JsonDumpsOptions{});
      else if (mode == "call") out = py_repr(run_call(st, v));
      else if (mode == "strftime") {
        const auto& a = v.items();
        DateTime t{int(a[1].as_int()), int(a[2].as_int()), int(a[3].as_int()), int(a[4].as_int()),
                   int(a[5].as_int()), int(a[6].as_int()), int(a[7].as_int())};
        out = py_strftime(a[0].as_str(), t);
      }
    } catch (const Error& e) {
      out = err(e);
    } catch (const std::exception& e) {
      out = std::string("ERR std: ") + e.what();
    }
    std::cout << enc(out) << '\n';
  }
  return 0;
}
