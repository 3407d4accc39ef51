// N-API glue for the embedded backend: marshal in, render, errors out.
//
// The TypeScript layer decides everything (validation, vLLM post-processing)
// and hands over one JSON text holding the template variables. This file only
// parses that text with Python json semantics, runs the engine, and converts
// every C++ exception into a JS error object the loader maps onto the public
// error classes. No exception may cross this boundary.
#include <napi.h>

#include <memory>
#include <new>
#include <string>

#include "jinja/errors.h"
#include "jinja/json.h"
#include "jinja/template.h"
#include "jinja/value.h"

// The generation bridge (native/engine): registers `exports.bridge`.
namespace nvc {
void RegisterEngine(Napi::Env env, Napi::Object exports);
}

namespace {

// What a failed compile/render reports back to JS.
struct Failure {
  std::string kind;         // syntax | runtime | security | raised | limit | json | internal
  std::string python_type;  // Python exception class name
  std::string message;
  std::string construct;
  int line = 0;
  int column = 0;
};

const char* kind_name(jinja::ErrorKind k) {
  switch (k) {
    case jinja::ErrorKind::Syntax: return "syntax";
    case jinja::ErrorKind::Runtime: return "runtime";
    case jinja::ErrorKind::Security: return "security";
    case jinja::ErrorKind::Raised: return "raised";
    case jinja::ErrorKind::Limit: return "limit";
    case jinja::ErrorKind::Json: return "json";
  }
  return "internal";
}

// Runs fn and turns any exception into a Failure. Returns true on success.
template <typename Fn>
bool guarded(Fn&& fn, Failure& failure) {
  try {
    fn();
    return true;
  } catch (const jinja::Error& e) {
    failure = {kind_name(e.kind), e.python_type, e.what(), e.construct, e.line, e.column};
  } catch (const std::bad_alloc&) {
    failure = {"limit", "MemoryError", "out of memory while rendering", "", 0, 0};
  } catch (const std::exception& e) {
    failure = {"internal", "RuntimeError", std::string("internal error: ") + e.what(), "", 0, 0};
  } catch (...) {
    failure = {"internal", "RuntimeError", "internal error: unknown exception", "", 0, 0};
  }
  return false;
}

Napi::Error to_js_error(Napi::Env env, const Failure& f) {
  Napi::Error err = Napi::Error::New(env, f.message);
  Napi::Object o = err.Value();
  o.Set("kind", f.kind);
  o.Set("pythonType", f.python_type);
  if (!f.construct.empty()) o.Set("construct", f.construct);
  if (f.line > 0) o.Set("line", f.line);
  if (f.column > 0) o.Set("column", f.column);
  return err;
}

struct RenderInput {
  std::shared_ptr<const jinja::Template> tpl;
  std::string context_json;
  jinja::RenderState state;
};

// Parses the options object: { now?: number[7], maxOutputBytes?, maxSteps?, maxDepth?,
// maxCollection?, maxRenderMs?, maxMemoryBytes? }.
void read_options(const Napi::Value& v, jinja::RenderState& st) {
  if (!v.IsObject()) return;
  Napi::Object o = v.As<Napi::Object>();
  Napi::Value now = o.Get("now");
  if (now.IsArray()) {
    Napi::Array a = now.As<Napi::Array>();
    int f[7] = {1970, 1, 1, 0, 0, 0, 0};
    for (uint32_t i = 0; i < 7 && i < a.Length(); ++i) f[i] = a.Get(i).As<Napi::Number>().Int32Value();
    st.now = {f[0], f[1], f[2], f[3], f[4], f[5], f[6]};
  }
  auto num = [&](const char* key, auto& field) {
    Napi::Value x = o.Get(key);
    if (x.IsNumber()) {
      double d = x.As<Napi::Number>().DoubleValue();
      if (d > 0) field = static_cast<std::remove_reference_t<decltype(field)>>(d);
    }
  };
  num("maxOutputBytes", st.limits.max_output_bytes);
  num("maxSteps", st.limits.max_steps);
  num("maxDepth", st.limits.max_depth);
  num("maxCollection", st.limits.max_collection);
  num("maxRenderMs", st.limits.max_render_ms);
  num("maxMemoryBytes", st.limits.max_memory);
}

std::string render_now(RenderInput& in) {
  jinja::Value ctx = jinja::json_loads(in.context_json);
  if (ctx.kind() != jinja::Kind::Dict) {
    throw jinja::Error(jinja::ErrorKind::Json, "TypeError", "template variables must be a JSON object");
  }
  ctx.as_dict().freeze();
  return jinja::render(*in.tpl, ctx.as_dict(), in.state);
}

class RenderWorker : public Napi::AsyncWorker {
 public:
  RenderWorker(Napi::Env env, RenderInput in)
      : Napi::AsyncWorker(env, "node-vllm-cpp:render"), deferred_(Napi::Promise::Deferred::New(env)), in_(std::move(in)) {}

  Napi::Promise promise() { return deferred_.Promise(); }

  void Execute() override {
    ok_ = guarded([&] { out_ = render_now(in_); }, failure_);
  }

  void OnOK() override {
    Napi::HandleScope scope(Env());
    if (ok_) {
      deferred_.Resolve(Napi::String::New(Env(), out_));
    } else {
      deferred_.Reject(to_js_error(Env(), failure_).Value());
    }
  }

  void OnError(const Napi::Error& e) override { deferred_.Reject(e.Value()); }

 private:
  Napi::Promise::Deferred deferred_;
  RenderInput in_;
  std::string out_;
  Failure failure_;
  bool ok_ = false;
};

class CompiledTemplate : public Napi::ObjectWrap<CompiledTemplate> {
 public:
  static Napi::Function Init(Napi::Env env) {
    return DefineClass(env, "CompiledTemplate",
                       {
                           InstanceMethod<&CompiledTemplate::Render>("render"),
                           InstanceMethod<&CompiledTemplate::RenderAsync>("renderAsync"),
                           InstanceAccessor<&CompiledTemplate::UndeclaredVariables>("undeclaredVariables"),
                           InstanceAccessor<&CompiledTemplate::ContentFormat>("contentFormat"),
                       });
  }

  explicit CompiledTemplate(const Napi::CallbackInfo& info) : Napi::ObjectWrap<CompiledTemplate>(info) {
    Napi::Env env = info.Env();
    if (info.Length() < 1 || !info[0].IsString()) {
      Napi::TypeError::New(env, "template source must be a string").ThrowAsJavaScriptException();
      return;
    }
    std::string source = info[0].As<Napi::String>().Utf8Value();
    Failure failure;
    if (!guarded([&] { tpl_ = jinja::compile(source); }, failure)) {
      to_js_error(env, failure).ThrowAsJavaScriptException();
    }
  }

 private:
  bool prepare(const Napi::CallbackInfo& info, RenderInput& in) {
    Napi::Env env = info.Env();
    if (!tpl_) {
      Napi::Error::New(env, "template was not compiled").ThrowAsJavaScriptException();
      return false;
    }
    if (info.Length() < 1 || !info[0].IsString()) {
      Napi::TypeError::New(env, "template variables must be passed as a JSON string").ThrowAsJavaScriptException();
      return false;
    }
    in.tpl = tpl_;
    in.context_json = info[0].As<Napi::String>().Utf8Value();
    if (info.Length() > 1) read_options(info[1], in.state);
    return true;
  }

  Napi::Value Render(const Napi::CallbackInfo& info) {
    RenderInput in;
    if (!prepare(info, in)) return info.Env().Undefined();
    std::string out;
    Failure failure;
    if (!guarded([&] { out = render_now(in); }, failure)) {
      to_js_error(info.Env(), failure).ThrowAsJavaScriptException();
      return info.Env().Undefined();
    }
    return Napi::String::New(info.Env(), out);
  }

  Napi::Value RenderAsync(const Napi::CallbackInfo& info) {
    RenderInput in;
    if (!prepare(info, in)) return info.Env().Undefined();
    auto* worker = new RenderWorker(info.Env(), std::move(in));
    Napi::Promise p = worker->promise();
    worker->Queue();
    return p;
  }

  Napi::Value UndeclaredVariables(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    const auto& names = jinja::undeclared_variables(*tpl_);
    Napi::Array arr = Napi::Array::New(env, names.size());
    for (uint32_t i = 0; i < names.size(); ++i) arr.Set(i, names[i]);
    return arr;
  }

  Napi::Value ContentFormat(const Napi::CallbackInfo& info) {
    return Napi::String::New(info.Env(),
                             jinja::detect_content_format(*tpl_) == jinja::ContentFormat::OpenAI ? "openai" : "string");
  }

  std::shared_ptr<const jinja::Template> tpl_;
};

// jsonRoundTrip(text): parse with Python json.loads semantics and print the
// result with Python repr; used by tests that check the marshalling contract.
Napi::Value PyRepr(const Napi::CallbackInfo& info);

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  nvc::RegisterEngine(env, exports);
  exports.Set("CompiledTemplate", CompiledTemplate::Init(env));
  exports.Set("pyReprOfJson", Napi::Function::New(env, PyRepr));
  exports.Set("engine", Napi::String::New(env, "embedded"));
  return exports;
}

}  // namespace

#include "jinja/pyformat.h"

namespace {
Napi::Value PyRepr(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsString()) {
    Napi::TypeError::New(env, "expected a JSON string").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  std::string text = info[0].As<Napi::String>().Utf8Value();
  std::string out;
  Failure failure;
  if (!guarded([&] { out = jinja::py_repr(jinja::json_loads(text)); }, failure)) {
    to_js_error(env, failure).ThrowAsJavaScriptException();
    return env.Undefined();
  }
  return Napi::String::New(env, out);
}
}  // namespace

NODE_API_MODULE(node_vllm_cpp, Init)
