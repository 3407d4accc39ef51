// N-API glue for the generation bridge: a loaded libvllm engine and its
// requests. Mechanism only — the TypeScript layer (src/engine) decides
// sampling defaults, prompts, paths and parsing.
//
// Threading: every generation runs on a thread of its own (libvllm's entry
// points block or deliver from library threads); results reach JS through a
// per-request thread-safe function, so the event loop never waits on the
// engine. Engine load and close run on the libuv pool. An environment
// cleanup hook cancels and drains every request when the environment goes
// away (worker termination, process exit) before the engine is freed.
#include <napi.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "engine/abi.h"
#include "engine/library.h"

namespace nvc {
namespace {

// ---------------------------------------------------------------- errors

Napi::Error EngineFailure(Napi::Env env, const std::string& kind, const std::string& message,
                          int32_t status = -1) {
  Napi::Error err = Napi::Error::New(env, message);
  err.Set("kind", Napi::String::New(env, kind));
  if (status >= 0) err.Set("vllmStatus", Napi::String::New(env, abi::StatusName(status)));
  return err;
}

std::string LastError(const Library& lib) {
  const char* e = lib.api.last_error();
  return e ? e : "";
}

// ---------------------------------------------------------------- sampling

// Owns the strings a SamplingParams borrows for the duration of a call.
struct OwnedSampling {
  abi::SamplingParams p{};
  std::vector<std::string> stop;
  std::vector<const char*> stop_ptrs;
  std::vector<std::string> choice;
  std::vector<const char*> choice_ptrs;
  std::string json, regex, grammar;
  bool has_json = false, has_regex = false, has_grammar = false;

  void Finalize() {
    stop_ptrs.clear();
    for (auto& s : stop) stop_ptrs.push_back(s.c_str());
    choice_ptrs.clear();
    for (auto& s : choice) choice_ptrs.push_back(s.c_str());
    p.stop = stop_ptrs.empty() ? nullptr : stop_ptrs.data();
    p.n_stop = static_cast<int32_t>(stop_ptrs.size());
    p.structured_choice = choice_ptrs.empty() ? nullptr : choice_ptrs.data();
    p.n_structured_choice = static_cast<int32_t>(choice_ptrs.size());
    p.structured_json = has_json ? json.c_str() : nullptr;
    p.structured_regex = has_regex ? regex.c_str() : nullptr;
    p.structured_grammar = has_grammar ? grammar.c_str() : nullptr;
  }
};

double NumberField(const Napi::Object& o, const char* key, double fallback) {
  Napi::Value v = o.Get(key);
  return v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : fallback;
}

std::vector<std::string> StringList(const Napi::Object& o, const char* key) {
  std::vector<std::string> out;
  Napi::Value v = o.Get(key);
  if (!v.IsArray()) return out;
  Napi::Array a = v.As<Napi::Array>();
  for (uint32_t i = 0; i < a.Length(); ++i) {
    Napi::Value item = a.Get(i);
    if (!item.IsString()) throw Napi::TypeError::New(o.Env(), std::string(key) + " must hold strings");
    out.push_back(item.As<Napi::String>().Utf8Value());
  }
  return out;
}

bool OptString(const Napi::Object& o, const char* key, std::string& out) {
  Napi::Value v = o.Get(key);
  if (!v.IsString()) return false;
  out = v.As<Napi::String>().Utf8Value();
  return true;
}

std::unique_ptr<OwnedSampling> ToSampling(const Library& lib, const Napi::Object& o) {
  auto s = std::make_unique<OwnedSampling>();
  s->p = lib.api.sampling_params_default();
  abi::SamplingParams& p = s->p;
  p.temperature = static_cast<float>(NumberField(o, "temperature", p.temperature));
  p.top_p = static_cast<float>(NumberField(o, "top_p", p.top_p));
  p.top_k = static_cast<int32_t>(NumberField(o, "top_k", p.top_k));
  p.min_p = static_cast<float>(NumberField(o, "min_p", p.min_p));
  p.max_tokens = static_cast<int32_t>(NumberField(o, "max_tokens", 0));
  p.presence_penalty = static_cast<float>(NumberField(o, "presence_penalty", 0));
  p.frequency_penalty = static_cast<float>(NumberField(o, "frequency_penalty", 0));
  p.repetition_penalty = static_cast<float>(NumberField(o, "repetition_penalty", 1));
  p.min_tokens = static_cast<int32_t>(NumberField(o, "min_tokens", 0));
  p.ignore_eos = o.Get("ignore_eos").ToBoolean().Value() ? 1 : 0;
  Napi::Value seed = o.Get("seed");
  p.has_seed = 0;
  p.seed = 0;
  if (seed.IsBigInt()) {
    bool lossless = false;
    p.seed = static_cast<uint64_t>(seed.As<Napi::BigInt>().Int64Value(&lossless));
    p.has_seed = 1;
  } else if (seed.IsNumber()) {
    p.seed = static_cast<uint64_t>(seed.As<Napi::Number>().Int64Value());
    p.has_seed = 1;
  }
  s->stop = StringList(o, "stop");
  s->choice = StringList(o, "structured_choice");
  s->has_json = OptString(o, "structured_json", s->json);
  s->has_regex = OptString(o, "structured_regex", s->regex);
  s->has_grammar = OptString(o, "structured_grammar", s->grammar);
  p.structured_json_object = o.Get("structured_json_object").ToBoolean().Value() ? 1 : 0;
  s->Finalize();
  return s;
}

// ---------------------------------------------------------------- engine core

class Request;

// The loaded engine, shared by its JS wrapper, its requests' threads and the
// environment cleanup hook. Freed (vllm_engine_free) only once every request
// thread has finished with it.
struct EngineCore {
  std::shared_ptr<const Library> lib;
  abi::Engine* handle = nullptr;
  std::mutex mu;
  std::condition_variable drained;
  std::set<std::shared_ptr<Request>> live;
  bool closing = false;
  bool freed = false;

  void CancelAll();
  // Waits (at most `limit`) for every request thread to finish, then frees
  // the engine. Returns false when threads were still running at the limit:
  // the engine is then left allocated rather than freed under them.
  bool DrainAndFree(std::chrono::milliseconds limit);
};

// What a request thread reports back to JS.
struct Event {
  bool end = false;
  std::string text;  // delta text (or chunk JSON)
  int32_t status = 0;
  std::string error;
  std::string finish;
  int32_t prompt_tokens = -1;
  int32_t completion_tokens = -1;
  bool cancelled = false;
};

// Runs on the JS thread. Raw N-API with every status ignored: while a worker
// is being terminated JS can no longer run, calls fail without an exception
// to fetch, and nothing here may throw. An exception the JS callback itself
// throws stays pending and is reported as an uncaught exception, as for any
// thread-safe function.
void SetString(napi_env env, napi_value obj, const char* key, const std::string& value) {
  napi_value v;
  if (napi_create_string_utf8(env, value.data(), value.size(), &v) == napi_ok) napi_set_named_property(env, obj, key, v);
}

void SetNumber(napi_env env, napi_value obj, const char* key, double value) {
  napi_value v;
  if (napi_create_double(env, value, &v) == napi_ok) napi_set_named_property(env, obj, key, v);
}

void DeliverEvent(Napi::Env env, Napi::Function callback, Event* ev) {
  std::unique_ptr<Event> owned(ev);
  if (env == nullptr || callback.IsEmpty()) return;
  napi_env e = env;
  napi_value kind, payload, undefined, result;
  if (napi_get_undefined(e, &undefined) != napi_ok) return;
  const char* kind_text = ev->end ? "end" : "delta";
  if (napi_create_string_utf8(e, kind_text, NAPI_AUTO_LENGTH, &kind) != napi_ok) return;
  if (!ev->end) {
    if (napi_create_string_utf8(e, ev->text.data(), ev->text.size(), &payload) != napi_ok) return;
  } else {
    if (napi_create_object(e, &payload) != napi_ok) return;
    SetNumber(e, payload, "status", ev->status);
    SetString(e, payload, "statusName", abi::StatusName(ev->status));
    SetString(e, payload, "error", ev->error);
    napi_value cancelled;
    if (napi_get_boolean(e, ev->cancelled, &cancelled) == napi_ok) napi_set_named_property(e, payload, "cancelled", cancelled);
    if (!ev->finish.empty()) SetString(e, payload, "finishReason", ev->finish);
    if (!ev->text.empty()) SetString(e, payload, "text", ev->text);
    if (ev->prompt_tokens >= 0) SetNumber(e, payload, "promptTokens", ev->prompt_tokens);
    if (ev->completion_tokens >= 0) SetNumber(e, payload, "completionTokens", ev->completion_tokens);
  }
  napi_value args[2] = {kind, payload};
  napi_call_function(e, undefined, callback, 2, args, &result);
}

enum class Kind { Chat, Submit, Complete };

class Request {
 public:
  Request(std::shared_ptr<EngineCore> core, Kind kind, std::string input, std::unique_ptr<OwnedSampling> sampling,
          Napi::ThreadSafeFunction tsfn)
      : core_(std::move(core)), kind_(kind), input_(std::move(input)), sampling_(std::move(sampling)),
        tsfn_(std::move(tsfn)) {}

  static void Start(const std::shared_ptr<Request>& self) {
    std::thread([self]() { self->Run(); }).detach();
  }

  void Cancel() {
    cancelled_.store(true);
    std::lock_guard<std::mutex> lock(req_mu_);
    if (req_ != nullptr) core_->lib->api.request_cancel(req_);
  }

 private:
  static bool OnDelta(const char* text, bool finished, void* user) {
    auto* self = static_cast<Request*>(user);
    if (self->cancelled_.load()) return false;
    if (text != nullptr && text[0] != '\0') {
      auto* ev = new Event();
      ev->text = text;
      self->Post(ev);
    }
    (void)finished;
    return !self->cancelled_.load();
  }

  void Post(Event* ev) {
    if (tsfn_.NonBlockingCall(ev, DeliverEvent) != napi_ok) delete ev;
  }

  void Run() noexcept {
    auto* ev = new Event();
    try {
      const abi::Api& api = core_->lib->api;
      if (kind_ == Kind::Chat) {
        ev->status = api.chat_stream(core_->handle, input_.c_str(), &Request::OnDelta, this);
        if (ev->status != abi::kOk) ev->error = LastError(*core_->lib);
      } else if (kind_ == Kind::Complete) {
        abi::Completion out{};
        ev->status = api.complete(core_->handle, input_.c_str(), &sampling_->p, &out);
        if (ev->status == abi::kOk) {
          if (out.text != nullptr) ev->text = out.text;
          if (out.finish_reason != nullptr) ev->finish = out.finish_reason;
          ev->prompt_tokens = out.prompt_tokens;
          ev->completion_tokens = out.completion_tokens;
          api.completion_free(&out);
        } else {
          ev->error = LastError(*core_->lib);
        }
      } else {
        abi::Request* req = nullptr;
        ev->status = api.request_submit(core_->handle, input_.c_str(), &sampling_->p, &Request::OnDelta, this, &req);
        if (ev->status != abi::kOk) {
          ev->error = LastError(*core_->lib);
        } else {
          {
            std::lock_guard<std::mutex> lock(req_mu_);
            req_ = req;
          }
          if (cancelled_.load()) api.request_cancel(req);
          ev->status = api.request_wait(req);
          if (ev->status != abi::kOk) {
            ev->error = LastError(*core_->lib);
            if (ev->error.empty()) ev->error = api.request_error(req);
          }
          std::lock_guard<std::mutex> lock(req_mu_);
          api.request_free(req);
          req_ = nullptr;
        }
      }
    } catch (const std::exception& e) {
      ev->status = abi::kUnknown;
      ev->error = e.what();
    } catch (...) {
      ev->status = abi::kUnknown;
      ev->error = "unknown failure in the engine thread";
    }
    ev->end = true;
    ev->cancelled = cancelled_.load();
    Post(ev);
    tsfn_.Release();
    Finish();
  }

  void Finish();

  std::shared_ptr<EngineCore> core_;
  Kind kind_;
  std::string input_;
  std::unique_ptr<OwnedSampling> sampling_;
  Napi::ThreadSafeFunction tsfn_;
  std::atomic<bool> cancelled_{false};
  std::mutex req_mu_;
  abi::Request* req_ = nullptr;

  friend struct EngineCore;
};

void Request::Finish() {
  std::shared_ptr<EngineCore> core = core_;
  std::lock_guard<std::mutex> lock(core->mu);
  for (auto it = core->live.begin(); it != core->live.end(); ++it) {
    if (it->get() == this) {
      core->live.erase(it);  // may drop the last reference held by the set
      break;
    }
  }
  core->drained.notify_all();
}

void EngineCore::CancelAll() {
  std::vector<std::shared_ptr<Request>> snapshot;
  {
    std::lock_guard<std::mutex> lock(mu);
    snapshot.assign(live.begin(), live.end());
  }
  for (auto& r : snapshot) r->Cancel();
}

bool EngineCore::DrainAndFree(std::chrono::milliseconds limit) {
  {
    std::lock_guard<std::mutex> lock(mu);
    closing = true;
  }
  CancelAll();
  std::unique_lock<std::mutex> lock(mu);
  if (!drained.wait_for(lock, limit, [this] { return live.empty(); })) return false;
  if (!freed && handle != nullptr) {
    freed = true;
    abi::Engine* h = handle;
    handle = nullptr;
    lock.unlock();
    lib->api.engine_free(h);
  }
  return true;
}

// ---------------------------------------------------------------- JS objects
//
// Engine and request handles are plain objects whose methods close over the
// shared core: no per-process constructor references, so every environment
// (main thread, each worker) is independent.

void CleanupHook(void* arg) {
  auto* holder = static_cast<std::shared_ptr<EngineCore>*>(arg);
  // Bounded: a blocking completion cannot be interrupted; past the limit the
  // engine is left allocated instead of being freed under a running thread.
  (*holder)->DrainAndFree(std::chrono::milliseconds(10000));
  delete holder;
}

class CloseWorker : public Napi::AsyncWorker {
 public:
  CloseWorker(Napi::Env env, std::shared_ptr<EngineCore> core)
      : Napi::AsyncWorker(env), core_(std::move(core)), deferred_(Napi::Promise::Deferred::New(env)) {}
  Napi::Promise Promise() { return deferred_.Promise(); }
  void Execute() override { drained_ = core_->DrainAndFree(std::chrono::hours(24)); }
  void OnOK() override { deferred_.Resolve(Napi::Boolean::New(Env(), drained_)); }
  void OnError(const Napi::Error& e) override { deferred_.Reject(e.Value()); }

 private:
  std::shared_ptr<EngineCore> core_;
  Napi::Promise::Deferred deferred_;
  bool drained_ = false;
};

Napi::Value StartRequest(const Napi::CallbackInfo& info, const std::shared_ptr<EngineCore>& core, Kind kind) {
  Napi::Env env = info.Env();
  size_t cb_index = kind == Kind::Chat ? 1 : 2;
  if (info.Length() <= cb_index || !info[0].IsString() || !info[cb_index].IsFunction()) {
    throw Napi::TypeError::New(env, "expected (text, [params,] callback)");
  }
  std::unique_ptr<OwnedSampling> sampling;
  if (kind != Kind::Chat) {
    if (!info[1].IsObject()) throw Napi::TypeError::New(env, "params must be an object");
    sampling = ToSampling(*core->lib, info[1].As<Napi::Object>());
  }
  {
    std::lock_guard<std::mutex> lock(core->mu);
    if (core->closing || core->freed) throw EngineFailure(env, "closed", "the engine is closed");
  }
  Napi::ThreadSafeFunction tsfn =
      Napi::ThreadSafeFunction::New(env, info[cb_index].As<Napi::Function>(), "node-vllm-cpp request", 0, 1);
  auto req = std::make_shared<Request>(core, kind, info[0].As<Napi::String>().Utf8Value(), std::move(sampling), tsfn);
  {
    std::lock_guard<std::mutex> lock(core->mu);
    if (core->closing || core->freed) {
      tsfn.Release();
      throw EngineFailure(env, "closed", "the engine is closed");
    }
    core->live.insert(req);
  }
  Request::Start(req);
  std::weak_ptr<Request> weak = req;
  Napi::Object handle = Napi::Object::New(env);
  handle.Set("cancel", Napi::Function::New(
                           env,
                           [weak](const Napi::CallbackInfo& ci) -> Napi::Value {
                             if (auto r = weak.lock()) r->Cancel();
                             return ci.Env().Undefined();
                           },
                           "cancel"));
  return handle;
}

Napi::Object MakeEngineObject(Napi::Env env, const std::shared_ptr<EngineCore>& core) {
  napi_add_env_cleanup_hook(env, CleanupHook, new std::shared_ptr<EngineCore>(core));
  Napi::Object o = Napi::Object::New(env);
  const std::pair<const char*, Kind> kinds[] = {
      {"chatStream", Kind::Chat}, {"submit", Kind::Submit}, {"complete", Kind::Complete}};
  for (const auto& [name, kind] : kinds) {
    Kind k = kind;
    o.Set(name, Napi::Function::New(
                    env, [core, k](const Napi::CallbackInfo& ci) { return StartRequest(ci, core, k); }, name));
  }
  o.Set("close", Napi::Function::New(
                     env,
                     [core](const Napi::CallbackInfo& ci) -> Napi::Value {
                       auto* w = new CloseWorker(ci.Env(), core);
                       Napi::Promise p = w->Promise();
                       w->Queue();
                       return p;
                     },
                     "close"));
  o.Set("liveRequests", Napi::Function::New(
                            env,
                            [core](const Napi::CallbackInfo& ci) -> Napi::Value {
                              std::lock_guard<std::mutex> lock(core->mu);
                              return Napi::Number::New(ci.Env(), static_cast<double>(core->live.size()));
                            },
                            "liveRequests"));
  o.Set("libraryVersion", Napi::String::New(env, core->lib->version));
  o.Set("libraryPath", Napi::String::New(env, core->lib->path));
  return o;
}

// ---------------------------------------------------------------- load

class LoadWorker : public Napi::AsyncWorker {
 public:
  LoadWorker(Napi::Env env, std::shared_ptr<const Library> lib, Napi::Object opts)
      : Napi::AsyncWorker(env), lib_(std::move(lib)), deferred_(Napi::Promise::Deferred::New(env)) {
    model_ = opts.Get("model").ToString().Utf8Value();
    block_size_ = static_cast<int32_t>(NumberField(opts, "blockSize", 0));
    num_blocks_ = static_cast<int32_t>(NumberField(opts, "numBlocks", 0));
    max_model_len_ = static_cast<int32_t>(NumberField(opts, "maxModelLen", 0));
    max_num_seqs_ = static_cast<int32_t>(NumberField(opts, "maxNumSeqs", 0));
    has_tool_parser_ = OptString(opts, "toolParser", tool_parser_);
    has_reasoning_parser_ = OptString(opts, "reasoningParser", reasoning_parser_);
  }
  Napi::Promise Promise() { return deferred_.Promise(); }

  void Execute() override {
    abi::ModelParams p = lib_->api.model_params_default();
    p.model_path = model_.c_str();
    if (block_size_ > 0) p.block_size = block_size_;
    if (num_blocks_ > 0) p.num_blocks = num_blocks_;
    if (max_model_len_ > 0) p.max_model_len = max_model_len_;
    if (max_num_seqs_ > 0) p.max_num_seqs = max_num_seqs_;
    if (has_tool_parser_) p.tool_parser = tool_parser_.c_str();
    if (has_reasoning_parser_) p.reasoning_parser = reasoning_parser_.c_str();
    status_ = lib_->api.engine_load(&p, &handle_);
    if (status_ != abi::kOk) error_ = LastError(*lib_);
  }

  void OnOK() override {
    Napi::Env env = Env();
    if (status_ != abi::kOk || handle_ == nullptr) {
      deferred_.Reject(EngineFailure(env, "load", error_.empty() ? "engine load failed" : error_, status_).Value());
      return;
    }
    auto core = std::make_shared<EngineCore>();
    core->lib = lib_;
    core->handle = handle_;
    deferred_.Resolve(MakeEngineObject(env, core));
  }
  void OnError(const Napi::Error& e) override { deferred_.Reject(e.Value()); }

 private:
  std::shared_ptr<const Library> lib_;
  Napi::Promise::Deferred deferred_;
  std::string model_, tool_parser_, reasoning_parser_;
  bool has_tool_parser_ = false, has_reasoning_parser_ = false;
  int32_t block_size_ = 0, num_blocks_ = 0, max_model_len_ = 0, max_num_seqs_ = 0;
  int32_t status_ = 0;
  std::string error_;
  abi::Engine* handle_ = nullptr;
};

std::shared_ptr<const Library> OpenLibrary(Napi::Env env, const Napi::Value& path) {
  if (!path.IsString()) throw Napi::TypeError::New(env, "library path must be a string");
  try {
    return OpenLibvllm(path.As<Napi::String>().Utf8Value());
  } catch (const LibraryError& e) {
    throw EngineFailure(env, "unavailable", e.what());
  }
}

// loadEngine(libraryPath, { model, blockSize, numBlocks, maxModelLen, maxNumSeqs, toolParser, reasoningParser })
Napi::Value LoadEngine(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 2 || !info[1].IsObject()) throw Napi::TypeError::New(env, "expected (libraryPath, options)");
  std::shared_ptr<const Library> lib = OpenLibrary(env, info[0]);
  auto* w = new LoadWorker(env, lib, info[1].As<Napi::Object>());
  Napi::Promise p = w->Promise();
  w->Queue();
  return p;
}

// libraryInfo(libraryPath) -> { path, version, abiVersion }
Napi::Value LibraryInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::shared_ptr<const Library> lib = OpenLibrary(env, info[0]);
  Napi::Object o = Napi::Object::New(env);
  o.Set("path", Napi::String::New(env, lib->path));
  o.Set("version", Napi::String::New(env, lib->version));
  o.Set("abiVersion", Napi::Number::New(env, lib->abi_version));
  return o;
}

}  // namespace

void RegisterEngine(Napi::Env env, Napi::Object exports) {
  Napi::Object engine = Napi::Object::New(env);
  engine.Set("loadEngine", Napi::Function::New(env, LoadEngine));
  engine.Set("libraryInfo", Napi::Function::New(env, LibraryInfo));
  engine.Set("abiVersion", Napi::Number::New(env, abi::kAbiVersion));
  exports.Set("bridge", engine);
}

}  // namespace nvc
