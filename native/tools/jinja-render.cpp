// Standalone driver for the template engine.
//   jinja-render TEMPLATE_FILE [CONTEXT_JSON_FILE]   render and print
//   jinja-render --cases FILE.json...                 run unit case files
//   jinja-render --vars TEMPLATE_FILE                 undeclared names + content format
//   jinja-render --bench N TEMPLATE_FILE CONTEXT_JSON_FILE   time N renders
//   jinja-render --bench-json N TEMPLATE_FILE CONTEXT_JSON_FILE
//       time N (parse context JSON + render), what the addon does per call
// Errors print as "<python_type>: message (line N)" on stderr, exit 1.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "errors.h"
#include "json.h"
#include "template.h"
#include "value.h"

using namespace jinja;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    std::cerr << "cannot read " << path << "\n";
    std::exit(2);
  }
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

RenderState make_state() {
  RenderState st;
  st.now = DateTime{2026, 1, 15, 10, 30, 5, 123456};  // the case generator's fixed clock
  return st;
}

const DictData& as_context(const Value& v) {
  static const DictData empty;
  if (v.kind() != Kind::Dict) return empty;
  return v.as_dict();
}

std::string describe(const Error& e) {
  std::string s = e.python_type + ": " + e.what();
  if (e.line) s += " (line " + std::to_string(e.line) + ")";
  if (!e.construct.empty()) s += " [" + e.construct + "]";
  return s;
}

const Value* field(const Value& obj, const char* name) { return obj.as_dict().find_str(name); }

// Shows where two strings first differ.
void show_diff(const std::string& want, const std::string& got) {
  size_t i = 0;
  while (i < want.size() && i < got.size() && want[i] == got[i]) ++i;
  size_t from = i > 40 ? i - 40 : 0;
  std::cout << "    first difference at byte " << i << "\n";
  std::cout << "    want: " << json_dumps(Value::string(want.substr(from, 120)), {}) << "\n";
  std::cout << "    got : " << json_dumps(Value::string(got.substr(from, std::min<size_t>(120, got.size() - from))), {})
            << "\n";
}

int run_cases(int argc, char** argv, int first) {
  int pass = 0, fail = 0;
  bool verbose = std::getenv("VERBOSE") != nullptr;
  for (int k = first; k < argc; ++k) {
    Value doc = json_loads(read_file(argv[k]));
    const Value* cases = field(doc, "cases");
    if (!cases) continue;
    for (auto& c : cases->items()) {
      std::string name = field(c, "name")->as_str();
      std::string tpl = field(c, "template")->as_str();
      const Value* ctxj = field(c, "context_json");
      const Value* exp = field(c, "expected");
      const Value* err = field(c, "error");
      const Value* errmsg = field(c, "error_message");
      std::string got;
      std::string got_err, got_msg;
      try {
        Value ctx = json_loads(ctxj ? std::string_view(ctxj->as_str()) : std::string_view("{}"));
        auto t = compile(tpl);
        RenderState st = make_state();
        got = render(*t, as_context(ctx), st);
      } catch (const Error& e) {
        got_err = e.python_type;
        got_msg = e.what();
      } catch (const std::exception& e) {
        got_err = "std::exception";
        got_msg = e.what();
      }
      bool ok;
      if (err) ok = got_err == err->as_str();
      else ok = got_err.empty() && exp && got == exp->as_str();
      if (ok) {
        ++pass;
        if (verbose && err && errmsg && got_msg != errmsg->as_str())
          std::cout << "note " << name << ": message differs: want " << errmsg->as_str() << " | got " << got_msg << "\n";
        continue;
      }
      ++fail;
      std::cout << "FAIL " << name << "\n";
      std::cout << "    template: " << json_dumps(Value::string(tpl), {}) << "\n";
      if (err) std::cout << "    want error " << err->as_str() << ": " << (errmsg ? errmsg->as_str() : "") << "\n";
      if (!got_err.empty()) std::cout << "    got error " << got_err << ": " << got_msg << "\n";
      if (!err && exp && got_err.empty()) show_diff(exp->as_str(), got);
      else if (!err && exp) std::cout << "    want: " << json_dumps(*exp, {}) << "\n";
    }
  }
  std::cout << pass << "/" << (pass + fail) << " cases pass\n";
  return fail ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: jinja-render TEMPLATE [CONTEXT.json] | --cases FILE... | --vars TEMPLATE | --bench N T C\n";
    return 2;
  }
  std::string mode = argv[1];
  try {
    if (mode == "--cases") return run_cases(argc, argv, 2);
    if (mode == "--vars") {
      auto t = compile(read_file(argv[2]));
      for (auto& n : undeclared_variables(*t)) std::cout << n << "\n";
      std::cout << "content_format: " << (detect_content_format(*t) == ContentFormat::OpenAI ? "openai" : "string")
                << "\n";
      return 0;
    }
    if (mode == "--bench-json") {
      int n = std::stoi(argv[2]);
      auto t = compile(read_file(argv[3]));
      std::string text = read_file(argv[4]);
      size_t bytes = 0;
      double best = 1e300;
      for (int r = 0; r < 5; ++r) {
        auto t0 = std::chrono::steady_clock::now();
        for (int k = 0; k < n; ++k) {
          Value ctx = json_loads(text);
          ctx.as_dict().freeze();
          RenderState st = make_state();
          bytes += render(*t, as_context(ctx), st).size();
        }
        auto t1 = std::chrono::steady_clock::now();
        best = std::min(best, std::chrono::duration<double, std::micro>(t1 - t0).count() / n);
      }
      double parse = 1e300;
      for (int r = 0; r < 5; ++r) {
        auto t0 = std::chrono::steady_clock::now();
        for (int k = 0; k < n; ++k) json_loads(text).as_dict().freeze();
        auto t1 = std::chrono::steady_clock::now();
        parse = std::min(parse, std::chrono::duration<double, std::micro>(t1 - t0).count() / n);
      }
      std::cout << best << " us/call (best of 5; json_loads alone " << parse << " us), " << bytes / (5 * n)
                << " bytes\n";
      return 0;
    }
    if (mode == "--bench") {
      int n = std::stoi(argv[2]);
      auto t = compile(read_file(argv[3]));
      Value ctx = json_loads(read_file(argv[4]));
      size_t bytes = 0;
      auto t0 = std::chrono::steady_clock::now();
      for (int k = 0; k < n; ++k) {
        RenderState st = make_state();
        bytes += render(*t, as_context(ctx), st).size();
      }
      auto t1 = std::chrono::steady_clock::now();
      double us = std::chrono::duration<double, std::micro>(t1 - t0).count() / n;
      std::cout << us << " us/render, " << bytes / n << " bytes\n";
      return 0;
    }
    auto t = compile(read_file(argv[1]));
    Value ctx = argc > 2 ? json_loads(read_file(argv[2])) : json_loads("{}");
    RenderState st = make_state();
    std::string out = render(*t, as_context(ctx), st);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
  } catch (const Error& e) {
    std::cerr << describe(e) << "\n";
    return 1;
  }
}
