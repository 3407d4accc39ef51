// Python semantics of the operators and protocols the evaluator needs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "value.h"

namespace jinja {

enum class BinOp { Add, Sub, Mul, Div, FloorDiv, Mod, Pow };
enum class CmpOp { Eq, Ne, Lt, Le, Gt, Ge };

bool truthy(const Value& v);                          // Python bool(); Undefined is falsy
Value binary_op(BinOp op, const Value& a, const Value& b);  // TypeError / ZeroDivisionError as Python
Value negate(const Value& v);                          // unary -
Value unary_plus(const Value& v);                      // unary +
Value concat(const Value& a, const Value& b);          // the ~ operator: str(a) + str(b)
bool py_equal(const Value& a, const Value& b);         // ==
bool compare(CmpOp op, const Value& a, const Value& b);  // TypeError on unorderable types
bool contains(const Value& container, const Value& item);  // `item in container`
// Iteration protocol for for-loops and filters: list/tuple items, dict keys,
// string code points; Undefined iterates as empty; None and other scalars
// raise TypeError ("'NoneType' object is not iterable").
std::vector<Value> iterate(const Value& v);
size_t py_len(const Value& v);                        // len(); TypeError when unsized
std::string type_name(const Value& v);                // Python class name: "str", "dict", "NoneType", ...
// Undefined misuse: raise the undefined's error (UndefinedError / SecurityError).
[[noreturn]] void fail_undefined(const Value& undefined);

// Jinja2 sandboxed attribute/item access.
// x.name : Python attribute first (str/dict/list methods as bound methods,
//          Object attributes), then item; underscore names -> undefined;
//          mutating methods -> an undefined that raises SecurityError when used.
// x[key] : item first, then attribute (for string keys).
// Either one on an Undefined raises UndefinedError; a miss yields an
// undefined whose hint reads like Jinja2's ("'dict object' has no attribute 'x'").
Value get_attr(RenderState& st, const Value& obj, std::string_view name);
Value get_item(RenderState& st, const Value& obj, const Value& key);
// obj[start:stop:step] with Python slice semantics (by code point for str).
Value slice(const Value& obj, const std::optional<Value>& start, const std::optional<Value>& stop,
            const std::optional<Value>& step);
// Call a Function or callable Object; TypeError "'x' object is not callable" otherwise;
// an Undefined callee raises its undefined error.
Value call_value(RenderState& st, const Value& callee, CallArgs& args);

// Additions:
// Python getattr only (no item fallback), sandboxed; what the |attr filter uses.
Value get_python_attr(RenderState& st, const Value& obj, std::string_view name);
// A Markup string (|safe, |escape results): prints the same, escapes on `+`/`%`.
Value make_markup(std::string s);

}  // namespace jinja
