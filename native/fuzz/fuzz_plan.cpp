// libFuzzer target: the planned path (native/conversation/plan.cpp), which
// takes a chat request apart into message shapes and builds its template
// messages again from the plans the package made for those shapes.
//
// The input is a request text, then, optionally, a NUL byte, a flags byte,
// a plan byte and a plan text (the rest of the input):
//   <request> \0 <flags> <plan byte> <plan text>
// Without a NUL the whole input is the request, with kDefaultFlags and every
// shape planned as itself.
//   flags bit 0  shape the same request again once its shapes are planned
//         bit 1  forget every plan before that second time
//         bit 2  keep the plans in two batches, with one more plan between
//                them whose shape and plan are both the plan text (when
//                that could be a shape, and not one of the request's)
//         bit 3  then shape a request that continues the first: one more
//                message after its last (the cache of recent texts)
//         bit 4  before building, keep plans under other configs, so that
//                the request's own config may leave the cache
//   plan byte bits 0-2  how an unplanned shape is planned: 0 the shape
//                itself, 1 its `arguments` slots (and now and then others)
//                as "decoded" markers, 2 rearranged (keys reversed, slots
//                wrapped in text parts or used twice, keys added or
//                dropped), 3 the plan text, 4 the empty plan (cannot plan),
//                5-7 one of these per shape, by a hash of the shape
//             bit 3  the config whose nesting bound is 6 instead of 64
//             bits 4-7  mixed into that hash
//
// Each input starts and ends with forget_plans(), so that it runs alone
// (a finding replays from its own bytes). Besides crashes, sanitizer
// reports and exceptions leaving the API (planned_messages declines, and
// never raises, where the value it builds nests past the engine's bound):
//  - a shaped request's `rest` is its text with one list, of objects,
//    written as `[]`; the rest parses exactly when the whole text does,
//    which is then an object with that list as `messages` and the rest's
//    other members;
//  - the unplanned shapes are distinct, each is a message of that list
//    written as compact JSON with its non-empty strings under opaque keys
//    as slot markers, and (while the plans kept are known here) they are
//    exactly the list's shapes without a plan, in order of first
//    appearance;
//  - planned_messages agrees with a plain reading of the plans: each
//    message is its shape's plan with slot k's marker string replaced by
//    the message's k-th slot string, and {"\u0000<nonce>":k} by that string
//    decoded as JSON. A plan that reads so gives exactly that list (and,
//    with the plans known here, must not decline); one that cannot (a slot
//    past the message's count, a nonce in a key or inside text, nesting
//    past the bound, a decoded slot that is not an object, the empty plan)
//    must decline. Where every plan is its shape itself, the list is the
//    request's `messages`, value for value;
//  - a ticket is spent by its first build (the messages are built where
//    the request's parse holds them): building again declines, as a ticket
//    does once another request is shaped or the plans are forgotten.
// A request spelling the nonce itself (which the package's random nonce
// rules out) is only run, not compared.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "conversation/plan.h"
#include "errors.h"
#include "json.h"
#include "value.h"

namespace {

using jinja::Kind;
using jinja::Value;

// A nonce as the package draws it (16 random bytes, hex), fixed here.
constexpr std::string_view kNonce = "7c1e94b2a05d3f68e2b71c09d4a8f356";
constexpr std::string_view kOpaque = "content\ntext\nname\ntool_call_id\nid\narguments\nreasoning\nreasoning_content\nthinking";
// The package's config (src/conversation/planned.ts, configOf), and one with a small nesting bound.
const std::string kConfig = std::string(kNonce) + "\n64\nstring/strict/system\n" + std::string(kOpaque);
const std::string kShallowConfig = std::string(kNonce) + "\n6\nopenai/lenient/developer\n" + std::string(kOpaque);
// Other configs kept before building (flags bit 4): more than the cache
// holds, and one that does not parse.
const char* const kOtherTags[] = {"string/strict/developer", "string/lenient/system", "openai/strict/system", "openai/lenient/system", "openai/strict/developer"};

constexpr uint8_t kDefaultFlags = 0x01 | 0x08;
// Plans kept since the last forget_plans() beyond which the cache may have
// started over (plan.cpp bounds it; well below that bound here).
constexpr size_t kKnownPlans = 256;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_plan: %s\n", what.c_str());
  std::abort();
}

// json.dumps of a value, or the error it raises (values compared by their text).
std::string dumps(const Value& v) {
  try {
    return jinja::json_dumps(v, {});
  } catch (const jinja::Error& e) {
    return "error " + e.python_type + ": " + e.what();
  }
}

std::string compact(const Value& v) {
  jinja::JsonDumpsOptions o;
  o.item_separator = ",";
  o.key_separator = ":";
  return jinja::json_dumps(v, o);
}

struct Settings {
  std::string text;  // the config
  size_t max_depth;
  std::string decoded_key;  // NUL, then the nonce
};

Settings settings_of(const std::string& config, size_t max_depth) {
  return Settings{config, max_depth, std::string(1, '\0') + std::string(kNonce)};
}

bool is_opaque(std::string_view key) {
  std::string_view keys = kOpaque;
  while (!keys.empty()) {
    size_t nl = keys.find('\n');
    if (keys.substr(0, nl) == key) return true;
    if (nl == std::string_view::npos) break;
    keys.remove_prefix(nl + 1);
  }
  return false;
}

std::string marker(size_t k) { return "{\"\\u0000" + std::string(kNonce) + "\":" + std::to_string(k) + "}"; }

// The slot number of a marker string as a shape writes it (digits without
// a leading zero); -1: not such a marker; -2: the marker's form with other
// digits (leading zeros, past 32 bits), which this reading leaves open.
long long marker_slot(std::string_view s) {
  const std::string prefix = "{\"\\u0000" + std::string(kNonce) + "\":";
  if (s.size() < prefix.size() + 2 || s.substr(0, prefix.size()) != prefix || s.back() != '}') return -1;
  std::string_view digits = s.substr(prefix.size(), s.size() - prefix.size() - 1);
  unsigned long long k = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return -1;
    if (k > 0xFFFFFFFFull) return -2;
    k = k * 10 + unsigned(c - '0');
  }
  if ((digits.size() > 1 && digits[0] == '0') || k > 0xFFFFFFFFull) return -2;
  return (long long)k;
}

bool spells_nonce(const Value& v) {
  switch (v.kind()) {
    case Kind::Str: return v.as_str().find(kNonce) != std::string::npos;
    case Kind::List:
      for (const Value& item : v.items())
        if (spells_nonce(item)) return true;
      return false;
    case Kind::Dict:
      for (const auto& [k, item] : v.as_dict().entries())
        if (spells_nonce(k) || spells_nonce(item)) return true;
      return false;
    default: return false;
  }
}

// The message with each non-empty string directly under an opaque key
// replaced by its slot marker; those strings go to `slots`, in order.
Value shape_value(const Value& v, bool under_opaque, std::vector<std::string>& slots) {
  switch (v.kind()) {
    case Kind::Str:
      if (under_opaque && !v.as_str().empty()) {
        slots.push_back(v.as_str());
        return Value::string(marker(slots.size() - 1));
      }
      return v;
    case Kind::List: {
      std::vector<Value> items;
      for (const Value& item : v.items()) items.push_back(shape_value(item, false, slots));
      return Value::list(std::move(items));
    }
    case Kind::Dict: {
      auto d = std::make_shared<jinja::DictData>();
      for (const auto& [k, item] : v.as_dict().entries()) d->set(k, shape_value(item, k.is_str() && is_opaque(k.as_str()), slots));
      return Value::dict(std::move(d));
    }
    default: return v;
  }
}

// What a plan gives for one message, read plainly.
enum class Expect { Value, Decline, Open };

Expect worst(Expect a, Expect b) {
  if (a == Expect::Decline || b == Expect::Decline) return Expect::Decline;
  if (a == Expect::Open || b == Expect::Open) return Expect::Open;
  return Expect::Value;
}

// A decoded slot: only a JSON object is taken. A \uD800-\uDFFF escape
// anywhere (even a valid pair) may be turned down as a lone surrogate,
// so such texts are left open.
Expect decode(const std::string& text, Value& out) {
  for (size_t i = text.find("\\u"); i != std::string::npos; i = text.find("\\u", i + 1)) {
    if (i + 3 < text.size() && (text[i + 2] == 'd' || text[i + 2] == 'D') && std::string_view("89abcdefABCDEF").find(text[i + 3]) != std::string_view::npos)
      return Expect::Open;
  }
  try {
    out = jinja::json_loads(text);
  } catch (const jinja::Error&) {
    return Expect::Decline;
  }
  return out.kind() == Kind::Dict ? Expect::Value : Expect::Decline;
}

// The plan value `p` (at nesting `depth`, the message itself at 1) with the
// message's slots filled in.
Expect fill(const Value& p, size_t depth, const Settings& s, const std::vector<std::string>& slots, Value& out) {
  if (depth > s.max_depth) return Expect::Decline;
  switch (p.kind()) {
    case Kind::Str: {
      const std::string& str = p.as_str();
      if (str.find(kNonce) == std::string::npos) {
        out = p;
        return Expect::Value;
      }
      long long k = marker_slot(str);
      if (k == -2) return Expect::Open;
      if (k < 0 || size_t(k) >= slots.size()) return Expect::Decline;  // a nonce inside other text; a slot the message lacks
      out = Value::string(slots[size_t(k)]);
      return Expect::Value;
    }
    case Kind::List: {
      std::vector<Value> items(p.items().size());
      Expect e = Expect::Value;
      for (size_t i = 0; i < items.size(); ++i) e = worst(e, fill(p.items()[i], depth + 1, s, slots, items[i]));
      if (e == Expect::Value) out = Value::list(std::move(items));
      return e;
    }
    case Kind::Dict: {
      const auto& entries = p.as_dict().entries();
      if (entries.size() == 1 && entries[0].first.is_str() && entries[0].first.as_str() == s.decoded_key) {
        const Value& k = entries[0].second;
        if (k.kind() != Kind::Int || k.as_int() < 0 || uint64_t(k.as_int()) >= slots.size()) return Expect::Decline;
        return decode(slots[size_t(k.as_int())], out);
      }
      auto d = std::make_shared<jinja::DictData>();
      Expect e = Expect::Value;
      for (const auto& [key, item] : entries) {
        if (key.is_str() && key.as_str().find(kNonce) != std::string::npos) return Expect::Decline;
        Value v;
        e = worst(e, fill(item, depth + 1, s, slots, v));
        if (e == Expect::Value) d->set(key, std::move(v));
      }
      if (e == Expect::Value) out = Value::dict(std::move(d));
      return e;
    }
    default:
      out = p;
      return Expect::Value;
  }
}

// A plan text read for one message; an empty plan cannot plan.
Expect fill_plan(const std::string& plan, const Settings& s, const std::vector<std::string>& slots, Value& out) {
  if (plan.empty()) return Expect::Decline;
  Value p;
  try {
    p = jinja::json_loads(plan);
  } catch (const jinja::Error&) {
    return Expect::Decline;  // not JSON
  }
  try {
    return fill(p, 1, s, slots, out);
  } catch (const jinja::Error&) {
    return Expect::Open;  // a message nested past the engine's bound
  }
}

uint64_t hash(std::string_view s, uint64_t h) {
  h ^= 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

struct Rng {
  uint64_t s;
  uint32_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return uint32_t(s >> 32);
  }
  bool one_in(uint32_t n) { return next() % n == 0; }
};

Value decoded_marker(const Settings& s, int64_t k) {
  auto d = std::make_shared<jinja::DictData>();
  d->set(Value::string(s.decoded_key), Value::integer(k));
  return Value::dict(std::move(d));
}

// The shape with its `arguments` markers (and now and then another) as
// decoded markers; now and then one slot past the message's own.
Value with_decoded(const Value& v, bool arguments, const Settings& s, Rng& rng) {
  switch (v.kind()) {
    case Kind::Str: {
      long long k = marker_slot(v.as_str());
      if (k < 0 || !(arguments || rng.one_in(32))) return v;
      return decoded_marker(s, k + (rng.one_in(32) ? 1 : 0));
    }
    case Kind::List: {
      std::vector<Value> items;
      for (const Value& item : v.items()) items.push_back(with_decoded(item, false, s, rng));
      return Value::list(std::move(items));
    }
    case Kind::Dict: {
      auto d = std::make_shared<jinja::DictData>();
      for (const auto& [k, item] : v.as_dict().entries()) d->set(k, with_decoded(item, k.is_str() && k.as_str() == "arguments", s, rng));
      return Value::dict(std::move(d));
    }
    default: return v;
  }
}

// The shape moved about as a template message may be: keys in another
// order, a slot wrapped in a text part, used twice, keys added or dropped.
Value rearranged(const Value& v, Rng& rng) {
  switch (v.kind()) {
    case Kind::Str: {
      if (marker_slot(v.as_str()) < 0 || !rng.one_in(4)) return v;
      auto part = std::make_shared<jinja::DictData>();
      part->set(Value::string("type"), Value::string("text"));
      part->set(Value::string("text"), v);
      return Value::list({Value::dict(std::move(part))});
    }
    case Kind::List: {
      std::vector<Value> items;
      for (const Value& item : v.items()) items.push_back(rearranged(item, rng));
      if (items.size() > 1 && rng.one_in(4)) std::reverse(items.begin(), items.end());
      return Value::list(std::move(items));
    }
    case Kind::Dict: {
      std::vector<std::pair<Value, Value>> entries;
      Value a_marker;
      for (const auto& [k, item] : v.as_dict().entries()) {
        if (item.is_str() && marker_slot(item.as_str()) >= 0) a_marker = item;
        if (rng.one_in(8)) continue;  // dropped
        entries.emplace_back(k, rearranged(item, rng));
      }
      if (entries.size() > 1 && rng.one_in(2)) std::reverse(entries.begin(), entries.end());
      auto d = std::make_shared<jinja::DictData>();
      for (auto& [k, item] : entries) d->set(std::move(k), std::move(item));
      if (rng.one_in(8)) d->set(Value::string("extra"), rng.one_in(2) ? Value::integer(7) : Value::string("kept as it is"));
      if (a_marker.is_str() && rng.one_in(4)) d->set(Value::string("copy"), a_marker);
      return Value::dict(std::move(d));
    }
    default: return v;
  }
}

struct Input {
  std::string_view request;
  uint8_t flags = kDefaultFlags;
  uint8_t plan_byte = 0;
  std::string plan_text;
};

// The plan this input makes for a shape (the same every time it is asked).
std::string plan_for(const std::string& shape, const Input& in, const Settings& s) {
  Rng rng{hash(shape, in.plan_byte) | 1};
  uint32_t how = in.plan_byte & 7;
  if (how >= 5) {
    const uint32_t r = rng.next() % 16;
    how = r < 6 ? 0 : r < 10 ? 1 : r < 14 ? 2 : r < 15 ? 3 : 4;
  }
  if (how == 0) return shape;
  if (how == 3) return in.plan_text;
  if (how == 4) return "";
  Value v;
  try {
    v = jinja::json_loads(shape);
  } catch (const jinja::Error& e) {
    fail("a shape that is not JSON (" + std::string(e.what()) + "): " + shape);
  }
  return compact(how == 1 ? with_decoded(v, false, s, rng) : rearranged(v, rng));
}

// What this input knows of the plans kept for its config.
struct Known {
  std::map<std::string, std::string> plans;  // shape -> the plan last kept for it
  bool exact = true;  // false: the cache may have dropped some since (flags bit 4, or many plans)
  uint64_t ticket = 0;  // the last request shaped (0: none)
  void forget() {
    plans.clear();
    exact = true;
    ticket = 0;
  }
};

// add_plans (with no plans it still takes the config's cache, as the most
// recently used).
void keep(const std::string& config, const std::vector<std::pair<std::string, std::string>>& plans, Known& known) {
  try {
    nvc::add_plans(config, plans);
  } catch (const std::exception& e) {
    fail(std::string("add_plans raised: ") + e.what());
  }
  for (const auto& [shape, plan] : plans) known.plans[shape] = plan;
  if (known.plans.size() > kKnownPlans) known.exact = false;
}

// planned_messages: 1 built, 0 declined (it raises nothing).
int build(uint64_t ticket, Value& out) {
  try {
    return nvc::planned_messages(ticket, out) ? 1 : 0;
  } catch (const std::exception& e) {
    fail(std::string("planned_messages raised: ") + e.what());
  }
}

void expect_dead(uint64_t ticket, const char* after) {
  if (ticket == 0) return;
  Value v;
  if (build(ticket, v) != 0) fail(std::string("a ticket still builds after ") + after);
}

// The messages list of a shaped request, checked against `rest`: that is
// the text with one list (the messages, not empty) written as `[]`, the
// list parses as a list of objects, and the rest parses exactly when the
// whole text does, which is then an object whose `messages` is that list
// and whose other members are the rest's.
Value messages_of(std::string_view text, const std::string& rest) {
  size_t same = 0;
  while (same < text.size() && same < rest.size() && text[same] == rest[same]) ++same;
  if (same == 0 || rest.size() < same + 1 || text[same - 1] != '[' || rest[same] != ']' || rest.size() > text.size())
    fail("rest is not the text with its messages list empty: " + rest);
  const size_t begin = same - 1, end = begin + 2 + (text.size() - rest.size());
  if (text[end - 1] != ']' || rest.compare(same + 1, std::string::npos, text.substr(end)) != 0) fail("rest is not the text with its messages list empty: " + rest);
  Value list;
  try {
    list = jinja::json_loads(text.substr(begin, end - begin));
  } catch (const jinja::Error& e) {
    fail("the messages list of a shaped request does not parse (" + std::string(e.what()) + ")");
  }
  if (list.kind() != Kind::List || list.items().empty()) fail("the messages of a shaped request are not a list with items");
  for (const Value& m : list.items())
    if (m.kind() != Kind::Dict) fail("a shaped request has a message that is not an object");
  Value whole, without;
  std::string whole_error, without_error;
  try {
    whole = jinja::json_loads(text);
  } catch (const jinja::Error& e) {
    whole_error = e.what();
  }
  try {
    without = jinja::json_loads(rest);
  } catch (const jinja::Error& e) {
    without_error = e.what();
  }
  if (whole_error.empty() != without_error.empty())
    fail("the request parses " + std::string(whole_error.empty() ? "and its rest does not: " + without_error : "but not its rest: " + whole_error));
  if (whole_error.empty()) {
    if (whole.kind() != Kind::Dict) fail("a shaped request is not an object");
    const Value* m = whole.as_dict().find_str("messages");
    if (m == nullptr || dumps(*m) != dumps(list)) fail("the list shaped is not the request's messages");
    auto d = std::make_shared<jinja::DictData>(whole.as_dict());
    d->set(Value::string("messages"), Value::list({}));
    if (dumps(without) != dumps(Value::dict(std::move(d)))) fail("rest is not the request without its messages: " + rest);
  }
  return list;
}

// Shapes `text`, plans what it brings, builds its messages, and checks all of it.
// Returns whether the request was shaped (and its messages list, in `shaped`).
bool run_round(std::string_view text, const Input& in, const Settings& s, Known& known, Value* shaped = nullptr) {
  nvc::ShapeReport rep;
  bool ok = false;
  try {
    ok = nvc::shape_request(std::string(text), s.text, rep);
  } catch (const std::exception& e) {
    fail(std::string("shape_request raised: ") + e.what());
  }
  expect_dead(known.ticket, "another request was shaped");
  known.ticket = ok ? rep.ticket : 0;
  if (!ok) return false;
  if (rep.continues || rep.ticket == 0) fail("a shaped request reports that it continues another, or has no ticket");

  const Value list = messages_of(text, rep.rest);
  const Value* messages = &list;
  if (shaped != nullptr) *shaped = list;
  const bool spelled = spells_nonce(list);
  // each message's shape and slots
  std::vector<std::string> shapes;
  std::vector<std::vector<std::string>> slots;
  std::vector<std::string> distinct;
  std::set<std::string> seen;
  for (const Value& m : messages->items()) {
    if (m.kind() != Kind::Dict) fail("a shaped request has a message that is not an object");
    slots.emplace_back();
    shapes.push_back(compact(shape_value(m, false, slots.back())));
    if (seen.insert(shapes.back()).second) distinct.push_back(shapes.back());
  }
  std::set<std::string> reported;
  for (const std::string& u : rep.unplanned) {
    if (!reported.insert(u).second) fail("a shape reported twice: " + u);
    if (seen.count(u) == 0) fail("a reported shape that no message of the request has: " + u);
  }
  if (known.exact) {
    std::vector<std::string> want;
    for (const std::string& sh : distinct) {
      auto it = known.plans.find(sh);
      if (it == known.plans.end()) want.push_back(sh);
      else if (it->second.empty()) fail("a request shaped whose shape has the empty plan: " + sh);
    }
    if (want != rep.unplanned) fail("the unplanned shapes are not the request's shapes without a plan");
  }

  // plans for the new shapes
  std::vector<std::pair<std::string, std::string>> plans;
  for (const std::string& u : rep.unplanned) plans.emplace_back(u, plan_for(u, in, s));
  if (in.flags & 0x04) {
    const size_t half = plans.size() / 2;
    std::vector<std::pair<std::string, std::string>> first(plans.begin(), plans.begin() + long(half));
    // one more plan, for a shape the request does not have: the plan text,
    // where it could be a shape the package was given (no control bytes: a
    // shape is JSON text without whitespace) and is none of this request's
    // (whose plans are taken as they are when it is shaped)
    const bool control = std::any_of(in.plan_text.begin(), in.plan_text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; });
    if (!control && seen.count(in.plan_text) == 0) first.emplace_back(in.plan_text, in.plan_text);
    keep(s.text, first, known);
    keep(s.text, std::vector<std::pair<std::string, std::string>>(plans.begin() + long(half), plans.end()), known);
  } else {
    keep(s.text, plans, known);
  }
  if (in.flags & 0x10) {
    Known elsewhere;
    for (const char* tag : kOtherTags) keep(std::string(kNonce) + "\n64\n" + tag + "\n" + std::string(kOpaque), plans, elsewhere);
    keep("not a nonce\n64\nbroken\ncontent", plans, elsewhere);
    known.exact = false;
  }

  // the messages the plans give, read plainly
  Expect expect = Expect::Value;
  bool identity = true;
  std::vector<Value> want(shapes.size());
  for (size_t i = 0; i < shapes.size() && expect != Expect::Decline; ++i) {
    auto it = known.plans.find(shapes[i]);
    if (it == known.plans.end()) fail("a shape of the request with no plan kept: " + shapes[i]);
    identity &= it->second == shapes[i];
    expect = worst(expect, fill_plan(it->second, s, slots[i], want[i]));
  }
  if (spelled) expect = Expect::Open;

  Value got;
  const int built = build(rep.ticket, got);
  if (built == 1) {
    if (got.kind() != Kind::List || got.items().size() != shapes.size()) fail("planned_messages gave no list of one item per message");
    if (expect == Expect::Decline) fail("planned_messages built what its plans cannot give: " + dumps(got));
    if (expect == Expect::Value) {
      const std::string want_text = dumps(Value::list(want));
      const std::string got_text = dumps(got);
      if (got_text != want_text) fail("planned_messages differs from its plans:\n  built " + got_text + "\n  plans " + want_text);
    }
    if (identity && !spelled && dumps(got) != dumps(*messages))
      fail("identity plans do not give the request's messages:\n  built " + dumps(got) + "\n  request " + dumps(*messages));
  } else {
    if (expect == Expect::Value && known.exact) fail("planned_messages declined plans that give a value");
  }
  Value again;
  if (build(rep.ticket, again) != 0) fail("a spent ticket built again");
  return true;
}

// The request with one more message after its last: inserted before the
// last `]` that follows a `}` (the end of `messages` in the usual request).
std::string continued(std::string_view text) {
  for (size_t p = text.rfind(']'); p != std::string_view::npos && p > 0; p = text.rfind(']', p - 1)) {
    size_t q = p;
    while (q > 0 && std::string_view(" \t\r\n").find(text[q - 1]) != std::string_view::npos) --q;
    if (q > 0 && text[q - 1] == '}') return std::string(text.substr(0, q)) + ",{\"role\":\"user\",\"content\":\"and then?\"}" + std::string(text.substr(q));
  }
  return std::string(text);
}

void forget(Known& known) {
  try {
    nvc::forget_plans();
  } catch (const std::exception& e) {
    fail(std::string("forget_plans raised: ") + e.what());
  }
  known.forget();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 256 * 1024) return -1;
  const std::string_view all(reinterpret_cast<const char*>(data), size);
  Input in;
  const size_t nul = all.find('\0');
  in.request = all.substr(0, nul);
  if (nul != std::string_view::npos) {
    std::string_view tail = all.substr(nul + 1);
    in.flags = tail.size() > 0 ? uint8_t(tail[0]) : 0;
    in.plan_byte = tail.size() > 1 ? uint8_t(tail[1]) : 0;
    if (tail.size() > 2) in.plan_text.assign(tail.substr(2));
  }
  const Settings s = (in.plan_byte & 0x08) ? settings_of(kShallowConfig, 6) : settings_of(kConfig, 64);

  Known known;
  forget(known);
  Value first_list;
  const bool shaped = run_round(in.request, in, s, known, &first_list);
  if (in.flags & 0x01) {
    const uint64_t first = known.ticket;
    const bool exact = known.exact;
    const std::map<std::string, std::string> kept = known.plans;
    if (in.flags & 0x02) {
      forget(known);
      expect_dead(first, "forget_plans");
    }
    const bool again = run_round(in.request, in, s, known);
    // the same text again, with every shape planned: declined only where a
    // plan of one of its shapes cannot be used
    if (shaped && exact && !again && !(in.flags & 0x02)) {
      bool usable = true;
      for (const Value& m : first_list.items()) {
        std::vector<std::string> slots;
        const std::string shape = compact(shape_value(m, false, slots));
        auto it = kept.find(shape);
        Value v;
        if (it == kept.end() || fill_plan(it->second, s, slots, v) != Expect::Value) usable = false;
      }
      if (usable && !spells_nonce(first_list)) fail("a request shaped before is declined the second time, with usable plans for all its shapes");
    }
  }
  if (in.flags & 0x08) {
    const std::string next = continued(in.request);
    if (next.size() != in.request.size()) run_round(next, in, s, known);
  }
  forget(known);
  return 0;
}
