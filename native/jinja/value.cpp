// Value construction and the insertion-ordered dict.
#include "value.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "bigint.h"
#include "errors.h"
#include "operators.h"
#include "pool.h"
#include "unicode.h"

namespace jinja {

StrData::StrData(std::string s) : utf8(std::move(s)) {
  charge();
  ascii = unicode::is_ascii(utf8);
  length = ascii ? utf8.size() : unicode::count_code_points(utf8);
}

ListData::~ListData() { mem_release(mem); }
DictData::DictData(const DictData& other) : entries_(other.entries_), depth_(other.depth_) {
  if (other.index_) build_index();
}
void DictData::reserve(size_t n) { entries_.reserve(n); }
void DictData::clear() {
  index_.reset();
  entries_.clear();
  depth_ = 1;
}
DictData::~DictData() { mem_release(mem_); }
void DictData::charge() const {
  if (mem_.render == 0) mem_ = mem_acquire(sizeof(DictData) + entries_.capacity() * sizeof(entries_[0]));
}

Value Value::undefined(std::string hint, std::string error_type) {
  Value v;
  auto d = std::make_shared<UndefinedData>();
  d->hint = std::move(hint);
  d->error_type = std::move(error_type);
  v.ptr_ = std::move(d);
  return v;
}

Value Value::missing_dict_key(std::string_view key) {
  Value v;
  auto d = std::allocate_shared<UndefinedData>(PoolAllocator<UndefinedData>());
  d->missing_dict_key = key;
  d->is_missing_dict_key = true;
  v.ptr_ = std::move(d);
  return v;
}

Value Value::big_integer(BigIntData data) {
  while (!data.mag.empty() && data.mag.back() == 0) data.mag.pop_back();
  if (data.mag.size() <= 2) {
    uint64_t m = 0;
    for (size_t k = data.mag.size(); k-- > 0;) m = (m << 32) | data.mag[k];
    if (!data.negative && m <= uint64_t(INT64_MAX)) return integer(int64_t(m));
    if (data.negative && m <= uint64_t(INT64_MAX) + 1) return integer(int64_t(0 - m));
  }
  Value v;
  v.kind_ = Kind::BigInt;
  auto d = std::make_shared<BigIntData>(std::move(data));
  d->mem = mem_acquire(sizeof(BigIntData) + d->mag.capacity() * 4);
  v.ptr_ = std::move(d);
  return v;
}

std::shared_ptr<const StrData> make_str_data(std::string utf8) {
  return std::allocate_shared<StrData>(PoolAllocator<StrData>(), std::move(utf8));
}

std::shared_ptr<const StrData> make_str_data(std::string utf8, bool is_ascii, size_t code_points) {
  return std::allocate_shared<StrData>(PoolAllocator<StrData>(), std::move(utf8), is_ascii, code_points);
}

Value Value::string(std::string utf8) {
  Value v;
  v.kind_ = Kind::Str;
  v.ptr_ = make_str_data(std::move(utf8));
  return v;
}

Value Value::string(std::shared_ptr<const StrData> data) {
  Value v;
  v.kind_ = Kind::Str;
  v.ptr_ = std::move(data);
  return v;
}

size_t nesting_depth(const Value& v) {
  switch (v.kind()) {
    case Kind::List: case Kind::Tuple: return static_cast<const ListData*>(v.identity())->depth;
    case Kind::Dict: return v.as_dict().depth();
    case Kind::Object: return v.as_object().nesting();
    default: return 0;
  }
}

void check_nesting(size_t child_depth) {
  if (child_depth + 1 > kMaxNesting)
    throw Error(ErrorKind::Limit, "LimitError", "containers nested deeper than " + std::to_string(kMaxNesting) + " levels");
}

Value Value::list(std::vector<Value> items) {
  auto d = std::allocate_shared<ListData>(PoolAllocator<ListData>());
  d->items = std::move(items);
  return list_from(std::move(d));
}

Value Value::list_from(std::shared_ptr<ListData> d) {
  Value v;
  v.kind_ = Kind::List;
  d->refresh();
  if (d->mem.render == 0) d->mem = mem_acquire(sizeof(ListData) + d->items.capacity() * sizeof(Value));
  v.ptr_ = std::move(d);
  return v;
}

void ListData::refresh() {
  size_t deepest = 0;
  for (const Value& item : items)
    if (item.kind() >= Kind::List) deepest = std::max(deepest, nesting_depth(item));
  check_nesting(deepest);
  depth = uint32_t(deepest + 1);
}

Value Value::tuple(std::vector<Value> items) {
  Value v = list(std::move(items));
  v.kind_ = Kind::Tuple;
  return v;
}

Value Value::dict(std::shared_ptr<const DictData> data) {
  data->charge();
  Value v;
  v.kind_ = Kind::Dict;
  v.ptr_ = std::move(data);
  return v;
}

Value Value::function(std::shared_ptr<const FunctionData> fn) {
  Value v;
  v.kind_ = Kind::Function;
  v.ptr_ = std::move(fn);
  return v;
}

Value Value::object(std::shared_ptr<Object> obj) {
  Value v;
  v.kind_ = Kind::Object;
  v.ptr_ = std::move(obj);
  return v;
}

// ---- dict ----

static void check_hashable(const Value& key) {
  switch (key.kind()) {
    case Kind::List: case Kind::Dict:
      throw_type_error("unhashable type: '" + type_name(key) + "'");
    case Kind::Tuple:
      for (const Value& v : key.items()) check_hashable(v);
      return;
    default:
      return;
  }
}

void DictData::build_index() const {
  auto idx = std::make_unique<std::unordered_map<std::string_view, size_t>>();
  idx->reserve(entries_.size() * 2);
  for (size_t i = 0; i < entries_.size(); ++i)
    if (entries_[i].first.is_str()) idx->emplace(entries_[i].first.as_str(), i);
  index_ = std::move(idx);
}

void DictData::set(Value key, Value value) {
  if (value.kind() >= Kind::List) {
    size_t child = nesting_depth(value);
    check_nesting(child);
    if (child + 1 > depth_) depth_ = uint32_t(child + 1);
  }
  if (key.is_str()) {
    // Fast path for the common case (JSON objects): string keys.
    std::string_view k = key.as_str();
    if (index_) {
      auto it = index_->find(k);
      if (it != index_->end()) { entries_[it->second].second = std::move(value); return; }
      entries_.emplace_back(std::move(key), std::move(value));
      index_->emplace(entries_.back().first.as_str(), entries_.size() - 1);
      return;
    }
    for (auto& e : entries_)
      if (e.first.is_str() && e.first.as_str() == k) { e.second = std::move(value); return; }
    entries_.emplace_back(std::move(key), std::move(value));
    if (entries_.size() > 8) build_index();
    return;
  }
  check_hashable(key);
  for (auto& e : entries_)
    if (!e.first.is_str() && py_equal(e.first, key)) { e.second = std::move(value); return; }
  entries_.emplace_back(std::move(key), std::move(value));
}

void DictData::refresh() {
  size_t deepest = 0;
  for (const auto& e : entries_)
    if (e.second.kind() >= Kind::List) deepest = std::max(deepest, nesting_depth(e.second));
  check_nesting(deepest);
  depth_ = uint32_t(deepest + 1);
  if (entries_.size() > 8) build_index();
}

const Value* DictData::find_str(std::string_view key) const {
  if (index_) {
    auto it = index_->find(key);
    return it == index_->end() ? nullptr : &entries_[it->second].second;
  }
  // Small dicts (template contexts, message objects) are scanned linearly;
  // checking length and first byte before memcmp keeps misses cheap.
  for (auto& e : entries_) {
    if (!e.first.is_str()) continue;
    const std::string& k = e.first.as_str();
    if (k.size() == key.size() && (key.empty() || (k[0] == key[0] && std::memcmp(k.data(), key.data(), key.size()) == 0)))
      return &e.second;
  }
  return nullptr;
}

const Value* DictData::find(const Value& key) const {
  if (key.is_str()) return find_str(key.as_str());
  if (key.kind() == Kind::List || key.kind() == Kind::Dict) check_hashable(key);
  for (auto& e : entries_)
    if (!e.first.is_str() && py_equal(e.first, key)) return &e.second;
  return nullptr;
}

const Value* CallArgs::kwarg(std::string_view name) const {
  for (auto& kv : kwargs)
    if (kv.first == name) return &kv.second;
  return nullptr;
}

// ---- objects ----

Value Object::get_attr(RenderState&, std::string_view) const { return Value(); }
bool Object::set_attr(std::string_view, Value) { return false; }
std::string Object::repr() const { return "<" + type_name() + " object>"; }
Value Object::call(RenderState&, CallArgs&) { throw_type_error("'" + type_name() + "' object is not callable"); }

// ---- budgets ----

namespace {
thread_local RenderState* tl_render = nullptr;
std::atomic<uint64_t> g_render_ids{0};
constexpr uint64_t kCheckEvery = 1024;  // steps between clock/cancellation checks

int64_t steady_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

[[noreturn]] void memory_error(size_t live, size_t more, size_t limit) {
  throw Error(ErrorKind::Limit, "MemoryError",
              "render exceeded its memory budget (" + std::to_string(limit) + " bytes; " + std::to_string(live) +
                  " in use, " + std::to_string(more) + " more requested)");
}
}  // namespace

RenderScope::RenderScope(RenderState& st) : prev_(tl_render) {
  st.id = ++g_render_ids;
  st.live_bytes = 0;
  uint64_t ms = st.limits.max_render_ms;
  st.deadline_ns = ms > 0 && ms < (uint64_t(1) << 40) ? steady_now_ns() + int64_t(ms) * 1'000'000 : INT64_MAX;
  st.next_check = st.steps + 1;
  tl_render = &st;
}

RenderScope::~RenderScope() { tl_render = prev_; }

void RenderState::checkpoint() {
  if (steps > limits.max_steps)
    throw Error(ErrorKind::Limit, "LimitError", "render exceeded the maximum number of evaluation steps");
  if ((cancel.flag && cancel.flag->load(std::memory_order_relaxed)) || (cancel.poll && cancel.poll(cancel.data)))
    throw Error(ErrorKind::Limit, "Cancelled", "render cancelled: its JavaScript environment is shutting down");
  if (deadline_ns && steady_now_ns() > deadline_ns)
    throw Error(ErrorKind::Limit, "TimeoutError",
                "render exceeded its time budget (" + std::to_string(limits.max_render_ms) + " ms)");
  next_check = std::min(steps + kCheckEvery, limits.max_steps + 1);
}

MemToken mem_acquire(size_t bytes) {
  RenderState* st = tl_render;
  if (!st) return {};
  if (bytes > st->limits.max_memory || st->live_bytes > st->limits.max_memory - bytes)
    memory_error(st->live_bytes, bytes, st->limits.max_memory);
  st->live_bytes += bytes;
  st->charge(bytes / 8);
  return {st->id, bytes};
}

void mem_release(const MemToken& t) {
  if (t.render == 0) return;
  RenderState* st = tl_render;
  if (st && st->id == t.render) st->live_bytes -= std::min(t.bytes, st->live_bytes);
}

void mem_reserve(size_t bytes) {
  RenderState* st = tl_render;
  if (!st) return;
  if (bytes > st->limits.max_memory || st->live_bytes > st->limits.max_memory - bytes)
    memory_error(st->live_bytes, bytes, st->limits.max_memory);
  // Producers call this as they grow a result: one step each keeps the
  // deadline and cancellation checks running inside long builtins.
  st->tick();
}

void work(uint64_t units) {
  if (RenderState* st = tl_render) st->charge(units);
}

}  // namespace jinja
