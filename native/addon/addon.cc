// N-API glue for the embedded backend: marshal in, render, errors out.
//
// The TypeScript layer decides everything (validation, vLLM post-processing)
// and hands over one JSON text holding the template variables. This file only
// parses that text with Python json semantics, runs the engine, and converts
// every C++ exception into a JS error object the loader maps onto the public
// error classes. No exception may cross this boundary.
#include <napi.h>
#include <uv.h>

#include <atomic>
#include <memory>
#include <new>
#include <string>

#include "addon/json_quote.h"
#include "addon/json_spans.h"
#include "addon/scratch.h"
#include "conversation/plan.h"
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

// Per-environment state (the main thread and each worker_threads Worker
// load the addon into an environment of their own). `stopping` is set by an
// environment cleanup hook when the environment is torn down
// (worker.terminate(), process exit); renders poll it with their step budget
// and completions never call into an environment that is going away.
struct EnvState {
  napi_env env = nullptr;
  std::shared_ptr<std::atomic<bool>> stopping = std::make_shared<std::atomic<bool>>(false);
  // While thread-pool renders are in flight, an unreferenced timer on the
  // environment's loop probes it from its own thread: a terminated Worker
  // keeps running its loop until in-flight work completes, and the probe
  // turns the termination into `stopping`, which those renders poll.
  uv_timer_t* probe = nullptr;
  int in_flight = 0;
};

// Whether JavaScript can still run in `env`: false once a Worker is being
// terminated (Node stops the environment from another thread; property
// reads then fail) or its cleanup has begun. Only call on env's own thread.
bool env_can_run_js(napi_env env, const std::atomic<bool>& stopping) {
  if (stopping.load()) return false;
  napi_handle_scope scope;
  if (napi_open_handle_scope(env, &scope) != napi_ok) return false;
  napi_value global, v;
  bool ok = napi_get_global(env, &global) == napi_ok && napi_get_named_property(env, global, "undefined", &v) == napi_ok;
  napi_close_handle_scope(env, scope);
  return ok;
}

void close_probe(EnvState& st) {
  if (!st.probe) return;
  uv_timer_stop(st.probe);
  uv_close(reinterpret_cast<uv_handle_t*>(st.probe), [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
  st.probe = nullptr;
}

void on_cleanup(void* data) {
  auto* st = static_cast<EnvState*>(data);
  st->stopping->store(true);
  close_probe(*st);
}

EnvState& env_state(napi_env env) {
  void* data = nullptr;
  if (napi_get_instance_data(env, &data) == napi_ok && data) return *static_cast<EnvState*>(data);
  auto* st = new EnvState();
  st->env = env;
  napi_set_instance_data(
      env, st, [](napi_env, void* d, void*) { delete static_cast<EnvState*>(d); }, nullptr);
  napi_add_env_cleanup_hook(env, on_cleanup, st);
  return *st;
}

void start_probe(EnvState& st) {
  ++st.in_flight;
  if (st.probe) return;
  uv_loop_t* loop = nullptr;
  if (napi_get_uv_event_loop(st.env, &loop) != napi_ok || !loop) return;
  st.probe = new uv_timer_t;
  uv_timer_init(loop, st.probe);
  st.probe->data = &st;
  uv_timer_start(
      st.probe,
      [](uv_timer_t* t) {
        auto* es = static_cast<EnvState*>(t->data);
        if (!env_can_run_js(es->env, *es->stopping)) es->stopping->store(true);
      },
      20, 20);
  uv_unref(reinterpret_cast<uv_handle_t*>(st.probe));
}

void end_probe(EnvState& st) {
  if (--st.in_flight <= 0) {
    st.in_flight = 0;
    close_probe(st);
  }
}

struct RenderInput {
  std::shared_ptr<const jinja::Template> tpl;
  std::string context_json;
  jinja::RenderState state;
  std::shared_ptr<std::atomic<bool>> stopping;  // keeps the flag alive for thread-pool renders
  // Take the leading messages parsed for a recent context on this thread
  // (json_loads_context); false: parse the whole context.
  bool reuse_parsed = true;
  // Nonzero: the context's `messages` are the template messages of this
  // shaped request (conversation/plan), built on the calling thread.
  uint64_t planned_ticket = 0;
};

// A planned render whose messages could not be built as planned.
struct PlanDeclined {};

// The wall-clock fields [year, month, day, hour, minute, second, microsecond].
void read_now(const Napi::Array& a, jinja::RenderState& st) {
  int f[7] = {1970, 1, 1, 0, 0, 0, 0};
  const uint32_t n = a.Length();
  for (uint32_t i = 0; i < 7 && i < n; ++i) f[i] = a.Get(i).As<Napi::Number>().Int32Value();
  st.now = {f[0], f[1], f[2], f[3], f[4], f[5], f[6]};
}

// Parses the options object: { now?: number[7], maxOutputBytes?, maxSteps?, maxDepth?,
// maxCollection?, maxRenderMs?, maxMemoryBytes? }.
void read_options(const Napi::Value& v, jinja::RenderState& st) {
  if (!v.IsObject()) return;
  Napi::Object o = v.As<Napi::Object>();
  Napi::Value now = o.Get("now");
  if (now.IsArray()) read_now(now.As<Napi::Array>(), st);
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
  jinja::Value ctx = in.reuse_parsed ? jinja::json_loads_context(in.context_json) : jinja::json_loads(in.context_json);
  if (ctx.kind() != jinja::Kind::Dict) {
    throw jinja::Error(jinja::ErrorKind::Json, "TypeError", "template variables must be a JSON object");
  }
  if (in.planned_ticket != 0) {
    jinja::Value messages;
    if (!nvc::planned_messages(in.planned_ticket, messages)) throw PlanDeclined{};
    auto with = std::make_shared<jinja::DictData>(ctx.as_dict());
    with->set(jinja::Value::string("messages"), std::move(messages));
    ctx = jinja::Value::dict(std::move(with));
  }
  ctx.as_dict().freeze();
  return jinja::render(*in.tpl, ctx.as_dict(), in.state);
}

// A render on the libuv thread pool, written against the C API so that its
// completion can check the environment first and never throws: a completion
// that runs while a Worker is being torn down settles nothing and frees its
// state.
struct AsyncRender {
  RenderInput in;
  std::string out;
  Failure failure;
  bool ok = false;
  napi_deferred deferred = nullptr;
  napi_async_work work = nullptr;

  static void execute(napi_env, void* data) {
    auto* r = static_cast<AsyncRender*>(data);
    r->ok = guarded([&] { r->out = render_now(r->in); }, r->failure);
  }

  static void complete(napi_env env, napi_status status, void* data) {
    std::unique_ptr<AsyncRender> r(static_cast<AsyncRender*>(data));
    napi_async_work work = r->work;
    void* es = nullptr;
    if (napi_get_instance_data(env, &es) == napi_ok && es) end_probe(*static_cast<EnvState*>(es));
    if (status == napi_ok && env_can_run_js(env, *r->in.stopping)) {
      try {
        Napi::HandleScope scope(env);
        if (r->ok) {
          napi_value s;
          if (napi_create_string_utf8(env, r->out.data(), r->out.size(), &s) == napi_ok) napi_resolve_deferred(env, r->deferred, s);
        } else {
          Napi::Error e = to_js_error(Napi::Env(env), r->failure);
          napi_reject_deferred(env, r->deferred, e.Value());
        }
      } catch (...) {
        // The environment started stopping mid-way: nothing to settle.
      }
    }
    napi_delete_async_work(env, work);
  }
};

// A JS string as UTF-8 (lone surrogates as U+FFFD). One up to 1 Mi UTF-16
// units is written in one pass into this thread's scratch buffer, sized
// for its worst case (3 bytes per unit) and grown as needed, instead of
// being measured first; a longer one is measured, then written.
void read_utf8(napi_env env, napi_value v, std::string& out) {
  static constexpr size_t kOnePassUnits = 1024 * 1024;
  thread_local nvc_addon::Scratch<char, 64 * 1024 * 3 + 1> scratch;
  size_t units = 0;
  if (napi_get_value_string_utf16(env, v, nullptr, 0, &units) == napi_ok && units <= kOnePassUnits) {
    const size_t need = units * 3 + 1;
    char* buf = scratch.get(need);
    size_t written = 0;
    const bool ok = napi_get_value_string_utf8(env, v, buf, need, &written) == napi_ok;
    if (ok) out.assign(buf, written);
    scratch.trim();
    if (ok) return;
  }
  out = Napi::String(env, v).Utf8Value();
}

class CompiledTemplate : public Napi::ObjectWrap<CompiledTemplate> {
 public:
  static Napi::Function Init(Napi::Env env) {
    return DefineClass(env, "CompiledTemplate",
                       {
                           InstanceMethod<&CompiledTemplate::Render>("render"),
                           InstanceMethod<&CompiledTemplate::RenderAsync>("renderAsync"),
                           InstanceMethod<&CompiledTemplate::RenderPlanned>("renderPlanned"),
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
  bool prepare(const Napi::CallbackInfo& info, RenderInput& in, uint32_t options_at = 1) {
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
    read_utf8(env, info[0], in.context_json);
    // (json, options) or (json, now[7]): the clock alone, with no limits to read
    if (info.Length() > options_at) {
      const Napi::Value opts = info[options_at];
      if (opts.IsArray()) {
        read_now(opts.As<Napi::Array>(), in.state);
      } else {
        read_options(opts, in.state);
        if (opts.IsObject() && opts.As<Napi::Object>().Get("reuseParsed").StrictEquals(Napi::Boolean::New(env, false))) in.reuse_parsed = false;
      }
    }
    return true;
  }


  // A sync render runs on the environment's own thread, so it can ask the
  // environment itself whether it is being stopped (a Worker terminated from
  // another thread): that is its cooperative cancellation, polled with the
  // step budget. Once stopped, nothing is returned or thrown into it.
  struct SyncPoll {
    napi_env env;
    EnvState* st;
  };
  static bool poll_stopped(void* data) {
    auto* p = static_cast<SyncPoll*>(data);
    return !env_can_run_js(p->env, *p->st->stopping);
  }

  // Runs `step` (which fills `out`) as a sync render on this thread: the
  // render polls the environment's stop flag, and a stopped environment
  // gets nothing back. Returns the output as a JS string, or undefined with
  // the failure thrown.
  template <typename Step>
  Napi::Value render_sync(napi_env env, RenderInput& in, Step&& step) {
    EnvState& es = env_state(env);
    SyncPoll poll{env, &es};
    in.state.cancel = {es.stopping.get(), poll_stopped, &poll};
    std::string out;
    Failure failure;
    const bool ok = guarded([&] { step(out); }, failure);
    if (!env_can_run_js(env, *es.stopping)) return Napi::Value();
    if (!ok) {
      to_js_error(Napi::Env(env), failure).ThrowAsJavaScriptException();
      return Napi::Env(env).Undefined();
    }
    return Napi::String::New(env, out);
  }

  Napi::Value Render(const Napi::CallbackInfo& info) {
    RenderInput in;
    if (!prepare(info, in)) return info.Env().Undefined();
    return render_sync(info.Env(), in, [&](std::string& out) { out = render_now(in); });
  }

  // renderPlanned(contextJson, ticket, plans, options): render, the
  // context's `messages` being the template messages of the request shaped
  // as `ticket` (planRequest) on this thread, built from the plans known
  // and `plans` (shape, plan JSON, ...; config first). null: declined.
  Napi::Value RenderPlanned(const Napi::CallbackInfo& info) {
    napi_env env = info.Env();
    if (info.Length() < 3 || !info[1].IsNumber() || !(info[2].IsArray() || info[2].IsNull())) {
      Napi::TypeError::New(env, "renderPlanned(contextJson, ticket, plans, options)").ThrowAsJavaScriptException();
      return info.Env().Undefined();
    }
    RenderInput in;
    if (!prepare(info, in, 3)) return info.Env().Undefined();
    in.planned_ticket = static_cast<uint64_t>(info[1].As<Napi::Number>().DoubleValue());
    std::vector<std::pair<std::string, std::string>> plans;
    std::string config;
    if (info[2].IsArray()) {
      Napi::Array a = info[2].As<Napi::Array>();
      const uint32_t n = a.Length();
      if (n > 0) config = a.Get(0u).As<Napi::String>().Utf8Value();
      for (uint32_t i = 1; i + 1 < n; i += 2) {
        plans.emplace_back(a.Get(i).As<Napi::String>().Utf8Value(), a.Get(i + 1).As<Napi::String>().Utf8Value());
      }
    }
    bool declined = false;
    Napi::Value out = render_sync(env, in, [&](std::string& text) {
      if (!plans.empty()) nvc::add_plans(config, plans);
      try {
        text = render_now(in);
      } catch (const PlanDeclined&) {
        declined = true;
      }
    });
    if (declined && !out.IsEmpty() && out.IsString()) return info.Env().Null();
    return out;
  }

  Napi::Value RenderAsync(const Napi::CallbackInfo& info) {
    napi_env env = info.Env();
    EnvState& es = env_state(env);
    auto r = std::make_unique<AsyncRender>();
    if (!prepare(info, r->in)) return info.Env().Undefined();
    r->in.stopping = es.stopping;
    r->in.state.cancel = {r->in.stopping.get(), nullptr, nullptr};
    napi_value promise, name;
    NAPI_THROW_IF_FAILED(env, napi_create_promise(env, &r->deferred, &promise), Napi::Value());
    NAPI_THROW_IF_FAILED(env, napi_create_string_utf8(env, "node-vllm-cpp:render", NAPI_AUTO_LENGTH, &name), Napi::Value());
    NAPI_THROW_IF_FAILED(env, napi_create_async_work(env, nullptr, name, AsyncRender::execute, AsyncRender::complete, r.get(), &r->work),
                         Napi::Value());
    if (napi_queue_async_work(env, r->work) != napi_ok) {
      napi_delete_async_work(env, r->work);
      NAPI_THROW(Napi::Error::New(env, "could not queue the render"), Napi::Value());
    }
    start_probe(es);
    r.release();  // owned by the async work until complete()
    return Napi::Value(env, promise);
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

// planRequest(text, config): [rest, ticket, ...unplannedShapes]
// for a request this thread can build from plans (conversation/plan); false
// for one that continues a request shaped here recently; else null.
Napi::Value PlanRequest(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 2 || !info[0].IsString() || !info[1].IsString()) {
    Napi::TypeError::New(env, "planRequest(text, config)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  std::string text;
  read_utf8(env, info[0], text);
  std::string config = info[1].As<Napi::String>().Utf8Value();
  nvc::ShapeReport report;
  bool ok = false;
  Failure failure;
  if (!guarded([&] { ok = nvc::shape_request(std::move(text), config, report); }, failure)) {
    to_js_error(env, failure).ThrowAsJavaScriptException();
    return env.Undefined();
  }
  if (!ok) return report.continues ? Napi::Value(Napi::Boolean::New(env, false)) : env.Null();
  Napi::Array out = Napi::Array::New(env, 2 + report.unplanned.size());
  out.Set(0u, Napi::String::New(env, report.rest));
  out.Set(1u, Napi::Number::New(env, double(report.ticket)));
  for (size_t i = 0; i < report.unplanned.size(); ++i) out.Set(uint32_t(2 + i), Napi::String::New(env, report.unplanned[i]));
  return out;
}

// keepPlans([config, shape, plan, ...]): plans to keep without a render
// (shapes the package could not plan: an empty plan).
Napi::Value KeepPlans(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsArray()) {
    Napi::TypeError::New(env, "keepPlans(plans)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  Napi::Array a = info[0].As<Napi::Array>();
  const uint32_t n = a.Length();
  if (n == 0) return env.Undefined();
  std::string config = a.Get(0u).As<Napi::String>().Utf8Value();
  std::vector<std::pair<std::string, std::string>> plans;
  for (uint32_t i = 1; i + 1 < n; i += 2) plans.emplace_back(a.Get(i).As<Napi::String>().Utf8Value(), a.Get(i + 1).As<Napi::String>().Utf8Value());
  Failure failure;
  if (!guarded([&] { nvc::add_plans(config, plans); }, failure)) to_js_error(env, failure).ThrowAsJavaScriptException();
  return env.Undefined();
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  nvc::RegisterEngine(env, exports);
  exports.Set("CompiledTemplate", CompiledTemplate::Init(env));
  exports.Set("pyReprOfJson", Napi::Function::New(env, PyRepr));
  exports.Set("planRequest", Napi::Function::New(env, PlanRequest));
  exports.Set("keepPlans", Napi::Function::New(env, KeepPlans));
  exports.Set("jsonValueEnd", Napi::Function::New(env, nvc_addon::JsonValueEnd));
  exports.Set("jsonMembers", Napi::Function::New(env, nvc_addon::JsonMembers));
  exports.Set("jsonQuoteUtf8", Napi::Function::New(env, nvc_addon::JsonQuoteUtf8));
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
