// libFuzzer target: the input is a template source. It is compiled and
// rendered against a realistic chat context (context.h) under tight resource
// limits, as an untrusted template would be. Any jinja::Error is an expected
// outcome; a crash, sanitizer report, timeout, out-of-memory or any other
// exception escaping the engine is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

#include "context.h"
#include "errors.h"
#include "json.h"
#include "template.h"
#include "value.h"

namespace {

const jinja::Value& context() {
  static const jinja::Value ctx = [] {
    jinja::Value v = jinja::json_loads(fuzzctx::kContextJson);
    v.as_dict().freeze();
    return v;
  }();
  return ctx;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 64 * 1024) return -1;  // keep inputs template-sized
  std::string_view source(reinterpret_cast<const char*>(data), size);
  const jinja::Value& ctx = context();
  try {
    auto tpl = jinja::compile(source);
    (void)jinja::undeclared_variables(*tpl);
    (void)jinja::detect_content_format(*tpl);
    jinja::RenderState st;
    st.now = jinja::DateTime{2026, 1, 15, 10, 30, 5, 0};
    // Tighter than the addon's defaults so one input stays fast; the engine
    // must enforce them whatever the template does.
    st.limits.max_output_bytes = 1u << 20;
    st.limits.max_steps = 200'000;
    st.limits.max_collection = 100'000;
    std::string out = jinja::render(*tpl, ctx.as_dict(), st);
    if (out.size() > st.limits.max_output_bytes) {
      std::fprintf(stderr, "output of %zu bytes exceeds max_output_bytes\n", out.size());
      std::abort();
    }
  } catch (const jinja::Error&) {
    // a typed template error: what Python would raise
  } catch (const std::exception& e) {
    std::fprintf(stderr, "untyped exception escaped the engine: %s\n", e.what());
    std::abort();
  }
  return 0;
}
