// Methods of builtin types reachable from templates (str, dict, list, tuple),
// returned by attribute lookup as bound methods.
#pragma once

#include <string_view>

#include "value.h"

namespace jinja {

// The attribute `name` of a str/dict/list/tuple value as Python's getattr
// would find it: a bound method, an unsafe-method undefined (SecurityError on
// use) for the mutating methods the immutable sandbox forbids, or false when
// the type has no such attribute.
bool lookup_method(const Value& obj, std::string_view name, Value& out);

// Whether `name` is an attribute of dict itself (a method, safe or not), so
// that getattr finds it before the item of that name.
bool is_dict_attribute(std::string_view name);

// obj.name(args) without building the bound method, when lookup_method would
// bind a safe method of obj's builtin type (the common `s.startswith(x)`
// shape). Returns false, having done nothing, in every other case.
bool call_method_direct(RenderState& st, const Value& obj, std::string_view name, CallArgs& args, Value& out);

// Python's whitespace split / strip helpers shared with filters.
std::vector<Value> str_split_whitespace(std::string_view s, int64_t maxsplit);
std::string str_strip(std::string_view s, const Value* chars, bool left, bool right);

// A dict view object (dict_items / dict_keys / dict_values).
Value make_dict_view(const Value& dict, int which);  // 0 items, 1 keys, 2 values

// The undefined Jinja2's sandbox returns for an unsafe attribute.
Value unsafe_undefined(const Value& obj, std::string_view name);

}  // namespace jinja
