// N-API glue for the opt-in vllm.cpp backend.
//
// vllm.cpp (github.com/mudler/vllm.cpp) renders chat templates in
// src/vllm/entrypoints/chat_template.cpp (`apply_chat_template`): it parses the
// template with its vendored google/minja engine
//   minja::Parser::parse(src, minja::Options{trim_blocks=true,
//                                            lstrip_blocks=true,
//                                            keep_trailing_newline=false})
// builds an nlohmann::ordered_json object of template variables, wraps it in
//   minja::Context::make(minja::Value(top))      (parent: minja's builtins)
// adds a `strftime_now(fmt)` callable (std::put_time on local time), and calls
//   root->render(context).
//
// This file performs exactly that sequence, compiled against the minja.hpp and
// nlohmann/json.hpp of the user's vllm.cpp checkout (VLLM_CPP_DIR), with one
// difference on purpose: the template variables are OUR context JSON (already
// post-processed the way pinned vLLM does it), passed through unchanged,
// instead of the dict vllm.cpp's own message builder would make. That isolates
// the RENDERER (minja + vllm.cpp's options and globals) from vllm.cpp's
// request/message handling, which this backend does not measure.
//
// Every C++ exception is turned into a JS Error carrying `kind`, `pythonType`
// and, where minja reports one, `line`/`column` (see src/native/errors.ts).
#include <napi.h>

#include <chrono>
#include <ctime>
#include <exception>
#include <iomanip>
#include <memory>
#include <new>
#include <optional>
#include <regex>
#include <sstream>
#include <string>

#if !defined(_WIN32)
#include <csetjmp>
#include <csignal>
#endif

#include <minja/minja.hpp>
#include <nlohmann/json.hpp>

#ifndef VLLM_CPP_ADAPTER_VERSION
#define VLLM_CPP_ADAPTER_VERSION "vllm.cpp (unknown revision)"
#endif

namespace {

struct Failure {
  std::string kind;         // syntax | runtime | raised | limit | json | internal
  std::string python_type;  // closest Python exception class name
  std::string message;
  int line = 0;
  int column = 0;
};

// The broken-down wall-clock time strftime_now formats ([y, m, d, h, mi, s, us]).
struct WallClock {
  int f[7] = {1970, 1, 1, 0, 0, 0, 0};
};

// minja appends " at row R, column C:\n<source excerpt>" to its messages, once
// per enclosing node while an error unwinds. The first suffix is the innermost
// (most precise) location; the text before it is the reason.
void split_location(const std::string& what, Failure& f) {
  static const std::regex loc(R"( at row (\d+), column (\d+):\n)");
  std::smatch m;
  if (std::regex_search(what, m, loc)) {
    f.message = what.substr(0, static_cast<size_t>(m.position(0)));
    f.line = std::stoi(m[1].str());
    f.column = std::stoi(m[2].str());
  } else {
    f.message = what;
  }
  while (!f.message.empty() && (f.message.back() == '\n' || f.message.back() == ' ')) f.message.pop_back();
}

// minja throws plain std::runtime_error for everything; name the Python class
// a reader would expect from the wording, defaulting to TemplateError.
std::string guess_python_type(const std::string& msg) {
  auto has = [&](const char* s) { return msg.find(s) != std::string::npos; };
  if (has("ndefined") || has("not defined")) return "UndefinedError";
  if (has("not callable") || has("Unknown filter") || has("Unknown test") || has("can only concatenate") ||
      has("unsupported operand") || has("Cannot ") || has("not iterable") || has("Expected ")) {
    return "TypeError";
  }
  if (has("out of range") || has("out of bounds")) return "IndexError";
  return "TemplateError";
}

Napi::Error to_js_error(Napi::Env env, const Failure& f) {
  Napi::Error err = Napi::Error::New(env, f.message);
  Napi::Object o = err.Value();
  o.Set("kind", f.kind);
  o.Set("pythonType", f.python_type);
  if (f.line > 0) o.Set("line", f.line);
  if (f.column > 0) o.Set("column", f.column);
  return err;
}

std::optional<WallClock> read_now(const Napi::Value& options) {
  if (!options.IsObject()) return std::nullopt;
  Napi::Value now = options.As<Napi::Object>().Get("now");
  if (!now.IsArray()) return std::nullopt;
  Napi::Array a = now.As<Napi::Array>();
  WallClock w;
  for (uint32_t i = 0; i < 7 && i < a.Length(); ++i) {
    Napi::Value x = a.Get(i);
    if (x.IsNumber()) w.f[i] = x.As<Napi::Number>().Int32Value();
  }
  return w;
}

// Same formatting as vllm.cpp's strftime_now: std::put_time on a std::tm in
// the (classic) stream locale. With a fixed clock the tm is normalised in UTC
// arithmetic so weekday/yearday fields are filled in.
std::tm clock_tm(const std::optional<WallClock>& fixed, std::chrono::system_clock::time_point now) {
  std::tm t{};
  if (fixed) {
    t.tm_year = fixed->f[0] - 1900;
    t.tm_mon = fixed->f[1] - 1;
    t.tm_mday = fixed->f[2];
    t.tm_hour = fixed->f[3];
    t.tm_min = fixed->f[4];
    t.tm_sec = fixed->f[5];
#if defined(_WIN32)
    std::time_t tt = _mkgmtime(&t);
    gmtime_s(&t, &tt);
#else
    std::time_t tt = timegm(&t);
    gmtime_r(&tt, &t);
#endif
    return t;
  }
  const std::time_t tt = std::chrono::system_clock::to_time_t(now);
#if defined(_WIN32)
  localtime_s(&t, &tt);
#else
  localtime_r(&tt, &t);
#endif
  return t;
}

// minja divides int64 values with the C++ operators (`/`, `//`, `%`), so an
// integer division or modulo by zero raises SIGFPE and would kill the Node
// process (as it kills vllm.cpp). While our render runs, SIGFPE jumps back
// here instead; the render's memory is leaked and a JS error is reported.
#if !defined(_WIN32)
thread_local sigjmp_buf* t_fpe_jump = nullptr;

extern "C" void on_sigfpe(int sig) {
  if (t_fpe_jump != nullptr) siglongjmp(*t_fpe_jump, 1);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

// Returns false when the render died of SIGFPE. Kept free of objects with
// destructors between sigsetjmp and the call.
bool render_guarded(const minja::TemplateNode& root, const std::shared_ptr<minja::Context>& context,
                    std::string& out) {
  struct sigaction sa{};
  struct sigaction old{};
  sa.sa_handler = on_sigfpe;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGFPE, &sa, &old);
  sigjmp_buf jump;
  if (sigsetjmp(jump, 1) != 0) {
    t_fpe_jump = nullptr;
    sigaction(SIGFPE, &old, nullptr);
    return false;
  }
  t_fpe_jump = &jump;
  try {
    out = root.render(context);
  } catch (...) {
    t_fpe_jump = nullptr;
    sigaction(SIGFPE, &old, nullptr);
    throw;
  }
  t_fpe_jump = nullptr;
  sigaction(SIGFPE, &old, nullptr);
  return true;
}
#else
bool render_guarded(const minja::TemplateNode& root, const std::shared_ptr<minja::Context>& context,
                    std::string& out) {
  out = root.render(context);
  return true;
}
#endif

std::string render_now(const std::string& source, const std::string& context_json,
                       const std::optional<WallClock>& fixed_now, Failure& failure) {
  // 1. Template variables: our JSON text, parsed into the JSON type minja uses
  //    (nlohmann::ordered_json, key order kept), passed through unchanged.
  nlohmann::ordered_json top;
  try {
    top = nlohmann::ordered_json::parse(context_json);
  } catch (const std::exception& e) {
    failure = {"json", "JSONDecodeError", std::string("context JSON rejected by nlohmann::json: ") + e.what()};
    throw;
  }
  if (!top.is_object()) {
    failure = {"json", "TypeError", "template variables must be a JSON object"};
    throw std::runtime_error(failure.message);
  }

  // 2. Parse with vllm.cpp's options (chat_template.cpp, apply_chat_template).
  std::shared_ptr<minja::TemplateNode> root;
  try {
    root = minja::Parser::parse(source, minja::Options{/*trim_blocks=*/true,
                                                       /*lstrip_blocks=*/true,
                                                       /*keep_trailing_newline=*/false});
  } catch (const std::exception& e) {
    failure.kind = "syntax";
    failure.python_type = "TemplateSyntaxError";
    split_location(e.what(), failure);
    throw;
  }

  // 3. Context exactly as vllm.cpp builds it: the variables over minja's builtins,
  //    plus strftime_now.
  std::shared_ptr<minja::Context> context = minja::Context::make(minja::Value(top));
  const auto now = std::chrono::system_clock::now();
  context->set("strftime_now",
               minja::Value::callable([now, fixed_now](const std::shared_ptr<minja::Context>&,
                                                       minja::ArgumentsValue& args) {
                 args.expectArgs("strftime_now", {1, 1}, {0, 0});
                 const auto format = args.args[0].get<std::string>();
                 std::tm t = clock_tm(fixed_now, now);
                 std::ostringstream ss;
                 ss << std::put_time(&t, format.c_str());
                 return minja::Value(ss.str());
               }));
  // raise_exception keeps minja's builtin behaviour (throw std::runtime_error
  // with the message); the wrapper only remembers that the template raised,
  // because minja rethrows every error as a plain runtime_error.
  auto raised = std::make_shared<std::optional<std::string>>();
  minja::Value builtin_raise = minja::Context::builtins()->get(minja::Value(std::string("raise_exception")));
  context->set("raise_exception",
               minja::Value::callable([raised, builtin_raise](const std::shared_ptr<minja::Context>& ctx,
                                                              minja::ArgumentsValue& args) {
                 std::string message;
                 if (!args.args.empty() && args.args[0].is_string()) message = args.args[0].get<std::string>();
                 for (auto& [name, value] : args.kwargs) {
                   if (name == "message" && value.is_string()) message = value.get<std::string>();
                 }
                 *raised = message;
                 return builtin_raise.call(ctx, args);
               }));

  // 4. Render.
  std::string out;
  bool completed = false;
  try {
    completed = render_guarded(*root, context, out);
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    split_location(e.what(), failure);
    if (raised->has_value()) {
      failure.kind = "raised";
      failure.python_type = "TemplateError";
      if (!(*raised)->empty()) failure.message = **raised;
    } else {
      failure.kind = "runtime";
      failure.python_type = guess_python_type(failure.message);
    }
    throw;
  }
  if (!completed) {
    failure = {"internal", "ZeroDivisionError",
               "vllm.cpp's renderer crashed with SIGFPE (integer division or modulo by zero in minja); "
               "vllm.cpp itself would terminate here"};
    throw std::runtime_error(failure.message);
  }
  return out;
}

Napi::Value Render(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsString()) {
    Napi::TypeError::New(env, "template source must be a string").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  if (info.Length() < 2 || !info[1].IsString()) {
    Napi::TypeError::New(env, "template variables must be passed as a JSON string").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  const std::string source = info[0].As<Napi::String>().Utf8Value();
  const std::string context_json = info[1].As<Napi::String>().Utf8Value();
  const std::optional<WallClock> fixed_now = info.Length() > 2 ? read_now(info[2]) : std::nullopt;

  Failure failure;
  std::string out;
  try {
    out = render_now(source, context_json, fixed_now, failure);
  } catch (const std::bad_alloc&) {
    failure = {"limit", "MemoryError", "out of memory while rendering"};
  } catch (const std::exception& e) {
    if (failure.kind.empty()) failure = {"internal", "RuntimeError", std::string("internal error: ") + e.what()};
  } catch (...) {
    failure = {"internal", "RuntimeError", "internal error: unknown exception"};
  }
  if (!failure.kind.empty()) {
    to_js_error(env, failure).ThrowAsJavaScriptException();
    return env.Undefined();
  }
  return Napi::String::New(env, out);
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("render", Napi::Function::New(env, Render, "render"));
  exports.Set("version", Napi::String::New(env, VLLM_CPP_ADAPTER_VERSION));
  exports.Set("engine", Napi::String::New(env, "vllm.cpp"));
  return exports;
}

}  // namespace

NODE_API_MODULE(node_vllm_cpp_vllmcpp, Init)
