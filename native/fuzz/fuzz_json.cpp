// libFuzzer target: the context-JSON parser (json.cpp), which decodes every
// render's template variables. Besides crashing, it must be a fixed point
// after one round trip: dumps(loads(dumps(loads(x)))) == dumps(loads(x)).
// And json_loads_context, which takes the leading `messages` items and the
// members after them from contexts parsed before on this thread, must give
// what json_loads gives (value or error): the input, split at its first NUL
// byte, makes two contexts `{"messages":[` + part, parsed in turn (the kept
// contexts carry over from input to input).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

#include "errors.h"
#include "json.h"
#include "value.h"

namespace {

// dumps of the value, or the error's type and message.
std::string outcome(std::string_view text, bool context) {
  try {
    return "ok " + jinja::json_dumps(context ? jinja::json_loads_context(text) : jinja::json_loads(text), {});
  } catch (const jinja::Error& e) {
    return "error " + e.python_type + ": " + e.what();
  }
}

void check_context_reuse(std::string_view input) {
  const size_t nul = input.find('\0');
  const std::string first = "{\"messages\":[" + std::string(input.substr(0, nul));
  const std::string second = "{\"messages\":[" + std::string(nul == std::string_view::npos ? input : input.substr(nul + 1));
  for (const std::string* text : {&first, &second, &first, &second}) {
    std::string kept, whole;
    try {
      kept = outcome(*text, true);
      whole = outcome(*text, false);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "untyped exception parsing a context: %s\n", e.what());
      std::abort();
    }
    if (kept != whole) {
      std::fprintf(stderr, "json_loads_context differs from json_loads on %s:\n  %s\n  %s\n", text->c_str(), kept.c_str(), whole.c_str());
      std::abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 256 * 1024) return -1;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  check_context_reuse(text);
  jinja::Value v;
  try {
    v = jinja::json_loads(text);
  } catch (const jinja::Error&) {
    return 0;  // Python's JSONDecodeError / ValueError
  } catch (const std::exception& e) {
    std::fprintf(stderr, "untyped exception escaped json_loads: %s\n", e.what());
    std::abort();
  }
  try {
    std::string once = jinja::json_dumps(v, {});
    std::string twice = jinja::json_dumps(jinja::json_loads(once), {});
    if (once != twice) {
      std::fprintf(stderr, "round trip differs:\n  %s\n  %s\n", once.c_str(), twice.c_str());
      std::abort();
    }
  } catch (const jinja::Error& e) {
    std::fprintf(stderr, "re-reading the parser's own output failed: %s\n", e.what());
    std::abort();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "untyped exception in the round trip: %s\n", e.what());
    std::abort();
  }
  return 0;
}
