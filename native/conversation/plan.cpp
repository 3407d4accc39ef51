#include "conversation/plan.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <unordered_map>

#include "jinja/errors.h"
#include "jinja/json.h"

namespace nvc {

using jinja::Kind;
using jinja::Value;

namespace {

// The package's settings (see shape_request).
struct Config {
  std::string text;
  std::string nonce;
  size_t max_depth = 0;
  std::vector<std::string> opaque;
  // A slot's string as the shape writes it (before its number): {"\u0000<nonce>":
  std::string slot_prefix;
  // The one key of a slot decoded as JSON: NUL, then the nonce.
  std::string decoded_key;
};

bool parse_config(std::string_view text, Config& c) {
  c.text.assign(text);
  std::vector<std::string_view> lines;
  size_t at = 0;
  while (at <= text.size()) {
    size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) nl = text.size();
    lines.push_back(text.substr(at, nl - at));
    at = nl + 1;
  }
  if (lines.size() < 3 || lines[0].empty()) return false;
  for (char ch : lines[0])
    if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f'))) return false;
  c.nonce.assign(lines[0]);
  auto [p, ec] = std::from_chars(lines[1].data(), lines[1].data() + lines[1].size(), c.max_depth);
  if (ec != std::errc() || p != lines[1].data() + lines[1].size()) return false;
  for (size_t i = 3; i < lines.size(); ++i)
    if (!lines[i].empty()) c.opaque.emplace_back(lines[i]);
  c.slot_prefix = "{\"\\u0000" + c.nonce + "\":";
  c.decoded_key = std::string(1, '\0') + c.nonce;
  return true;
}

// One node of a compiled plan.
//   Const    a value without slots, kept as it is
//   Slot     slot `slot`, a string of the message
//   Decoded  slot `slot` decoded as JSON (a tool call's arguments)
//   Source   the message's own value at this place (the plan has there
//            exactly what the shape has: nothing was changed)
//   List, Dict  built item by item; `from` gives, per item, where the
//            message's value holds the same place (-1: nowhere).
//            `in_place`: every item has its place there, and every place
//            of the message's value is some item's (a dict's keys at most
//            reordered), so the message's own container can be reused
struct PlanNode {
  enum class K : uint8_t { Const, Slot, Decoded, Source, List, Dict } k = K::Const;
  bool in_place = false;
  Value value;  // Const
  uint32_t slot = 0;
  std::vector<Value> keys;       // Dict
  std::vector<PlanNode> items;   // List items, Dict values
  std::vector<int32_t> from;     // List, Dict
};

// A shape as a pattern to match messages against (the shape's text need
// not be written to find the shape): a message matches when it has the
// same containers with the same keys in the same order, the same scalars
// (same() equal), and a non-empty string free of lone surrogates wherever
// the shape has a slot marker; its ShapeWriter text is then the shape's.
struct ShapeNode {
  enum class K : uint8_t { Slot, Scalar, List, Dict } k = K::Scalar;
  Value value;                   // Scalar; Dict: one key per item
  std::vector<Value> keys;       // Dict
  std::vector<ShapeNode> items;  // List items, Dict values
};

struct Plan {
  bool ok = false;  // false: the package could not plan the shape
  PlanNode root;
  std::string shape;
  bool matchable = false;  // (ok, and `match` is the shape's pattern)
  ShapeNode match;
};

constexpr size_t kMaxCaches = 4;
constexpr size_t kMaxPlans = 1024;
constexpr size_t kMaxShapeBytes = 4096;

struct Cache {
  Config config;
  std::unordered_map<std::string, std::shared_ptr<const Plan>> plans;
  // matchable plans used lately, most recent first: each message is
  // matched against these before its shape is written
  std::vector<std::shared_ptr<const Plan>> recent;
};
constexpr size_t kRecentPlans = 16;

struct State {
  std::vector<std::unique_ptr<Cache>> caches;  // most recently used first
  uint64_t next_ticket = 1;
  // the last shaped request
  uint64_t ticket = 0;
  Cache* cache = nullptr;
  std::vector<std::string> shapes;   // its distinct shapes
  std::vector<std::shared_ptr<const Plan>> plans;  // per shape: its plan (null: none when shaped)
  std::vector<uint32_t> shape_of;    // per message: index into shapes
  std::vector<uint32_t> slot_begin;  // per message: its first slot (plus one past the last)
  std::vector<Value> slots;
  std::vector<Value> sources;        // per message: its parsed value
  void drop_request() {
    ticket = 0;
    cache = nullptr;
    shapes.clear();
    plans.clear();
    shape_of.clear();
    slot_begin.clear();
    slots.clear();
    sources.clear();
  }
};

thread_local State g_state;

// Request texts this thread shaped recently, and where their messages end
// (found when first needed): a request that continues one of them, byte for
// byte, is an agent's next turn, which the package builds on the messages
// it keeps of the request before (so that one is not shaped here).
struct RecentText {
  std::string text;
  bool scanned = false;
  size_t end = std::string::npos;  // just past the last message
};
constexpr size_t kRecentTexts = 8;
constexpr size_t kMaxRecentText = 1u << 20;
thread_local std::vector<RecentText> g_recent;  // most recent first

// Past the closing quote of the string starting at `at`.
size_t string_end(std::string_view s, size_t at) {
  size_t i = at + 1;
  for (;;) {
    size_t q = s.find('"', i);
    if (q == std::string_view::npos) return s.size();
    size_t slashes = 0;
    while (q - slashes > at + 1 && s[q - 1 - slashes] == '\\') ++slashes;
    if (slashes % 2 == 0) return q + 1;
    i = q + 1;
  }
}

bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

size_t skip_ws(std::string_view s, size_t i) {
  while (i < s.size() && is_ws(s[i])) ++i;
  return i;
}

// Just past the JSON value starting at `i` (not whitespace), found by its
// structure alone: strings skipped whole, brackets counted, a number or
// literal up to the next delimiter. The text is not assumed to be valid
// (whatever is found here is parsed or decoded before it is used); npos
// when the value does not end.
size_t value_end(std::string_view s, size_t i) {
  if (i >= s.size()) return std::string_view::npos;
  if (s[i] == '"') {
    size_t e = string_end(s, i);
    return e <= s.size() && s[e - 1] == '"' && e > i + 1 ? e : std::string_view::npos;
  }
  if (s[i] != '[' && s[i] != '{') {
    size_t j = i + 1;
    while (j < s.size() && s[j] != ',' && s[j] != ']' && s[j] != '}' && !is_ws(s[j])) ++j;
    return j;
  }
  // only quotes and brackets matter here: the bytes between are skipped
  // with one table lookup each
  static constexpr auto kStructural = [] {
    std::array<bool, 256> t{};
    for (unsigned char c : {'"', '[', ']', '{', '}'}) t[c] = true;
    return t;
  }();
  size_t depth = 0;
  const size_t n = s.size();
  for (size_t j = i; j < n;) {
    while (j < n && !kStructural[static_cast<unsigned char>(s[j])]) ++j;
    if (j >= n) break;
    const char c = s[j];
    if (c == '"') {
      j = string_end(s, j);
      continue;
    }
    if (c == '[' || c == '{') {
      ++depth;
    } else if (--depth == 0) {
      return j + 1;
    }
    ++j;
  }
  return std::string_view::npos;
}

// Where the value of the one member `messages` of the JSON object `s` lies
// ([begin, end), a list), found by a walk over the object's members, and
// (with `list`) that value parsed where it lies; false
// when the walk finds anything else (not an object, no such member or more
// than one, a key written with escapes, something after the object). The
// walk agrees with a JSON parser on every byte before each value, so when
// the messages list and the text with that list replaced both parse, the
// whole text does, with that list as its `messages`.
bool messages_span(std::string_view s, size_t& begin, size_t& end, Value* list = nullptr) {
  size_t i = skip_ws(s, 0);
  if (i >= s.size() || s[i] != '{') return false;
  i = skip_ws(s, i + 1);
  bool found = false;
  while (i < s.size() && s[i] == '"') {
    const size_t key_end = string_end(s, i);
    if (key_end > s.size() || s[key_end - 1] != '"' || key_end == i + 1) return false;
    const std::string_view key = s.substr(i + 1, key_end - i - 2);
    if (key.find('\\') != std::string_view::npos) return false;
    i = skip_ws(s, key_end);
    if (i >= s.size() || s[i] != ':') return false;
    i = skip_ws(s, i + 1);
    const bool messages = key == "messages";
    if (messages && (found || i >= s.size() || s[i] != '[')) return false;
    size_t v_end = std::string_view::npos;
    if (messages && list != nullptr) {
      try {
        *list = jinja::json_loads_value_at(s, i, v_end);
      } catch (const jinja::Error&) {
        return false;
      }
    } else {
      v_end = value_end(s, i);
    }
    if (v_end == std::string_view::npos) return false;
    if (messages) {
      found = true;
      begin = i;
      end = v_end;
    }
    i = skip_ws(s, v_end);
    if (i < s.size() && s[i] == ',') {
      i = skip_ws(s, i + 1);
      continue;
    }
    if (i < s.size() && s[i] == '}') return found && skip_ws(s, i + 1) == s.size();
    return false;
  }
  return false;
}

// Just past the last item of the `messages` list of a request shaped here
// (npos: none found).
size_t messages_end(std::string_view s) {
  size_t begin = 0, end = 0;
  if (!messages_span(s, begin, end)) return std::string_view::npos;
  size_t e = end - 1;  // the list's `]`
  while (e > begin + 1 && is_ws(s[e - 1])) --e;
  return e;
}

// `text` is `r`'s text up to the end of its messages, then more messages.
bool continues(RecentText& r, std::string_view text) {
  constexpr size_t kHead = 64;
  if (text.size() <= kHead || r.text.size() <= kHead || std::memcmp(text.data(), r.text.data(), kHead) != 0) return false;
  if (!r.scanned) {
    r.end = messages_end(r.text);
    r.scanned = true;
  }
  return r.end != std::string::npos && r.end < text.size() && text[r.end] == ',' && std::memcmp(text.data(), r.text.data(), r.end) == 0 &&
         r.text[r.end - 1] == '}';
}

void remember(std::string&& text) {
  if (text.size() > kMaxRecentText) return;
  if (g_recent.size() >= kRecentTexts) g_recent.pop_back();
  g_recent.insert(g_recent.begin(), RecentText{std::move(text)});
}

Cache* cache_for(std::string_view config) {
  auto& cs = g_state.caches;
  for (size_t i = 0; i < cs.size(); ++i) {
    if (cs[i]->config.text == config) {
      if (i != 0) std::rotate(cs.begin(), cs.begin() + long(i), cs.begin() + long(i) + 1);
      return cs[0].get();
    }
  }
  auto c = std::make_unique<Cache>();
  if (!parse_config(config, c->config)) return nullptr;
  if (cs.size() >= kMaxCaches) {
    if (cs.back().get() == g_state.cache) g_state.drop_request();
    cs.pop_back();
  }
  cs.insert(cs.begin(), std::move(c));
  return cs[0].get();
}

// Lone surrogates are kept by the parser as generalised UTF-8 (ED A0..BF ..).
bool has_surrogate(std::string_view s) {
  for (size_t i = s.find('\xED'); i != std::string_view::npos && i + 1 < s.size(); i = s.find('\xED', i + 1))
    if (static_cast<unsigned char>(s[i + 1]) >= 0xA0) return true;
  return false;
}

// A JSON string literal, as json.dumps(ensure_ascii=False) writes it (the
// text is valid UTF-8 here: lone surrogates were declined before).
void write_string(std::string& out, std::string_view s) { jinja::json_append_string(out, s, false); }

struct ShapeWriter {
  const Config& config;
  std::string& out;
  std::vector<Value>& slots;
  uint32_t message_slots = 0;

  bool opaque(std::string_view key) const {
    for (const std::string& k : config.opaque)
      if (k == key) return true;
    return false;
  }

  bool value(const Value& v, size_t depth, bool under_opaque) {
    if (depth > config.max_depth || out.size() > kMaxShapeBytes) return false;
    switch (v.kind()) {
      case Kind::None: out += "null"; return true;
      case Kind::Bool: out += v.as_bool() ? "true" : "false"; return true;
      case Kind::Int: {
        char buf[24];
        auto r = std::to_chars(buf, buf + sizeof buf, v.as_int());
        out.append(buf, size_t(r.ptr - buf));
        return true;
      }
      case Kind::BigInt:
      case Kind::Float:
        out += jinja::json_dumps(v, jinja::JsonDumpsOptions{});
        return true;
      case Kind::Str: {
        const std::string& s = v.as_str();
        if (has_surrogate(s)) return false;
        if (under_opaque && !s.empty()) {
          // the slot marker {"\u0000<nonce>":k}, as a JSON string literal
          out += "\"{\\\"\\\\u0000";
          out += config.nonce;
          out += "\\\":";
          char buf[12];
          auto r = std::to_chars(buf, buf + sizeof buf, message_slots++);
          out.append(buf, size_t(r.ptr - buf));
          out += "}\"";
          slots.push_back(v);
          return true;
        }
        write_string(out, s);
        return true;
      }
      case Kind::List: {
        out.push_back('[');
        bool first = true;
        for (const Value& item : v.items()) {
          if (!first) out.push_back(',');
          first = false;
          if (!value(item, depth + 1, false)) return false;
        }
        out.push_back(']');
        return true;
      }
      case Kind::Dict: {
        out.push_back('{');
        bool first = true;
        for (const auto& [k, item] : v.as_dict().entries()) {
          if (!k.is_str() || has_surrogate(k.as_str())) return false;
          if (!first) out.push_back(',');
          first = false;
          write_string(out, k.as_str());
          out.push_back(':');
          if (!value(item, depth + 1, opaque(k.as_str()))) return false;
        }
        out.push_back('}');
        return true;
      }
      default:
        return false;
    }
  }
};

// The slot number of a slot marker string, or -1.
long slot_of(const Config& c, std::string_view s) {
  if (s.size() < c.slot_prefix.size() + 2 || s.compare(0, c.slot_prefix.size(), c.slot_prefix) != 0 || s.back() != '}') return -1;
  std::string_view digits = s.substr(c.slot_prefix.size(), s.size() - c.slot_prefix.size() - 1);
  uint32_t k = 0;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), k);
  if (ec != std::errc() || p != digits.data() + digits.size()) return -1;
  return long(k);
}

// Values equal as the template sees them: same kinds (True is not 1, 1.0
// is not 1), same bits of floats, same keys in the same order.
bool same(const Value& a, const Value& b) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Kind::None: return true;
    case Kind::Bool: return a.as_bool() == b.as_bool();
    case Kind::Int: return a.as_int() == b.as_int();
    case Kind::Float: {
      double x = a.as_float(), y = b.as_float();
      return std::memcmp(&x, &y, sizeof x) == 0;
    }
    case Kind::BigInt: return a.as_bigint().negative == b.as_bigint().negative && a.as_bigint().mag == b.as_bigint().mag;
    case Kind::Str: return a.as_str() == b.as_str();
    case Kind::List: {
      const auto &x = a.items(), &y = b.items();
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i)
        if (!same(x[i], y[i])) return false;
      return true;
    }
    case Kind::Dict: {
      const auto &x = a.as_dict().entries(), &y = b.as_dict().entries();
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i)
        if (!same(x[i].first, y[i].first) || !same(x[i].second, y[i].second)) return false;
      return true;
    }
    default:
      return false;
  }
}

// The pattern of a shape's value `v` (the package's text of it parsed);
// `slots` counts the slot markers met so far. False: not a shape this side
// writes that way (checked whole by the caller).
bool compile_shape(const Config& c, const Value& v, bool under_opaque, uint32_t& slots, ShapeNode& node) {
  switch (v.kind()) {
    case Kind::Str:
      if (under_opaque && !v.as_str().empty()) {
        if (slot_of(c, v.as_str()) != long(slots)) return false;
        ++slots;
        node.k = ShapeNode::K::Slot;
        return true;
      }
      node.k = ShapeNode::K::Scalar;
      node.value = v;
      return true;
    case Kind::List:
      node.k = ShapeNode::K::List;
      node.items.resize(v.items().size());
      for (size_t i = 0; i < v.items().size(); ++i)
        if (!compile_shape(c, v.items()[i], false, slots, node.items[i])) return false;
      return true;
    case Kind::Dict: {
      const auto& entries = v.as_dict().entries();
      node.k = ShapeNode::K::Dict;
      node.items.resize(entries.size());
      node.keys.reserve(entries.size());
      for (size_t i = 0; i < entries.size(); ++i) {
        if (!entries[i].first.is_str()) return false;
        node.keys.push_back(entries[i].first);
        bool opaque = false;
        for (const std::string& k : c.opaque) opaque |= k == entries[i].first.as_str();
        if (!compile_shape(c, entries[i].second, opaque, slots, node.items[i])) return false;
      }
      return true;
    }
    case Kind::None:
    case Kind::Bool:
    case Kind::Int:
    case Kind::BigInt:
    case Kind::Float:
      node.k = ShapeNode::K::Scalar;
      node.value = v;
      return true;
    default:
      return false;
  }
}

// Whether message value `v` matches the pattern, its slot strings appended
// to `slots` (on false, some may have been); null `slots`: only whether it
// matches.
bool matches(const ShapeNode& node, const Value& v, std::vector<Value>* slots) {
  switch (node.k) {
    case ShapeNode::K::Slot:
      // (a string of ASCII bytes holds no lone surrogate's bytes)
      if (!v.is_str() || v.as_str().empty() || (!v.str_data().ascii && has_surrogate(v.as_str()))) return false;
      if (slots != nullptr) slots->push_back(v);
      return true;
    case ShapeNode::K::Scalar: return same(node.value, v);
    case ShapeNode::K::List: {
      if (v.kind() != Kind::List || v.items().size() != node.items.size()) return false;
      const auto& items = v.items();
      for (size_t i = 0; i < items.size(); ++i)
        if (!matches(node.items[i], items[i], slots)) return false;
      return true;
    }
    case ShapeNode::K::Dict: {
      if (v.kind() != Kind::Dict || v.as_dict().size() != node.items.size()) return false;
      const auto& entries = v.as_dict().entries();
      for (size_t i = 0; i < entries.size(); ++i) {
        const Value& key = entries[i].first;
        if (!key.is_str()) return false;
        const std::string &a = key.as_str(), &b = node.keys[i].as_str();
        if (a.size() != b.size() || std::memcmp(a.data(), b.data(), a.size()) != 0) return false;
        if (!matches(node.items[i], entries[i].second, slots)) return false;
      }
      return true;
    }
  }
  return false;
}

bool compile(const Config& c, const Value& v, const Value* shape, PlanNode& node, size_t depth);

// The most entries of a dict rebuilt in place (the entries reordered are
// marked in one 32-bit word).
constexpr size_t kMaxInPlace = 32;

// `shape`: the shape's value at the same place, when it has one.
bool compile_node(const Config& c, const Value& v, const Value* shape, PlanNode& node, size_t depth) {
  if (depth > c.max_depth) return false;
  node.k = PlanNode::K::Const;
  switch (v.kind()) {
    case Kind::Str: {
      const std::string& s = v.as_str();
      long k = slot_of(c, s);
      if (k >= 0) {
        node.k = PlanNode::K::Slot;
        node.slot = uint32_t(k);
        return true;
      }
      // a nonce anywhere else: the plan put a slot's string inside another
      return s.find(c.nonce) == std::string::npos;
    }
    case Kind::List: {
      bool marked = false;
      const auto& items = v.items();
      const std::vector<Value>* in_shape = shape != nullptr && shape->kind() == Kind::List ? &shape->items() : nullptr;
      node.items.resize(items.size());
      node.from.assign(items.size(), -1);
      for (size_t i = 0; i < items.size(); ++i) {
        const Value* sub = nullptr;
        if (in_shape != nullptr && i < in_shape->size()) {
          sub = &(*in_shape)[i];
          node.from[i] = int32_t(i);
        }
        if (!compile(c, items[i], sub, node.items[i], depth + 1)) return false;
        marked |= node.items[i].k != PlanNode::K::Const;
      }
      if (marked) {
        node.k = PlanNode::K::List;
        node.in_place = in_shape != nullptr && in_shape->size() == items.size();
      } else {
        node.items.clear();
      }
      return true;
    }
    case Kind::Dict: {
      const auto& entries = v.as_dict().entries();
      if (entries.size() == 1 && entries[0].first.is_str() && entries[0].first.as_str() == c.decoded_key) {
        if (entries[0].second.kind() != Kind::Int || entries[0].second.as_int() < 0 || entries[0].second.as_int() > int64_t(UINT32_MAX)) return false;
        node.k = PlanNode::K::Decoded;
        node.slot = uint32_t(entries[0].second.as_int());
        return true;
      }
      const jinja::DictData::Entries* in_shape = shape != nullptr && shape->kind() == Kind::Dict ? &shape->as_dict().entries() : nullptr;
      bool marked = false;
      node.items.resize(entries.size());
      node.from.assign(entries.size(), -1);
      node.keys.reserve(entries.size());
      for (size_t i = 0; i < entries.size(); ++i) {
        const Value& key = entries[i].first;
        if (key.is_str() && key.as_str().find(c.nonce) != std::string::npos) return false;
        node.keys.push_back(key);
        const Value* sub = nullptr;
        if (in_shape != nullptr) {
          for (size_t j = 0; j < in_shape->size(); ++j) {
            if (same((*in_shape)[j].first, key)) {
              sub = &(*in_shape)[j].second;
              node.from[i] = int32_t(j);
              break;
            }
          }
        }
        if (!compile(c, entries[i].second, sub, node.items[i], depth + 1)) return false;
        marked |= node.items[i].k != PlanNode::K::Const;
      }
      if (marked) {
        node.k = PlanNode::K::Dict;
        // (the keys are distinct, so distinct places: each place taken once)
        node.in_place = in_shape != nullptr && in_shape->size() == entries.size() && entries.size() <= kMaxInPlace &&
                        std::none_of(node.from.begin(), node.from.end(), [](int32_t f) { return f < 0; });
      } else {
        node.items.clear();
        node.keys.clear();
        node.from.clear();
      }
      return true;
    }
    default:
      return true;
  }
}

// Compiles a plan value: subtrees without slots are kept as they are, and
// subtrees that are the shape's own (slots in the same places) become the
// message's own values. False: a marker where the plan cannot use it (a
// key, part of a string).
bool compile(const Config& c, const Value& v, const Value* shape, PlanNode& node, size_t depth) {
  if (!compile_node(c, v, shape, node, depth)) return false;
  if (shape != nullptr && node.k != PlanNode::K::Const && same(v, *shape)) {
    node = PlanNode{};
    node.k = PlanNode::K::Source;
    return true;
  }
  if (node.k == PlanNode::K::Const) node.value = v;
  return true;
}

// Decodes one request's slots: one parser and arena for all of them, made
// when the first is decoded.
struct SlotDecoder {
  std::optional<jinja::JsonLoader> loader;
  Value load(std::string_view text) {
    if (!loader) loader.emplace(std::max<size_t>(4096, text.size() * 8));
    return loader->load(text);
  }
};

// The first `\u` of `text` from `from` on; npos: none. (memmem, where
// there is one, is one pass over the text: find() restarts at every
// backslash, and JSON inside a string has many.)
size_t find_u_escape(std::string_view text, size_t from) {
#if defined(_WIN32)
  return text.find("\\u", from);
#else
  if (from >= text.size()) return std::string_view::npos;
  const void* hit = memmem(text.data() + from, text.size() - from, "\\u", 2);
  return hit != nullptr ? size_t(static_cast<const char*>(hit) - text.data()) : std::string_view::npos;
#endif
}

// A slot decoded as JSON: only an object is taken (anything else is the
// package's to handle), and only one free of lone surrogates.
bool decode_slot(const Value& s, SlotDecoder& decoder, Value& out) {
  std::string_view text = s.as_str();
  for (size_t i = find_u_escape(text, 0); i != std::string_view::npos; i = find_u_escape(text, i + 2)) {
    if (i + 3 < text.size() && (text[i + 2] == 'd' || text[i + 2] == 'D')) {
      char h = text[i + 3];
      if ((h >= '8' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F')) return false;
    }
  }
  try {
    out = decoder.load(text);
  } catch (const jinja::Error&) {
    return false;
  }
  return out.kind() == Kind::Dict;
}

// Builds a message from its plan; `source` is the message's own value at
// the same place (null where it has none).
bool build(const PlanNode& node, const Value* source, const Value* slots, uint32_t count, SlotDecoder& decoder, Value& out) {
  switch (node.k) {
    case PlanNode::K::Const: out = node.value; return true;
    case PlanNode::K::Slot:
      if (node.slot >= count) return false;
      out = slots[node.slot];
      return true;
    case PlanNode::K::Decoded:
      return node.slot < count && decode_slot(slots[node.slot], decoder, out);
    case PlanNode::K::Source:
      if (source == nullptr) return false;
      out = *source;
      return true;
    case PlanNode::K::List: {
      const std::vector<Value>* in = source != nullptr && source->kind() == Kind::List ? &source->items() : nullptr;
      std::vector<Value> items(node.items.size());
      for (size_t i = 0; i < items.size(); ++i) {
        const int32_t f = node.from[i];
        const Value* sub = in != nullptr && f >= 0 && size_t(f) < in->size() ? &(*in)[size_t(f)] : nullptr;
        if (!build(node.items[i], sub, slots, count, decoder, items[i])) return false;
      }
      out = Value::list(std::move(items));
      return true;
    }
    case PlanNode::K::Dict: {
      const jinja::DictData::Entries* in = source != nullptr && source->kind() == Kind::Dict ? &source->as_dict().entries() : nullptr;
      auto d = std::allocate_shared<jinja::DictData>(jinja::PoolAllocator<jinja::DictData>());
      d->reserve(node.keys.size());
      for (size_t i = 0; i < node.keys.size(); ++i) {
        const int32_t f = node.from[i];
        const Value* sub = in != nullptr && f >= 0 && size_t(f) < in->size() ? &(*in)[size_t(f)].second : nullptr;
        Value item;
        if (!build(node.items[i], sub, slots, count, decoder, item)) return false;
        d->set(node.keys[i], std::move(item));
      }
      out = Value::dict(std::move(d));
      return true;
    }
  }
  return false;
}

// Builds a message from its plan where its own value `v` is (the request's
// parse, held by nothing else): a container the plan keeps whole (a dict's
// keys perhaps reordered) is changed in place, item by item; anything else
// is built as build() does. On false, `v` is left half-built.
bool rebuild(const PlanNode& node, Value& v, const Value* slots, uint32_t count, SlotDecoder& decoder) {
  switch (node.k) {
    case PlanNode::K::Source: return true;
    case PlanNode::K::Const:
      // (a string the message already has, byte for byte, is kept: no
      // reference taken on the plan's, none dropped on the message's)
      if (!(v.is_str() && node.value.is_str() && v.as_str() == node.value.as_str())) v = node.value;
      return true;
    case PlanNode::K::Slot:
      if (node.slot >= count) return false;
      // (mostly the message's own string at its own place: kept as it is)
      if (!(v.is_str() && slots[node.slot].is_str() && v.identity() == slots[node.slot].identity())) v = slots[node.slot];
      return true;
    case PlanNode::K::Decoded: {
      Value decoded;
      if (node.slot >= count || !decode_slot(slots[node.slot], decoder, decoded)) return false;
      v = std::move(decoded);
      return true;
    }
    case PlanNode::K::List:
      if (jinja::ListData* l = node.in_place ? v.sole_list() : nullptr; l != nullptr && l->items.size() == node.items.size()) {
        for (size_t i = 0; i < node.items.size(); ++i)
          if (node.items[i].k != PlanNode::K::Source && !rebuild(node.items[i], l->items[i], slots, count, decoder)) return false;
        l->refresh();
        return true;
      }
      break;
    case PlanNode::K::Dict:
      if (jinja::DictData* d = node.in_place ? v.sole_dict() : nullptr; d != nullptr && d->size() == node.items.size()) {
        auto& entries = d->entries_in_place();
        const size_t n = entries.size();
        // entry i becomes the one at from[i]: the permutation's cycles, one
        // entry held aside per cycle
        uint32_t done = 0;
        for (size_t i = 0; i < n; ++i) {
          if ((done >> i) & 1u || size_t(node.from[i]) == i) continue;
          std::pair<Value, Value> held = std::move(entries[i]);
          size_t j = i;
          for (size_t f = size_t(node.from[j]); f != i; j = f, f = size_t(node.from[j])) {
            entries[j] = std::move(entries[f]);
            done |= 1u << j;
          }
          entries[j] = std::move(held);
          done |= 1u << j;
        }
        // (a place the plan keeps as the message has it needs no visit)
        for (size_t i = 0; i < n; ++i)
          if (node.items[i].k != PlanNode::K::Source && !rebuild(node.items[i], entries[i].second, slots, count, decoder)) return false;
        d->refresh();
        return true;
      }
      break;
  }
  Value out;
  if (!build(node, &v, slots, count, decoder, out)) return false;
  v = std::move(out);
  return true;
}

// Puts a matchable plan first among the cache's recent ones.
void remember_plan(Cache& cache, const std::shared_ptr<const Plan>& plan) {
  if (!plan->matchable) return;
  auto& r = cache.recent;
  auto it = std::find(r.begin(), r.end(), plan);
  if (it == r.end()) {
    if (r.size() >= kRecentPlans) r.pop_back();
    r.insert(r.begin(), plan);
  } else {
    std::rotate(r.begin(), it, it + 1);
  }
}

}  // namespace

bool shape_request(std::string text, std::string_view config, ShapeReport& out) {
  State& st = g_state;
  st.drop_request();
  for (RecentText& r : g_recent) {
    if (continues(r, text)) {
      out.continues = true;
      return false;
    }
  }
  // U+FFFD: what a lone surrogate of the caller's string became on its way
  // here (or a genuine one): the usual path decodes the string itself
  if (text.find("\xEF\xBF\xBD") != std::string_view::npos) return false;
  Cache* cache = cache_for(config);
  if (cache == nullptr) return false;
  const Config& c = cache->config;
  // only the messages are parsed here: the rest of the request goes back
  // as its own text, with an empty list in their place
  size_t begin = 0, end = 0;
  Value list;
  if (!messages_span(text, begin, end, &list)) return false;
  // (the request's nesting: the list's, one more for the request object)
  if (list.kind() != Kind::List || list.items().empty() || jinja::nesting_depth(list) + 1 > c.max_depth) return false;
  const auto& items = list.items();
  constexpr size_t kLinearShapes = 16;
  std::unordered_map<std::string, uint32_t> distinct;
  std::string shape;
  st.shape_of.reserve(items.size());
  st.slot_begin.reserve(items.size() + 1);
  st.sources.reserve(items.size());
  // (a message mostly has a slot or two: content, a tool call's id and arguments)
  st.slots.reserve(2 * items.size());
  // the distinct shape at `index` (new when it is shapes.size())
  auto take = [&](uint32_t index, const std::string& shape) {
    if (index == st.shapes.size()) {
      if (!distinct.empty()) distinct.emplace(shape, index);
      st.shapes.push_back(shape);
    }
    st.shape_of.push_back(index);
  };
  auto find_shape = [&](const std::string& shape) {
    if (st.shapes.size() <= kLinearShapes) {
      for (size_t k = st.shapes.size(); k-- > 0;)
        if (st.shapes[k] == shape) return uint32_t(k);
      return uint32_t(st.shapes.size());
    }
    if (distinct.empty())
      for (size_t k = 0; k < st.shapes.size(); ++k) distinct.emplace(st.shapes[k], uint32_t(k));
    auto it = distinct.find(shape);
    return it != distinct.end() ? it->second : uint32_t(st.shapes.size());
  };
  for (const Value& m : items) {
    if (m.kind() != Kind::Dict) {
      st.drop_request();
      return false;
    }
    const uint32_t first_slot = uint32_t(st.slots.size());
    st.slot_begin.push_back(first_slot);
    // a shape planned lately, matched without writing the message's shape
    const std::shared_ptr<const Plan>* matched = nullptr;
    for (const auto& p : cache->recent) {
      // (a plan that keeps the whole message as it is reads no slot)
      if (matches(p->match, m, p->root.k == PlanNode::K::Source ? nullptr : &st.slots)) {
        matched = &p;
        break;
      }
      st.slots.resize(first_slot);
    }
    if (matched != nullptr) {
      // (its index among the request's shapes: by plan while they are few)
      uint32_t index = uint32_t(st.plans.size());
      if (st.plans.size() <= kLinearShapes) {
        for (size_t k = st.plans.size(); k-- > 0;)
          if (st.plans[k] == *matched) {
            index = uint32_t(k);
            break;
          }
      } else {
        index = find_shape((*matched)->shape);
      }
      if (index == st.plans.size()) st.plans.push_back(*matched);
      take(index, (*matched)->shape);
      st.sources.push_back(m);
      continue;
    }
    // (a request mostly has a few distinct shapes, looked through one by
    // one; past kLinearShapes, an index)
    shape.clear();
    ShapeWriter w{c, shape, st.slots};
    if (!w.value(m, 1, false)) {
      st.drop_request();
      return false;
    }
    const uint32_t index = find_shape(shape);
    if (index == st.shapes.size()) {
      auto known = cache->plans.find(shape);
      if (known == cache->plans.end()) {
        out.unplanned.push_back(shape);
        st.plans.push_back(nullptr);
      } else if (!known->second->ok) {
        // a shape the package could not plan: its requests take the usual path
        st.drop_request();
        return false;
      } else {
        st.plans.push_back(known->second);
        remember_plan(*cache, known->second);
      }
    }
    take(index, shape);
    st.sources.push_back(m);
  }
  st.slot_begin.push_back(uint32_t(st.slots.size()));
  out.rest.reserve(text.size() - (end - begin) + 2);
  out.rest.append(text, 0, begin).append("[]").append(text, end, std::string::npos);
  remember(std::move(text));
  st.cache = cache;
  st.ticket = out.ticket = st.next_ticket++;
  return true;
}

void add_plans(std::string_view config, const std::vector<std::pair<std::string, std::string>>& plans) {
  Cache* cache = cache_for(config);
  if (cache == nullptr) return;
  if (cache->plans.size() + plans.size() > kMaxPlans) {
    cache->plans.clear();
    cache->recent.clear();
  }
  for (const auto& [shape, json] : plans) {
    auto plan = std::make_shared<Plan>();
    if (!json.empty()) {
      try {
        const Value shape_value = jinja::json_loads(shape);
        plan->ok = compile(cache->config, jinja::json_loads(json), &shape_value, plan->root, 1);
        // a pattern only for a shape whose text is what this side writes
        // for its value (so a message matching it has that same text)
        uint32_t slots = 0;
        if (plan->ok && shape_value.kind() == Kind::Dict && compile_shape(cache->config, shape_value, false, slots, plan->match)) {
          std::string written;
          std::vector<Value> ignored;
          ShapeWriter w{cache->config, written, ignored};
          plan->matchable = w.value(shape_value, 1, false) && written == shape;
        }
      } catch (const jinja::Error&) {
        plan->ok = false;
      }
    }
    plan->shape = shape;
    auto& slot = cache->plans[shape];
    if (slot != nullptr) {
      // (a shape planned again: its earlier plan is matched no more)
      auto& r = cache->recent;
      r.erase(std::remove(r.begin(), r.end(), slot), r.end());
    }
    remember_plan(*cache, plan);
    slot = std::move(plan);
  }
}

bool planned_messages(uint64_t ticket, Value& out) {
  State& st = g_state;
  if (ticket == 0 || ticket != st.ticket || st.cache == nullptr) return false;
  // the messages are built where the request's parse has them: the ticket
  // is spent, whatever the outcome
  Cache* cache = st.cache;
  std::vector<std::string> shapes = std::move(st.shapes);
  std::vector<std::shared_ptr<const Plan>> plans = std::move(st.plans);
  std::vector<Value> messages = std::move(st.sources);
  std::vector<Value> slots = std::move(st.slots);
  std::vector<uint32_t> slot_begin = std::move(st.slot_begin);
  std::vector<uint32_t> shape_of = std::move(st.shape_of);
  st.drop_request();
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (plans[i] == nullptr) {
      // planned since shape_request
      auto it = cache->plans.find(shapes[i]);
      if (it == cache->plans.end()) return false;
      plans[i] = it->second;
    }
    if (!plans[i]->ok) return false;
  }
  SlotDecoder decoder;
  try {
    for (size_t i = 0; i < messages.size(); ++i) {
      uint32_t begin = slot_begin[i];
      if (!rebuild(plans[shape_of[i]]->root, messages[i], slots.data() + begin, slot_begin[i + 1] - begin, decoder)) return false;
    }
    out = Value::list(std::move(messages));
    // (the buffers go back, emptied, for the next request: a history's
    // next request mostly needs as much)
    slots.clear();
    slot_begin.clear();
    shape_of.clear();
    st.slots = std::move(slots);
    st.slot_begin = std::move(slot_begin);
    st.shape_of = std::move(shape_of);
  } catch (const jinja::Error&) {
    // (a bound the built message passes, such as a decoded slot nested past
    // the engine's depth: the usual path gives its own error for it)
    return false;
  }
  return true;
}

void forget_plans() {
  g_recent.clear();
  g_state.drop_request();
  g_state.caches.clear();
}

}  // namespace nvc
