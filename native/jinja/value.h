// The Python value model seen by templates.
//
// A Value is a small tagged handle: scalars inline, everything else behind an
// immutable shared pointer (strings, lists, tuples, dicts, functions) so that
// copying a Value is cheap and compiled templates plus their constants can be
// shared by many threads. The only mutable heap kind is Object (namespace(),
// loop, cycler, joiner), which owns its own synchronisation story: objects are
// created per render and never shared across renders.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pool.h"

namespace jinja {

class Value;
struct RenderState;

enum class Kind : uint8_t {
  Undefined,  // jinja2.Undefined (carries a hint for error messages)
  None,
  Bool,
  Int,     // fits in int64
  BigInt,  // Python int outside int64, exact
  Float,
  Str,     // Unicode text, stored as UTF-8; len/index/slice are by code point
  List,
  Tuple,
  Dict,      // insertion-ordered, keys are hashable Values
  Function,  // builtin, macro or bound method
  Object,    // namespace, loop, cycler, joiner, ...
};

// A charge against the memory budget of the render running on this thread
// (see RenderState::live_bytes): taken when a string or container is
// created during a render, given back when it is destroyed. Values created
// outside renders (compiled constants, parsed contexts) carry none.
struct MemToken {
  uint64_t render = 0;  // RenderState::id of the render charged; 0: none
  size_t bytes = 0;
};
MemToken mem_acquire(size_t bytes);   // throws Error(Limit, "MemoryError") past the budget
void mem_release(const MemToken& t);  // never throws
// Throws Error(Limit, "MemoryError") when `bytes` more than what is alive
// would exceed the budget; producers call it before building large results.
void mem_reserve(size_t bytes);
// Charges `units` evaluation steps for work done inside a builtin.
void work(uint64_t units);
// Holds a charge for a scope (a loop's item list).
struct MemHold {
  MemToken token;
  explicit MemHold(size_t bytes) : token(mem_acquire(bytes)) {}
  ~MemHold() { mem_release(token); }
  MemHold(const MemHold&) = delete;
  MemHold& operator=(const MemHold&) = delete;
};

struct StrData {
  explicit StrData(std::string s);
  // For producers that already know the facts (the JSON parser).
  StrData(std::string s, bool is_ascii, size_t code_points) : utf8(std::move(s)), ascii(is_ascii), length(code_points) { charge(); }
  // The same from bytes the producer does not own (copied once, exactly sized).
  StrData(std::string_view s, bool is_ascii, size_t code_points) : utf8(s), ascii(is_ascii), length(code_points) { charge(); }
  StrData(const StrData& o) : utf8(o.utf8), ascii(o.ascii), length(o.length), markup(o.markup) { charge(); }
  StrData& operator=(const StrData&) = delete;
  ~StrData() { mem_release(mem); }
  std::string utf8;
  bool ascii;           // all bytes < 0x80: code point ops can use bytes
  size_t length;        // number of code points
  bool markup = false;  // produced by |safe / |escape (printing is the same)
  MemToken mem;

 private:
  void charge() { mem = mem_acquire(sizeof(StrData) + utf8.capacity()); }
};

// A str value's data from the per-thread block pool (see pool.h); the
// producers that already know ASCII-ness and length pass them.
std::shared_ptr<const StrData> make_str_data(std::string utf8);
std::shared_ptr<const StrData> make_str_data(std::string utf8, bool is_ascii, size_t code_points);

// A Python int outside int64: sign and binary magnitude (base 2^32 limbs,
// little endian, no leading zero limbs; see bigint.h).
struct BigIntData {
  bool negative = false;
  std::vector<uint32_t> mag;
  MemToken mem;  // charged by Value::big_integer
  BigIntData() = default;
  BigIntData(const BigIntData& o) : negative(o.negative), mag(o.mag) {}
  BigIntData(BigIntData&& o) noexcept : negative(o.negative), mag(std::move(o.mag)) {}
  ~BigIntData() { mem_release(mem); }
};

struct UndefinedData {
  std::string hint;                         // message used when the undefined is misused (see message())
  std::string error_type = "UndefinedError";  // "SecurityError" for unsafe attributes
  // A missing dict item read as an attribute (`message.tool_calls`) keeps
  // only the key: templates mostly test such undefineds (`is defined`) or
  // print them as "", so the message is built only when an error needs it.
  std::string missing_dict_key;
  bool is_missing_dict_key = false;
  std::string message() const {
    if (is_missing_dict_key) return "'dict object' has no attribute '" + missing_dict_key + "'";
    return hint;
  }
};

struct ListData;
class DictData;
struct FunctionData;
class Object;

// Declared before the containers that hold Values, so that they (and the
// standard library's C++20 constexpr containers) see a complete Value.
class Value {
 public:
  Value() : kind_(Kind::Undefined) { num_.i = 0; }  // a plain undefined

  static Value undefined(std::string hint, std::string error_type = "UndefinedError");
  // The undefined for a missing dict attribute (see UndefinedData).
  static Value missing_dict_key(std::string_view key);
  static Value none() { Value v; v.kind_ = Kind::None; return v; }
  static Value boolean(bool b) { Value v; v.kind_ = Kind::Bool; v.num_.b = b; return v; }
  static Value integer(int64_t i) { Value v; v.kind_ = Kind::Int; v.num_.i = i; return v; }
  static Value big_integer(BigIntData data);  // normalises to Int when it fits
  static Value floating(double f) { Value v; v.kind_ = Kind::Float; v.num_.f = f; return v; }
  static Value string(std::string utf8);
  static Value string(std::shared_ptr<const StrData> data);
  static Value list(std::vector<Value> items);
  static Value tuple(std::vector<Value> items);
  // A list whose ListData was allocated by the caller (the JSON parser takes
  // it from its arena); sets the nesting depth like list().
  static Value list_from(std::shared_ptr<ListData> data);
  static Value dict(std::shared_ptr<const DictData> data);
  static Value function(std::shared_ptr<const FunctionData> fn);
  static Value object(std::shared_ptr<Object> obj);

  Kind kind() const { return kind_; }
  bool is_undefined() const { return kind_ == Kind::Undefined; }
  bool is_none() const { return kind_ == Kind::None; }
  bool is_str() const { return kind_ == Kind::Str; }
  bool is_int() const { return kind_ == Kind::Int || kind_ == Kind::BigInt; }  // excludes bool
  bool is_number() const { return kind_ == Kind::Int || kind_ == Kind::BigInt || kind_ == Kind::Float || kind_ == Kind::Bool; }
  bool is_sequence_like() const { return kind_ == Kind::List || kind_ == Kind::Tuple; }

  bool as_bool() const { return num_.b; }
  int64_t as_int() const { return num_.i; }
  double as_float() const { return num_.f; }
  const BigIntData& as_bigint() const { return *static_cast<const BigIntData*>(ptr_.get()); }
  const StrData& str_data() const { return *static_cast<const StrData*>(ptr_.get()); }
  const std::string& as_str() const { return str_data().utf8; }
  const std::vector<Value>& items() const;  // List/Tuple
  const DictData& as_dict() const;
  const FunctionData& as_function() const;
  Object& as_object() const;
  const UndefinedData* undefined_data() const { return static_cast<const UndefinedData*>(ptr_.get()); }  // may be null

  std::shared_ptr<const StrData> str_ptr() const { return std::static_pointer_cast<const StrData>(ptr_); }
  std::shared_ptr<const DictData> dict_ptr() const;
  // The list (List only, not Tuple) or dict that this value alone holds (no
  // other Value shares it), for its holder to change in place before anyone
  // else sees it; null otherwise. Call refresh() on it after the change.
  ListData* sole_list() const;
  DictData* sole_dict() const;
  // Identity of heap values (for `is sameas` and cycle checks).
  const void* identity() const { return ptr_.get(); }

 private:
  Kind kind_;
  union {
    bool b;
    int64_t i;
    double f;
  } num_;
  std::shared_ptr<const void> ptr_;
};

// Containers may nest at most this deep (JSON input, repr and json.dumps use
// the same bound). Values are destroyed recursively, so an unbounded chain
// built by a template loop ({% set ns.x = [ns.x] %}) would overflow the stack.
constexpr size_t kMaxNesting = 1000;

struct ListData {
  std::vector<Value> items;
  uint32_t depth = 1;  // 1 + deepest nested container among items
  MemToken mem;        // charged by Value::list_from
  ListData() = default;
  ListData(const ListData&) = delete;
  ~ListData();
  // Sets the depth from the items (list_from, and again after items were
  // changed in place: Value::sole_list); LimitError past kMaxNesting.
  void refresh();
};

class DictData {
 public:
  // Entry arrays are small and churn with every parsed context: pooled.
  using Entries = std::vector<std::pair<Value, Value>, PoolAllocator<std::pair<Value, Value>>>;

  DictData() = default;
  // Out of line (value.cpp): copying the entries needs the complete Value,
  // which some standard libraries instantiate eagerly in C++20.
  DictData(const DictData& other);
  DictData& operator=(const DictData&) = delete;
  ~DictData();
  // Charges the entries against the render's memory budget (Value::dict).
  void charge() const;
  // Python dict semantics: setting an existing key keeps its position.
  void set(Value key, Value value);
  const Value* find(const Value& key) const;
  const Value* find_str(std::string_view key) const;
  size_t size() const { return entries_.size(); }
  size_t depth() const { return depth_; }  // 1 + deepest nested container among values
  const Entries& entries() const { return entries_; }
  void reserve(size_t n);
  // Fills an empty dict by moving `n` entries whose keys are distinct strs
  // (the JSON parser resolves duplicate keys itself); `depth` is what depth()
  // reports: 1 + the deepest nested container among the values.
  void assign_distinct(std::pair<Value, Value>* first, size_t n, uint32_t depth) {
    entries_.assign(std::make_move_iterator(first), std::make_move_iterator(first + n));
    depth_ = depth;
  }
  // Empties the dict (the index first: it points into the entries' keys).
  void clear();
  // For the only holder (Value::sole_dict): the entries, to reorder or
  // change in place as long as the keys stay the same distinct strs; then
  // refresh() brings the depth and the index up to date (LimitError past
  // kMaxNesting).
  Entries& entries_in_place() {
    index_.reset();
    return entries_;
  }
  void refresh();

 private:
  Entries entries_;
  uint32_t depth_ = 1;
  // Index over string keys, built lazily once the dict grows past a few
  // entries. Not thread-safe to build: dicts are filled by one thread and
  // frozen before sharing (find() on a frozen dict only reads the index
  // after freeze() built it).
  mutable std::unique_ptr<std::unordered_map<std::string_view, size_t>> index_;
  mutable MemToken mem_;
  void build_index() const;

 public:
  void freeze() const { if (entries_.size() > 8 && !index_) build_index(); }
};

struct CallArgs {
  // Argument arrays live for one call: pooled (see pool.h).
  using Positional = std::vector<Value, PoolAllocator<Value>>;
  Positional args;
  std::vector<std::pair<std::string, Value>> kwargs;
  const Value* kwarg(std::string_view name) const;
};

using NativeFn = std::function<Value(RenderState&, CallArgs&)>;

struct FunctionData {
  enum class FnKind { Builtin, Macro, BoundMethod };
  FnKind fn_kind = FnKind::Builtin;
  std::string name;  // "items", "range", macro name ...
  std::string repr;  // what str()/repr() prints, e.g. "<built-in method items of dict object>"
  NativeFn fn;
};

class Object {
 public:
  virtual ~Object() = default;
  virtual std::string type_name() const = 0;  // Python class name, e.g. "Namespace", "LoopContext"
  // Attribute lookup; return Value() (undefined) when absent.
  virtual Value get_attr(RenderState& state, std::string_view name) const;
  // Attribute assignment ({% set ns.x = 1 %}); false when the object refuses.
  virtual bool set_attr(std::string_view name, Value value);
  virtual std::string repr() const;  // str() and repr()
  virtual bool callable() const { return false; }
  virtual Value call(RenderState& state, CallArgs& args);
  // Releases the values this object holds. Called on every mutable object a
  // render created, when the render ends, so reference cycles built through
  // attribute assignment ({% set ns.x = [ns] %}) cannot outlive it.
  virtual void drop_refs() {}
  // Iteration protocol for iterable objects (dict views): `iterable()` true
  // means iterate()/py_len() use `elements()`; truthiness follows length.
  virtual bool iterable() const { return false; }
  virtual std::vector<Value> elements() const { return {}; }
  // Nesting depth of the values the object holds (see kMaxNesting); objects
  // that store template values (namespace) track it.
  virtual size_t nesting() const { return 1; }
};

// Nesting depth of a value: 0 for scalars, 1 + children for containers.
size_t nesting_depth(const Value& v);
// Throws Error(ErrorKind::Limit) when a container holding `child_depth` deep
// values would exceed kMaxNesting.
void check_nesting(size_t child_depth);


inline const std::vector<Value>& Value::items() const { return static_cast<const ListData*>(ptr_.get())->items; }
inline const DictData& Value::as_dict() const { return *static_cast<const DictData*>(ptr_.get()); }
inline const FunctionData& Value::as_function() const { return *static_cast<const FunctionData*>(ptr_.get()); }
inline Object& Value::as_object() const { return *static_cast<Object*>(const_cast<void*>(ptr_.get())); }
inline std::shared_ptr<const DictData> Value::dict_ptr() const { return std::static_pointer_cast<const DictData>(ptr_); }
// (every ListData and DictData is made non-const; Values hold them as const)
inline ListData* Value::sole_list() const {
  return kind_ == Kind::List && ptr_.use_count() == 1 ? const_cast<ListData*>(static_cast<const ListData*>(ptr_.get())) : nullptr;
}
inline DictData* Value::sole_dict() const {
  return kind_ == Kind::Dict && ptr_.use_count() == 1 ? const_cast<DictData*>(static_cast<const DictData*>(ptr_.get())) : nullptr;
}

// Broken-down local time used by strftime_now (the render's injectable clock).
struct DateTime {
  int year = 1970, month = 1, day = 1, hour = 0, minute = 0, second = 0, microsecond = 0;
};

struct RenderLimits {
  size_t max_output_bytes = 256u << 20;  // rendered text
  size_t max_depth = 512;                // nested macro calls / recursive loops / expression depth
  uint64_t max_steps = 200'000'000;      // evaluation steps: nodes, loop iterations, calls, and work
                                         // inside builtins (elements, 8-byte units of text, limbs)
  size_t max_collection = 10'000'000;    // elements produced by range(), string repetition, ...
  size_t max_memory = 256u << 20;        // bytes of strings, containers and output alive at once during a render
  uint64_t max_render_ms = 10'000;       // wall-clock time of one render
};

// Cooperative cancellation: polled with the step budget. `flag` is set by
// another thread (an environment being torn down); `poll` runs on the
// render's own thread and returns true when the render must stop.
struct CancelHook {
  const std::atomic<bool>* flag = nullptr;
  bool (*poll)(void* data) = nullptr;
  void* data = nullptr;
};

// Per-render mutable state. One per render call; never shared across threads.
struct RenderState {
  RenderLimits limits;
  DateTime now;
  uint64_t steps = 0;
  size_t depth = 0;
  // Mutable objects created by this render (namespace()); see Object::drop_refs.
  std::vector<std::weak_ptr<Object>> mutable_objects;
  CancelHook cancel;
  // Set when the render starts (RenderScope): identity for MemToken, bytes
  // alive, the wall-clock deadline in steady-clock nanoseconds.
  uint64_t id = 0;
  size_t live_bytes = 0;
  int64_t deadline_ns = 0;
  uint64_t next_check = 0;  // steps at which checkpoint() runs next

  // Counts a step; throws Error(ErrorKind::Limit) past max_steps, the
  // deadline, or when cancelled.
  void tick() {
    if (++steps >= next_check) [[unlikely]] checkpoint();
  }
  void charge(uint64_t units) {
    steps += units;
    if (steps >= next_check) [[unlikely]] checkpoint();
  }
  void checkpoint();
};

// Makes `st` the render of the calling thread for its lifetime (memory
// budget, work charges and the deadline start here).
class RenderScope {
 public:
  explicit RenderScope(RenderState& st);
  ~RenderScope();
  RenderScope(const RenderScope&) = delete;
  RenderScope& operator=(const RenderScope&) = delete;

 private:
  RenderState* prev_;
};

}  // namespace jinja
