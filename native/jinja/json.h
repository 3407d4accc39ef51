// JSON in and out with Python's json module semantics.
#pragma once

#include <optional>
#include <memory>
#include <string>
#include <string_view>

#include "value.h"

namespace jinja {

struct JsonDumpsOptions {
  std::optional<std::string> indent;           // None, or the indent string (int n -> n spaces)
  std::optional<std::string> item_separator;   // default ", " (or "," when indent is set)
  std::optional<std::string> key_separator;    // default ": "
  bool sort_keys = false;
  bool ensure_ascii = false;
};

// json.dumps(v, ...). Non-JSON values (Undefined, functions, objects) raise
// TypeError ("Object of type Undefined is not JSON serializable").
std::string json_dumps(const Value& v, const JsonDumpsOptions& options);
// The same as a str value (the |tojson filter), without rescanning the text.
Value json_dumps_value(const Value& v, const JsonDumpsOptions& options);

// Appends `s` (UTF-8) as a JSON string literal, as json.dumps writes it
// (ensure_ascii: non-ASCII as \u escapes). Returns whether it wrote any
// non-ASCII byte.
bool json_append_string(std::string& out, std::string_view s, bool ensure_ascii);

// json.loads(text): key order kept, duplicate keys keep the first position
// with the last value, exact big ints, int/float split, NaN/Infinity/-Infinity.
// Throws Error(ErrorKind::Json, "JSONDecodeError", "<Python's message>").
Value json_loads(std::string_view text);

// Parses a run of small JSON texts (one request's tool-call arguments) with
// one parser, whose buffers and key memo carry over, and one arena for the
// values of all of them. Each load has json_loads's semantics.
class JsonLoader {
 public:
  // `first_chunk`: bytes of the arena's first chunk (about 4 per JSON byte).
  explicit JsonLoader(size_t first_chunk);
  ~JsonLoader();
  JsonLoader(const JsonLoader&) = delete;
  JsonLoader& operator=(const JsonLoader&) = delete;
  Value load(std::string_view text);

 private:
  struct State;
  std::unique_ptr<State> st_;
};

// The one JSON value that starts at `at` in `text` (whitespace before it
// skipped), with json_loads's semantics; `end` is set just past it. What
// follows it is not read.
Value json_loads_value_at(std::string_view text, size_t at, size_t& end);

// json_loads of a template context as the package serializes it (an object
// whose first member is `"messages":[`, no whitespace before it): the value
// is exactly json_loads(text)'s. The leading items of that list are taken
// from a context parsed on this thread before where their bytes, and the
// byte after them, are the same. A context that continues a recent one
// keeps its items for the next (up to 8 contexts, 4 MiB of text); of one
// that does not, only its text is kept (as many), so that the first context
// continuing it is known as such. The members after the list (tools,
// documents, kwargs) are taken parsed from a recent context whose text
// after its list is byte for byte this one's (up to 4, 256 KiB each).
Value json_loads_context(std::string_view text);

}  // namespace jinja
