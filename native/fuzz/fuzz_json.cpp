// libFuzzer target: the context-JSON parser (json.cpp), which decodes every
// render's template variables. Besides crashing, it must be a fixed point
// after one round trip: dumps(loads(dumps(loads(x)))) == dumps(loads(x)).
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

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 256 * 1024) return -1;
  std::string_view text(reinterpret_cast<const char*>(data), size);
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
