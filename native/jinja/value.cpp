// Value construction and the insertion-ordered dict.
#include "value.h"

#include <algorithm>
#include <cstring>

#include "bigint.h"
#include "errors.h"
#include "operators.h"
#include "pool.h"
#include "unicode.h"

namespace jinja {

StrData::StrData(std::string s) : utf8(std::move(s)) {
  ascii = unicode::is_ascii(utf8);
  length = ascii ? utf8.size() : unicode::count_code_points(utf8);
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
  BigNum n = BigNum::from_decimal(data.digits, data.negative);
  int64_t i;
  if (n.fits_int64(i)) return integer(i);
  Value v;
  v.kind_ = Kind::BigInt;
  if (data.digits.empty()) data.digits = "0";
  v.ptr_ = std::make_shared<BigIntData>(std::move(data));
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
  size_t deepest = 0;
  for (const Value& item : d->items)
    if (item.kind_ >= Kind::List) deepest = std::max(deepest, nesting_depth(item));
  check_nesting(deepest);
  d->depth = uint32_t(deepest + 1);
  v.ptr_ = std::move(d);
  return v;
}

Value Value::tuple(std::vector<Value> items) {
  Value v = list(std::move(items));
  v.kind_ = Kind::Tuple;
  return v;
}

Value Value::dict(std::shared_ptr<const DictData> data) {
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

void RenderState::tick() {
  if (++steps > limits.max_steps)
    throw Error(ErrorKind::Limit, "LimitError", "render exceeded the maximum number of evaluation steps");
}

}  // namespace jinja
