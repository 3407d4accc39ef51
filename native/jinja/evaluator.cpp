// Renderer. Scopes are small vectors of (name, value) chained to their
// parent frame; lookups fall through to the render context and then to the
// globals, as Jinja2's resolve() does. Scope objects are pooled per render
// and reused between loop iterations unless a macro captured them.
#include "evaluator.h"
#include "methods.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <memory>
#include <typeinfo>
#include <unordered_map>

#include "compiler.h"
#include "errors.h"
#include "globals.h"
#include "operators.h"
#include "pyformat.h"

namespace jinja {

namespace {

using namespace ast;

enum class Flow { Normal, Break, Continue };

struct Scope {
  struct Var {
    NameId id;
    Value value;
  };
  Scope* parent = nullptr;
  std::vector<Var> vars;
  bool captured = false;  // a macro/caller closes over it: never recycled

  const Value* find(NameId id) const {
    for (auto it = vars.rbegin(); it != vars.rend(); ++it)
      if (it->id == id) return &it->value;
    return nullptr;
  }
  void set(NameId id, Value v) {
    for (auto& var : vars) {
      if (var.id == id) {
        var.value = std::move(v);
        return;
      }
    }
    vars.push_back(Var{id, std::move(v)});
  }
};

[[noreturn]] void limit_error(const std::string& what) { throw Error(ErrorKind::Limit, "LimitError", what); }
// Python reaches its recursion limit where we hit a depth bound.
[[noreturn]] void recursion_error(const std::string& what) { throw Error(ErrorKind::Limit, "RecursionError", what); }

class Evaluator;

// Jinja2's LoopContext: the `loop` variable of a for-loop.
class LoopObject : public Object, public std::enable_shared_from_this<LoopObject> {
 public:
  const std::vector<Value>* items = nullptr;
  size_t index0 = 0;
  int depth0 = 0;
  Evaluator* ev = nullptr;
  const Stmt* for_stmt = nullptr;  // set for recursive loops
  Scope* outer = nullptr;
  bool have_changed = false;
  std::vector<Value> last_changed;

  std::string type_name() const override { return "LoopContext"; }
  std::string repr() const override {
    return "<LoopContext " + std::to_string(index0 + 1) + "/" + std::to_string(items->size()) + ">";
  }
  bool callable() const override { return for_stmt != nullptr; }
  Value call(RenderState& st, CallArgs& args) override;
  Value get_attr(RenderState& st, std::string_view name) const override;

  // The plain data attributes, numbered for Expr::loop_attr (code k is
  // kDataAttrs[k - 1]); what get_attr answers for those names.
  static constexpr const char* kDataAttrs[] = {"index", "index0", "revindex", "revindex0", "first",
                                               "last",  "length", "depth",    "depth0"};
  static uint8_t data_attr_code(std::string_view name) {
    for (size_t k = 0; k < std::size(kDataAttrs); ++k)
      if (name == kDataAttrs[k]) return uint8_t(k + 1);
    return 0;
  }
  Value data_attr(uint8_t code) const {
    size_t n = items->size();
    switch (code) {
      case 1: return Value::integer(static_cast<int64_t>(index0 + 1));
      case 2: return Value::integer(static_cast<int64_t>(index0));
      case 3: return Value::integer(static_cast<int64_t>(n - index0));
      case 4: return Value::integer(static_cast<int64_t>(n - index0 - 1));
      case 5: return Value::boolean(index0 == 0);
      case 6: return Value::boolean(index0 + 1 == n);
      case 7: return Value::integer(static_cast<int64_t>(n));
      case 8: return Value::integer(depth0 + 1);
      default: return Value::integer(depth0);
    }
  }

 private:
  Value method(const char* name, Value (*impl)(LoopObject&, CallArgs&)) const {
    auto fd = std::make_shared<FunctionData>();
    fd->fn_kind = FunctionData::FnKind::BoundMethod;
    fd->name = name;
    fd->repr = "<bound method LoopContext." + std::string(name) + " of " + repr() + ">";
    std::weak_ptr<LoopObject> self = const_cast<LoopObject*>(this)->weak_from_this();
    fd->fn = [self, impl](RenderState&, CallArgs& a) -> Value {
      auto p = self.lock();
      if (!p) return Value();
      return impl(*p, a);
    };
    return Value::function(fd);
  }
};

class Evaluator {
 public:
  Evaluator(const Template& tpl, const DictData& ctx, RenderState& st)
      : tpl_(tpl), ctx_(ctx), globals_(default_globals()), st_(st), outer_(tpl.names.size(), kUnresolved) {}

  std::string run() {
    stack_base_ = stack_position();
    std::string out;
    size_t hint = tpl_.output_hint.load(std::memory_order_relaxed);
    constexpr size_t kMaxReserve = 16u << 20;  // a one-off huge render must not pin memory in later ones
    out.reserve(std::min({std::max<size_t>(4096, hint + hint / 8), kMaxReserve, st_.limits.max_output_bytes}));
    Scope* root = acquire(nullptr);
    root_ = root;
    prebind(root, tpl_.root_prebind_ids);
    exec_body(tpl_.body, root, out);
    tpl_.output_hint.store(out.size(), std::memory_order_relaxed);
    return out;
  }

  Value call_macro(const Stmt& m, Scope* closure, CallArgs& args);
  Value run_loop(const Stmt& f, Scope* outer, const Value& iterable, int depth0);

 private:
  const Template& tpl_;
  const DictData& ctx_;
  const DictData& globals_;
  RenderState& st_;
  Scope* root_ = nullptr;
  std::deque<Scope> pool_;
  std::vector<Scope*> free_;
  // Per NameId: the context's or else the globals' value (null: neither
  // has it), resolved on the first lookup that falls through the scopes.
  static inline const Value kUnresolvedTag{};
  static constexpr const Value* kUnresolved = &kUnresolvedTag;
  mutable std::vector<const Value*, PoolAllocator<const Value*>> outer_;

  // Two bounds keep the recursive walk safe: RenderState::depth counts
  // macro calls and recursive-loop calls (limits.max_depth), and every
  // nested statement/expression checks how much native stack the render
  // has used so far (deep but legal recursion through large bodies still
  // stops with a LimitError long before the thread's stack runs out).
  static constexpr size_t kStackBudget = 2u << 20;
  const char* stack_base_ = nullptr;

  void check_stack() const {
    const char* p = stack_position();
    size_t used = stack_base_ > p ? static_cast<size_t>(stack_base_ - p) : static_cast<size_t>(p - stack_base_);
    if (used > kStackBudget) recursion_error("maximum nesting depth exceeded");
  }

  struct NestGuard {
    explicit NestGuard(const Evaluator& ev) { ev.check_stack(); }
  };

  struct CallDepthGuard {
    RenderState& st;
    explicit CallDepthGuard(RenderState& st) : st(st) {
      if (++st.depth > st.limits.max_depth) {
        --st.depth;
        recursion_error("maximum recursion depth exceeded");
      }
    }
    ~CallDepthGuard() { --st.depth; }
  };

  Scope* acquire(Scope* parent) {
    Scope* s;
    if (!free_.empty()) {
      s = free_.back();
      free_.pop_back();
    } else {
      pool_.emplace_back();
      s = &pool_.back();
    }
    s->parent = parent;
    s->vars.clear();
    s->captured = false;
    return s;
  }
  void release(Scope* s) {
    if (!s->captured) {
      s->vars.clear();
      free_.push_back(s);
    }
  }
  struct ScopeHolder {
    Evaluator& ev;
    Scope* s;
    ~ScopeHolder() { ev.release(s); }
  };

  static void prebind(Scope* s, const std::vector<std::pair<NameId, Value>>& names) {
    for (auto& [id, undef] : names) s->vars.push_back(Scope::Var{id, undef});
  }

  const Value* find(Scope* sc, NameId id) const {
    for (Scope* s = sc; s; s = s->parent)
      if (const Value* v = s->find(id)) return v;
    const Value*& slot = outer_[id];
    if (slot == kUnresolved) [[unlikely]] {
      const std::string& name = tpl_.names[id];
      slot = ctx_.find_str(name);
      if (!slot) slot = globals_.find_str(name);
    }
    return slot;
  }
  Value lookup(Scope* sc, NameId id) const {
    if (const Value* v = find(sc, id)) return *v;
    return Value::undefined("'" + tpl_.names[id] + "' is undefined");
  }
  // A Name node carries its id and its prebuilt undefined for the miss case.
  Value lookup(Scope* sc, const Expr& name) const {
    if (const Value* v = find(sc, name.id)) return *v;
    return name.value;
  }

  void write(std::string& out, const Value& v) {
    if (v.is_undefined()) return;
    if (v.is_str()) out += v.as_str();
    else append_py_str(out, v);
    if (out.size() > st_.limits.max_output_bytes) limit_error("output size limit exceeded");
    mem_reserve(out.size());
  }

  // ---- statements -------------------------------------------------------

  Flow exec_body(const Body& body, Scope* sc, std::string& out) {
    for (auto& s : body) {
      Flow f = exec(*s, sc, out);
      if (f != Flow::Normal) return f;
    }
    return Flow::Normal;
  }

  Flow exec(const Stmt& s, Scope* sc, std::string& out) {
    try {
      return exec_inner(s, sc, out);
    } catch (Error& e) {
      if (e.line == 0) e.line = s.line;
      throw;
    }
  }

  Flow exec_inner(const Stmt& s, Scope* sc, std::string& out) {
    switch (s.kind) {
      case StmtKind::Data:
        out += s.text.as_str();
        if (out.size() > st_.limits.max_output_bytes) limit_error("output size limit exceeded");
        return Flow::Normal;
      case StmtKind::Print:
        for (auto& e : s.exprs) {
          Value tmp;
          write(out, eval_ref(*e, sc, tmp));
        }
        return Flow::Normal;
      case StmtKind::If: {
        NestGuard g(*this);
        for (auto& br : s.branches) {
          Value tmp;
          if (truthy(eval_ref(*br.test, sc, tmp))) return exec_body(br.body, sc, out);
        }
        return exec_body(s.else_body, sc, out);
      }
      case StmtKind::For: {
        Value it = eval(*s.iter, sc);
        if (s.recursive) {
          out += run_loop(s, sc, it, 0).as_str();
          return Flow::Normal;
        }
        return for_loop(s, sc, it, 0, out);
      }
      case StmtKind::Set:
        if (s.target->kind == ExprKind::NsRef) {
          // Jinja2 checks the namespace before evaluating the value.
          Value ns = lookup(sc, s.target->id);
          if (ns.kind() != Kind::Object)
            throw_runtime_error("TemplateRuntimeError", "cannot assign attribute on non-namespace object");
          Value v = eval(*s.cond, sc);
          if (!ns.as_object().set_attr(s.target->attr, v))
            throw_runtime_error("TemplateRuntimeError", "cannot assign attribute on non-namespace object");
          return Flow::Normal;
        }
        assign(*s.target, eval(*s.cond, sc), sc);
        return Flow::Normal;
      case StmtKind::SetBlock: {
        Value v;
        Flow f = capture_body(s, sc, [&](Value text, Scope* inner) {
          v = s.iter ? eval_filter_chain(*s.iter, inner, text) : std::move(text);
        });
        if (f != Flow::Normal) return f;
        if (s.target->kind == ExprKind::NsRef) {
          // A block set stores with item assignment and no namespace check.
          Value ns = lookup(sc, s.target->id);
          if (ns.kind() != Kind::Object || !ns.as_object().set_attr(s.target->attr, v)) {
            std::string t = ns.is_undefined() ? "_MissingType" : type_name(ns);
            throw_type_error("'" + t + "' object does not support item assignment");
          }
          return Flow::Normal;
        }
        assign(*s.target, v, sc);
        return Flow::Normal;
      }
      case StmtKind::Macro:
        sc->set(s.name_id, make_macro(s, sc, s.name));
        return Flow::Normal;
      case StmtKind::CallBlock:
        return call_block(s, sc, out);
      case StmtKind::FilterBlock:
        return capture_body(s, sc, [&](Value text, Scope* inner) { write(out, eval_filter_chain(*s.iter, inner, text)); });
      case StmtKind::With: {
        NestGuard g(*this);
        std::vector<Value> vals;
        vals.reserve(s.exprs.size());
        for (auto& e : s.exprs) vals.push_back(eval(*e, sc));
        Scope* inner = acquire(sc);
        ScopeHolder h{*this, inner};
        prebind(inner, s.prebind_ids);
        for (size_t k = 0; k < vals.size(); ++k) assign(*s.targets[k], vals[k], inner);
        return exec_body(s.body, inner, out);
      }
      case StmtKind::Break:
        return Flow::Break;
      case StmtKind::Continue:
        return Flow::Continue;
      case StmtKind::Block: {
        NestGuard g(*this);
        Scope* inner = acquire(root_);
        ScopeHolder h{*this, inner};
        prebind(inner, s.prebind_ids);
        exec_body(s.body, inner, out);
        return Flow::Normal;
      }
      case StmtKind::NoLoader:
        throw_type_error("no loader for this environment specified");
      case StmtKind::Autoescape:
        eval(*s.cond, sc);
        return exec_body(s.body, sc, out);
    }
    return Flow::Normal;
  }

  Flow for_loop(const Stmt& s, Scope* sc, const Value& iterable, int depth0, std::string& out) {
    NestGuard g(*this);
    std::vector<Value> items = iterate(iterable);
    MemHold hold_items(items.capacity() * sizeof(Value));  // alive for the whole loop (and nested recursive loops)
    if (s.cond) {
      // `for x in seq if cond` filters before numbering, in a frame of its own.
      std::vector<Value> kept;
      kept.reserve(items.size());
      Scope* ts = acquire(sc);
      ScopeHolder h{*this, ts};
      for (auto& v : items) {
        ts->vars.clear();
        assign(*s.target, v, ts);
        if (truthy(eval(*s.cond, ts))) kept.push_back(v);
      }
      items.swap(kept);
    }
    if (items.empty()) return run_else(s, sc, out);
    // The loop object is only built when the body can see it.
    std::shared_ptr<LoopObject> loop;
    Value loop_value;
    if (s.uses_loop) {
      loop = std::make_shared<LoopObject>();
      loop->items = &items;
      loop->depth0 = depth0;
      loop->ev = this;
      if (s.recursive) {
        loop->for_stmt = &s;
        loop->outer = sc;
      }
      loop_value = Value::object(loop);
    }
    Scope* body = acquire(sc);
    // Jinja2 clears its "run the else block" flag at the end of the body,
    // so the else also runs when every iteration left through break/continue.
    bool completed_any = false;
    for (size_t k = 0; k < items.size(); ++k) {
      st_.tick();
      if (body->captured) body = acquire(sc);
      body->vars.clear();
      prebind(body, s.prebind_ids);
      if (loop) {
        body->vars.push_back(Scope::Var{kLoopId, loop_value});
        loop->index0 = k;
      }
      assign(*s.target, items[k], body);
      Flow f;
      try {
        f = exec_body(s.body, body, out);
      } catch (...) {
        release(body);
        if (loop) loop->items = nullptr;
        throw;
      }
      if (f == Flow::Normal) completed_any = true;
      if (f == Flow::Break) break;
    }
    release(body);
    // The loop object may outlive the iteration (stored in a namespace);
    // freeze it on a copy of the items so it never points at dead storage.
    Flow result = completed_any || s.else_body.empty() ? Flow::Normal : run_else(s, sc, out);
    if (!loop) return result;
    if (loop.use_count() > 2) {
      auto kept = std::make_shared<std::vector<Value>>(std::move(items));
      loop->items = kept.get();
      keep_alive_.push_back(kept);
    } else {
      loop->items = nullptr;
    }
    return result;
  }

  // The loop's else block, in a frame of its own; break/continue in it
  // belong to an enclosing loop.
  Flow run_else(const Stmt& s, Scope* sc, std::string& out) {
    if (s.else_body.empty()) return Flow::Normal;
    Scope* es = acquire(sc);
    ScopeHolder h{*this, es};
    prebind(es, s.else_prebind_ids);
    return exec_body(s.else_body, es, out);
  }

  std::vector<std::shared_ptr<std::vector<Value>>> keep_alive_;

  // Every call counts one evaluation step and names the call site in errors.
  template <class Call>
  Value counted_call(const Expr& e, Call&& call) {
    try {
      st_.tick();
      return call();
    } catch (Error& err) {
      annotate_call(err, e);
      throw;
    }
  }

  // Renders a block's body ({% set x %}...{% endset %}, {% filter %}) into a
  // string in a fresh child scope, then hands the text to `use` while that
  // scope is still alive (filters applied to the text may read from it).
  template <class Use>
  Flow capture_body(const Stmt& s, Scope* sc, Use&& use) {
    NestGuard g(*this);
    std::string buf;
    Scope* inner = acquire(sc);
    ScopeHolder h{*this, inner};
    prebind(inner, s.prebind_ids);
    Flow f = exec_body(s.body, inner, buf);
    if (f != Flow::Normal) return f;
    use(Value::string(std::move(buf)), inner);
    return Flow::Normal;
  }

  Flow call_block(const Stmt& s, Scope* sc, std::string& out) {
    NestGuard g(*this);
    if (s.generation) {
      Scope* inner = acquire(sc);
      ScopeHolder h{*this, inner};
      prebind(inner, s.prebind_ids);
      exec_body(s.body, inner, out);
      return Flow::Normal;
    }
    Value caller = make_macro(s, sc, "caller");
    const Expr& call = *s.iter;
    Value callee = eval(*call.a, sc);
    CallArgs args = build_args(call, sc);
    args.kwargs.emplace_back("caller", caller);
    Value r;
    try {
      r = call_value(st_, callee, args);
    } catch (Error& e) {
      annotate_call(e, call);
      throw;
    }
    write(out, r);
    return Flow::Normal;
  }

  Value make_macro(const Stmt& m, Scope* closure, const std::string& name) {
    closure->captured = true;
    auto fd = std::make_shared<FunctionData>();
    fd->fn_kind = FunctionData::FnKind::Macro;
    fd->name = name;
    fd->repr = "<Macro '" + name + "'>";
    Evaluator* ev = this;
    const Stmt* mp = &m;
    fd->fn = [ev, mp, closure](RenderState&, CallArgs& a) -> Value { return ev->call_macro(*mp, closure, a); };
    return Value::function(fd);
  }

  // ---- assignment -------------------------------------------------------

  void assign(const Expr& target, const Value& v, Scope* sc) {
    switch (target.kind) {
      case ExprKind::Name:
        sc->set(target.id, v);
        return;
      case ExprKind::NsRef: {
        Value ns = lookup(sc, target.id);
        if (ns.kind() != Kind::Object || !ns.as_object().set_attr(target.attr, v)) {
          throw_runtime_error("TemplateRuntimeError", "cannot assign attribute on non-namespace object");
        }
        return;
      }
      case ExprKind::Tuple: {
        std::vector<Value> parts = iterate(v);
        size_t n = target.items.size();
        if (parts.size() < n) {
          throw_runtime_error("ValueError", "not enough values to unpack (expected " + std::to_string(n) + ", got " +
                                                std::to_string(parts.size()) + ")");
        }
        if (parts.size() > n) {
          throw_runtime_error("ValueError", "too many values to unpack (expected " + std::to_string(n) + ")");
        }
        for (size_t k = 0; k < n; ++k) assign(*target.items[k], parts[k], sc);
        return;
      }
      default:
        throw_runtime_error("TemplateRuntimeError", "invalid assignment target");
    }
  }

  // ---- expressions ------------------------------------------------------

  static const char* construct_name(const Expr& callee) {
    if (callee.kind == ExprKind::Name || callee.kind == ExprKind::Getattr) return callee.name.c_str();
    return nullptr;
  }
  static void annotate_call(Error& e, const Expr& call) {
    if (e.line == 0) e.line = call.line;
    if (e.construct.empty()) {
      const char* n = construct_name(*call.a);
      e.construct = n ? "call to '" + std::string(n) + "'" : "call";
    }
  }

  CallArgs build_args(const Expr& e, Scope* sc) {
    CallArgs a;
    a.args.reserve(e.items.size());
    for (auto& x : e.items) a.args.push_back(eval(*x, sc));
    if (e.dyn_args) {
      for (auto& v : iterate(eval(*e.dyn_args, sc))) a.args.push_back(v);
    }
    for (auto& kv : e.kwargs) a.kwargs.emplace_back(kv.first, eval(*kv.second, sc));
    if (e.dyn_kwargs) {
      Value d = eval(*e.dyn_kwargs, sc);
      if (d.kind() != Kind::Dict) throw_type_error("argument after ** must be a mapping, not " + type_name(d));
      for (auto& kv : d.as_dict().entries()) {
        if (!kv.first.is_str()) throw_type_error("keywords must be strings");
        for (auto& existing : a.kwargs) {
          if (existing.first == kv.first.as_str())
            throw_type_error("got multiple values for keyword argument '" + existing.first + "'");
        }
        a.kwargs.emplace_back(kv.first.as_str(), kv.second);
      }
    }
    return a;
  }

  Value eval_filter_chain(const Expr& f, Scope* sc, const Value& input) {
    // The chain's innermost node is the FilterInput placeholder.
    if (f.kind == ExprKind::FilterInput) return input;
    Value in = eval_filter_chain(*f.a, sc, input);
    return apply_filter(f, sc, in);
  }

  Value apply_filter(const Expr& f, Scope* sc, const Value& in) {
    try {
      if (!f.filter) throw_runtime_error("TemplateRuntimeError", "No filter named '" + f.name + "' found.");
      CallArgs a = build_args(f, sc);
      return f.filter(st_, in, a);
    } catch (Error& e) {
      if (e.line == 0) e.line = f.line;
      if (e.construct.empty()) e.construct = "filter '" + f.name + "'";
      throw;
    }
  }

  static bool cmp(CmpKind k, const Value& l, const Value& r) {
    switch (k) {
      case CmpKind::Eq: return py_equal(l, r);
      case CmpKind::Ne: return !py_equal(l, r);
      case CmpKind::Lt: return compare(CmpOp::Lt, l, r);
      case CmpKind::Le: return compare(CmpOp::Le, l, r);
      case CmpKind::Gt: return compare(CmpOp::Gt, l, r);
      case CmpKind::Ge: return compare(CmpOp::Ge, l, r);
      case CmpKind::In: return contains(r, l);
      case CmpKind::NotIn: return !contains(r, l);
    }
    return false;
  }

 public:
  // Constants and names are answered inline; everything else goes through
  // eval_slow (stack check, error line annotation).
  JINJA_ALWAYS_INLINE Value eval(const Expr& e, Scope* sc) {
    if (e.kind == ExprKind::Const) return e.value;
    if (e.kind == ExprKind::Name) return lookup(sc, e);
    return eval_slow(e, sc);
  }

 private:
  // Like eval, but a constant or a bound name is returned as the stored
  // value itself (no copy); other expressions are evaluated into `tmp`.
  // The reference stays valid while the caller evaluates sibling
  // expressions: those never rebind names in an existing frame (only
  // statements and new macro/loop frames do).
  JINJA_ALWAYS_INLINE const Value& eval_ref(const Expr& e, Scope* sc, Value& tmp) {
    if (e.kind == ExprKind::Const) return e.value;
    if (e.kind == ExprKind::Name) {
      if (const Value* v = find(sc, e.id)) return *v;
      return e.value;
    }
    tmp = eval_slow(e, sc);
    return tmp;
  }

  JINJA_NOINLINE Value eval_slow(const Expr& e, Scope* sc) {
    NestGuard g(*this);
    try {
      return eval_inner(e, sc);
    } catch (Error& err) {
      if (err.line == 0) err.line = e.line;
      throw;
    }
  }

  // Inlined into eval_slow: one call frame per evaluated node, not two.
  JINJA_ALWAYS_INLINE Value eval_inner(const Expr& e, Scope* sc) {
    switch (e.kind) {
      case ExprKind::Const:
        return e.value;
      case ExprKind::Name:
        return lookup(sc, e.id);
      case ExprKind::NsRef:
        return get_attr(st_, lookup(sc, e.id), e.attr);
      case ExprKind::List:
      case ExprKind::Tuple: {
        std::vector<Value> items;
        items.reserve(e.items.size());
        for (auto& x : e.items) items.push_back(eval(*x, sc));
        return e.kind == ExprKind::List ? Value::list(std::move(items)) : Value::tuple(std::move(items));
      }
      case ExprKind::Dict: {
        auto d = std::make_shared<DictData>();
        d->reserve(e.items.size() / 2);
        for (size_t k = 0; k + 1 < e.items.size(); k += 2) {
          Value key = eval(*e.items[k], sc);
          d->set(std::move(key), eval(*e.items[k + 1], sc));
        }
        d->freeze();
        return Value::dict(d);
      }
      case ExprKind::Getattr: {
        Value tmp;
        const Value& obj = eval_ref(*e.a, sc, tmp);
        if (e.dict_item_attr && obj.kind() == Kind::Dict) {
          // What get_attr concludes for a plain name on a dict.
          if (const Value* v = obj.as_dict().find_str(e.name)) return *v;
          return Value::missing_dict_key(e.name);
        }
        if (e.loop_attr && obj.kind() == Kind::Object) {
          // `loop.index0`, `loop.last`, ...: what get_attr would ask the
          // loop object for (no dunder or private name among them).
          const Object& o = obj.as_object();
          if (typeid(o) == typeid(LoopObject)) return static_cast<const LoopObject&>(o).data_attr(e.loop_attr);
        }
        return get_attr(st_, obj, e.name);
      }
      case ExprKind::Getitem: {
        Value t1, t2;
        const Value& obj = eval_ref(*e.a, sc, t1);
        return get_item(st_, obj, eval_ref(*e.b, sc, t2));
      }
      case ExprKind::Slice: {
        // A slice inside a tuple subscript (x[1:2, 3]): Python builds a
        // tuple holding a slice object, which no builtin container accepts.
        if (!e.a) throw_type_error("indices must be integers or slices, not tuple");
        Value obj = eval(*e.a, sc);
        auto part = [&](bool present, const Expr* x) -> std::optional<Value> {
          if (!present || !x) return std::nullopt;
          Value v = eval(*x, sc);
          if (v.is_none()) return std::nullopt;
          return v;
        };
        std::optional<Value> start = part(e.has_b, e.b.get());
        std::optional<Value> stop = part(e.has_c, e.c.get());
        std::optional<Value> step = part(!e.items.empty(), e.items.empty() ? nullptr : e.items[0].get());
        return slice(obj, start, stop, step);
      }
      case ExprKind::Call: {
        if (e.a->kind == ExprKind::Getattr) {
          // `obj.method(args)` on a str/dict/list/tuple: call the method
          // directly instead of materialising a bound-method object.
          Value tmp;
          const Value& obj = eval_ref(*e.a->a, sc, tmp);
          if (obj.kind() == Kind::Str || obj.kind() == Kind::Dict || obj.kind() == Kind::List || obj.kind() == Kind::Tuple) {
            CallArgs args = build_args(e, sc);
            return counted_call(e, [&] {
              Value out;
              if (call_method_direct(st_, obj, e.a->name, args, out)) return out;
              return call_value(st_, get_attr(st_, obj, e.a->name), args);
            });
          }
          Value callee = get_attr(st_, obj, e.a->name);
          CallArgs args = build_args(e, sc);
          return counted_call(e, [&] { return call_value(st_, callee, args); });
        }
        Value callee = eval(*e.a, sc);
        CallArgs args = build_args(e, sc);
        return counted_call(e, [&] { return call_value(st_, callee, args); });
      }
      case ExprKind::Filter: {
        Value tmp;
        return apply_filter(e, sc, eval_ref(*e.a, sc, tmp));
      }
      case ExprKind::Test: {
        Value tmp;
        const Value& in = eval_ref(*e.a, sc, tmp);
        try {
          if (!e.test) throw_runtime_error("TemplateRuntimeError", "No test named '" + e.name + "' found.");
          CallArgs a = build_args(e, sc);
          return Value::boolean(e.test(st_, in, a));
        } catch (Error& err) {
          if (err.line == 0) err.line = e.line;
          if (err.construct.empty()) err.construct = "test '" + e.name + "'";
          throw;
        }
      }
      case ExprKind::Not: {
        Value tmp;
        return Value::boolean(!truthy(eval_ref(*e.a, sc, tmp)));
      }
      case ExprKind::Neg:
        return negate(eval(*e.a, sc));
      case ExprKind::Pos:
        return unary_plus(eval(*e.a, sc));
      case ExprKind::Binary: {
        Value t1, t2;
        const Value& l = eval_ref(*e.a, sc, t1);
        return binary_op(e.binop, l, eval_ref(*e.b, sc, t2));
      }
      case ExprKind::Concat: {
        std::string s;
        // While every part is a str, the result's ASCII-ness and length
        // follow from the parts' (no rescan of the joined text).
        bool known = true, ascii = true;
        size_t length = 0;
        for (auto& x : e.items) {
          Value tmp;
          const Value& v = eval_ref(*x, sc, tmp);
          if (v.is_str()) {
            const StrData& d = v.str_data();
            s += d.utf8;
            ascii = ascii && d.ascii;
            length += d.length;
          } else if (!v.is_undefined()) {
            append_py_str(s, v);
            known = false;
          }
          if (s.size() > st_.limits.max_output_bytes) limit_error("string size limit exceeded");
          mem_reserve(s.size());
        }
        if (!known) return Value::string(std::move(s));
        return Value::string(make_str_data(std::move(s), ascii, length));
      }
      case ExprKind::And: {
        Value l = eval(*e.a, sc);
        if (!truthy(l)) return l;
        return eval(*e.b, sc);
      }
      case ExprKind::Or: {
        Value l = eval(*e.a, sc);
        if (truthy(l)) return l;
        return eval(*e.b, sc);
      }
      case ExprKind::Compare: {
        Value t0, t1;
        const Value* left = &eval_ref(*e.a, sc, t0);
        for (size_t k = 0; k < e.ops.size(); ++k) {
          // Evaluate into the temporary `left` does not occupy.
          const Value& right = eval_ref(*e.items[k], sc, left == &t0 ? t1 : t0);
          if (!cmp(e.ops[k], *left, right)) return Value::boolean(false);
          left = &right;
        }
        return Value::boolean(true);
      }
      case ExprKind::CondExpr: {
        Value tmp;
        if (truthy(eval_ref(*e.b, sc, tmp))) return eval(*e.a, sc);
        if (e.c) return eval(*e.c, sc);
        return Value::undefined("the inline if-expression on line " + std::to_string(e.line) +
                                " evaluated to false and no else section was defined.");
      }
      case ExprKind::FilterInput:
        return Value();
    }
    return Value();
  }

  friend class LoopObject;
};

Value Evaluator::call_macro(const Stmt& m, Scope* closure, CallArgs& a) {
  NestGuard g(*this);
  CallDepthGuard cd(st_);
  st_.tick();
  static const std::string kCaller = "caller";
  const std::string& mname = m.kind == StmtKind::Macro ? m.name : kCaller;
  Scope* sc = acquire(closure);
  ScopeHolder h{*this, sc};
  prebind(sc, m.prebind_ids);
  size_t n = m.params.size();
  size_t npos_given = std::min(a.args.size(), n);
  // Per-call scratch: pooled (see pool.h), macros are called in loops.
  std::vector<bool, PoolAllocator<bool>> provided(n, false);
  std::vector<Value, PoolAllocator<Value>> vals(n);
  for (size_t k = 0; k < npos_given; ++k) {
    vals[k] = a.args[k];
    provided[k] = true;
  }
  auto& kw = a.kwargs;
  auto pop_kw = [&](std::string_view name, Value& out) -> bool {
    for (auto it = kw.begin(); it != kw.end(); ++it) {
      if (it->first == name) {
        out = std::move(it->second);
        kw.erase(it);
        return true;
      }
    }
    return false;
  };
  bool found_caller = false;
  if (npos_given != n) {
    for (size_t k = npos_given; k < n; ++k) {
      if (pop_kw(m.params[k], vals[k])) provided[k] = true;
      if (m.params[k] == "caller") found_caller = true;
    }
  } else {
    found_caller = m.explicit_caller >= 0;
  }
  Value caller_v;
  bool bind_caller = false;
  if (m.uses_caller && !found_caller) {
    if (!pop_kw("caller", caller_v) || caller_v.is_none()) caller_v = Value::undefined("No caller defined");
    bind_caller = true;
  }
  Value kwargs_v;
  if (m.catch_kwargs) {
    auto d = std::make_shared<DictData>();
    for (auto& kv : kw) d->set(Value::string(kv.first), kv.second);
    d->freeze();
    kwargs_v = Value::dict(d);
  } else if (!kw.empty()) {
    for (auto& kv : kw) {
      if (kv.first == "caller") {
        throw_type_error("macro '" + mname +
                         "' was invoked with two values for the special caller argument. This is most likely a bug.");
      }
    }
    throw_type_error("macro '" + mname + "' takes no keyword argument '" + kw.front().first + "'");
  }
  Value varargs_v;
  if (m.catch_varargs) {
    std::vector<Value> extra;
    for (size_t k = n; k < a.args.size(); ++k) extra.push_back(a.args[k]);
    varargs_v = Value::tuple(std::move(extra));
  } else if (a.args.size() > n) {
    throw_type_error("macro '" + mname + "' takes not more than " + std::to_string(n) + " argument(s)");
  }
  // Parameters first (all of them, so defaults can refer to any), then the
  // defaults for the missing ones, in order, inside the macro's frame.
  for (size_t k = 0; k < n; ++k) sc->set(m.param_ids[k], provided[k] ? vals[k] : Value());
  if (bind_caller) sc->set(kCallerId, caller_v);
  if (m.catch_kwargs) sc->set(kKwargsId, kwargs_v);
  if (m.catch_varargs) sc->set(kVarargsId, varargs_v);
  size_t first_default = n - m.exprs.size();
  for (size_t k = 0; k < n; ++k) {
    if (provided[k]) continue;
    if (k >= first_default) {
      sc->set(m.param_ids[k], eval(*m.exprs[k - first_default], sc));
    } else {
      sc->set(m.param_ids[k], Value::undefined("parameter '" + m.params[k] + "' was not provided"));
    }
  }
  std::string out;
  exec_body(m.body, sc, out);
  return Value::string(std::move(out));
}

Value Evaluator::run_loop(const Stmt& f, Scope* outer, const Value& iterable, int depth0) {
  CallDepthGuard cd(st_);
  std::string out;
  for_loop(f, outer, iterable, depth0, out);
  return Value::string(std::move(out));
}

Value LoopObject::call(RenderState&, CallArgs& args) {
  if (!for_stmt) throw_type_error("'LoopContext' object is not callable");
  if (args.args.size() != 1 || !args.kwargs.empty()) throw_type_error("loop() takes exactly one argument");
  return ev->run_loop(*for_stmt, outer, args.args[0], depth0 + 1);
}

Value loop_cycle(LoopObject& l, CallArgs& a) {
  if (a.args.empty()) throw_type_error("no items for cycling given");
  return a.args[l.index0 % a.args.size()];
}

Value loop_changed(LoopObject& l, CallArgs& a) {
  bool same = l.have_changed && l.last_changed.size() == a.args.size();
  if (same) {
    for (size_t k = 0; k < a.args.size(); ++k) {
      if (!py_equal(l.last_changed[k], a.args[k])) {
        same = false;
        break;
      }
    }
  }
  if (same) return Value::boolean(false);
  l.have_changed = true;
  l.last_changed.assign(a.args.begin(), a.args.end());
  return Value::boolean(true);
}

Value LoopObject::get_attr(RenderState&, std::string_view name) const {
  size_t n = items->size();
  if (uint8_t code = data_attr_code(name)) return data_attr(code);
  if (name == "previtem") {
    if (index0 == 0) return Value::undefined("there is no previous item");
    return (*items)[index0 - 1];
  }
  if (name == "nextitem") {
    if (index0 + 1 >= n) return Value::undefined("there is no next item");
    return (*items)[index0 + 1];
  }
  if (name == "cycle") return method("cycle", loop_cycle);
  if (name == "changed") return method("changed", loop_changed);
  return Value::undefined("'jinja2.runtime.LoopContext object' has no attribute '" + std::string(name) + "'");
}

}  // namespace

namespace {

class NameInterner {
 public:
  explicit NameInterner(Template& t) : t_(t) {
    for (const char* n : {"loop", "caller", "kwargs", "varargs"}) intern(n);
  }
  NameId intern(const std::string& n) {
    auto [it, fresh] = ids_.try_emplace(n, static_cast<NameId>(t_.names.size()));
    if (fresh) t_.names.push_back(n);
    return it->second;
  }
  std::vector<std::pair<NameId, Value>> prebind(const std::vector<std::pair<std::string, Value>>& p) {
    std::vector<std::pair<NameId, Value>> out;
    out.reserve(p.size());
    for (auto& [n, v] : p) out.emplace_back(intern(n), v);
    return out;
  }
  void expr(Expr* e) {
    if (!e) return;
    if (e->kind == ExprKind::Name || e->kind == ExprKind::NsRef) e->id = intern(e->name);
    if (e->kind == ExprKind::Getattr) {
      std::string_view n = e->name;
      bool dunder = n.size() >= 4 && n.substr(0, 2) == "__" && n.substr(n.size() - 2) == "__";
      e->dict_item_attr = !dunder && !is_dict_attribute(n);
      e->loop_attr = LoopObject::data_attr_code(n);
    }
    expr(e->a.get());
    expr(e->b.get());
    expr(e->c.get());
    for (auto& x : e->items) expr(x.get());
    for (auto& kv : e->kwargs) expr(kv.second.get());
    expr(e->dyn_args.get());
    expr(e->dyn_kwargs.get());
  }
  void body(Body& b) {
    for (auto& s : b) stmt(*s);
  }
  void stmt(Stmt& s) {
    for (auto& x : s.exprs) expr(x.get());
    for (auto& br : s.branches) {
      expr(br.test.get());
      body(br.body);
    }
    body(s.body);
    body(s.else_body);
    expr(s.target.get());
    for (auto& x : s.targets) expr(x.get());
    expr(s.iter.get());
    expr(s.cond.get());
    if (s.kind == StmtKind::Macro) s.name_id = intern(s.name);
    s.param_ids.clear();
    for (auto& p : s.params) s.param_ids.push_back(intern(p));
    s.prebind_ids = prebind(s.prebind);
    s.else_prebind_ids = prebind(s.else_prebind);
  }

 private:
  Template& t_;
  std::unordered_map<std::string, NameId> ids_;
};

}  // namespace

void assign_name_ids(Template& t) {
  NameInterner in(t);
  in.body(t.body);
  t.root_prebind_ids = in.prebind(t.root_prebind);
}

std::string evaluate(const Template& tpl, const DictData& context, RenderState& state) {
  Evaluator ev(tpl, context, state);
  return ev.run();
}

}  // namespace jinja
