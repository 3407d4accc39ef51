// Error types raised by the engine. Native code throws these internally; the
// N-API layer (native/addon) converts them into typed JS errors. Nothing else
// may escape the addon boundary.
#pragma once

#include <stdexcept>
#include <string>

namespace jinja {

enum class ErrorKind {
  Syntax,    // TemplateSyntaxError (line:col always set)
  Runtime,   // any error while rendering (python_type says which Python class)
  Security,  // the sandbox refused an operation (SecurityError)
  Raised,    // raise_exception(msg) called by the template (TemplateError)
  Limit,     // a resource bound was hit (depth, steps, output size)
  Json,      // malformed JSON handed to the native parser
};

class Error : public std::runtime_error {
 public:
  // python_type: the class name Python would raise for the same failure, e.g.
  // "TemplateSyntaxError", "UndefinedError", "TypeError", "SecurityError",
  // "TemplateError", "TemplateRuntimeError", "ValueError", "ZeroDivisionError",
  // "KeyError", "IndexError", "OverflowError", "AttributeError".
  Error(ErrorKind kind, std::string python_type, const std::string& message, int line = 0, int column = 0)
      : std::runtime_error(message), kind(kind), python_type(std::move(python_type)), line(line), column(column) {}

  ErrorKind kind;
  std::string python_type;
  int line;    // 1-based; 0 when unknown
  int column;  // 1-based; 0 when unknown
  // Filled by the evaluator as the error unwinds: the construct being
  // evaluated, e.g. "filter 'tojson'", "call to 'raise_exception'", "for loop".
  std::string construct;
};

[[noreturn]] inline void throw_type_error(const std::string& msg) {
  throw Error(ErrorKind::Runtime, "TypeError", msg);
}
[[noreturn]] inline void throw_undefined_error(const std::string& msg) {
  throw Error(ErrorKind::Runtime, "UndefinedError", msg);
}
[[noreturn]] inline void throw_runtime_error(const std::string& python_type, const std::string& msg) {
  throw Error(ErrorKind::Runtime, python_type, msg);
}
[[noreturn]] inline void throw_security_error(const std::string& msg) {
  throw Error(ErrorKind::Security, "SecurityError", msg);
}

}  // namespace jinja
