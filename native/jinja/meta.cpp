// Static analysis of a parsed template:
//  * Jinja2's per-frame symbol tracking, which decides (a) the names that
//    start out undefined in a frame (ast::Stmt::prebind) and (b) the names
//    resolved from the render context, i.e. find_undeclared_variables;
//  * vLLM's content-format detection (does any for-loop iterate over the
//    content of a message?).
#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <string>

#include "evaluator.h"

namespace jinja {

namespace {

using namespace ast;

enum class Load { Param, Resolve, Alias, Undefined };

// One frame's symbols, as Jinja2's idtracking.Symbols.
struct Symbols {
  const Symbols* parent = nullptr;
  std::map<std::string, Load> refs;
  std::set<std::string> stores;
  std::set<std::string> resolves;  // every name ever given a resolve-from-context load here

  bool has_ref(const std::string& n) const {
    for (const Symbols* s = this; s; s = s->parent)
      if (s->refs.count(n)) return true;
    return false;
  }
  void load(const std::string& n) {
    if (!has_ref(n)) {
      refs[n] = Load::Resolve;
      resolves.insert(n);
    }
  }
  void store(const std::string& n) {
    stores.insert(n);
    if (refs.count(n)) return;
    if (parent && parent->has_ref(n)) refs[n] = Load::Alias;
    else refs[n] = Load::Undefined;
  }
  void param(const std::string& n) {
    stores.insert(n);
    refs[n] = Load::Param;
  }
};

void names_read(const Expr* e, std::set<std::string>& out);
void names_read(const Body& b, std::set<std::string>& out);

void names_read(const Expr* e, std::set<std::string>& out) {
  if (!e) return;
  if (e->kind == ExprKind::Name) out.insert(e->name);
  names_read(e->a.get(), out);
  names_read(e->b.get(), out);
  names_read(e->c.get(), out);
  for (auto& x : e->items) names_read(x.get(), out);
  for (auto& kv : e->kwargs) names_read(kv.second.get(), out);
  names_read(e->dyn_args.get(), out);
  names_read(e->dyn_kwargs.get(), out);
}

void names_read(const Body& b, std::set<std::string>& out) {
  for (auto& s : b) {
    if (s->kind == StmtKind::Block) continue;
    for (auto& x : s->exprs) names_read(x.get(), out);
    for (auto& br : s->branches) {
      names_read(br.test.get(), out);
      names_read(br.body, out);
    }
    names_read(s->body, out);
    names_read(s->else_body, out);
    if (s->kind != StmtKind::CallBlock || s->iter) names_read(s->iter.get(), out);
    names_read(s->cond.get(), out);
  }
}

class Analyzer {
 public:
  std::set<std::string> undeclared;

  // Analyses a frame and, recursively, the frames nested in it.
  // `prebind` receives the names that start undefined in this frame.
  void frame(Symbols& sym, const std::function<void(Symbols&)>& fill,
             std::vector<std::pair<std::string, Value>>* prebind) {
    fill(sym);
    for (auto& n : sym.resolves) undeclared.insert(n);
    if (prebind) {
      prebind->clear();
      for (auto& [n, l] : sym.refs)
        if (l == Load::Undefined) prebind->emplace_back(n, Value::undefined("'" + n + "' is undefined"));
    }
  }

  void root(Template& t) {
    Symbols sym;
    frame(sym, [&](Symbols& s) { visit_body(t.body, s); }, &t.root_prebind);
    nested(t.body, sym);
  }

 private:
  // ---- visiting one frame's own code (FrameSymbolVisitor) ----
  void visit_expr(const Expr* e, Symbols& s) {
    if (!e) return;
    if (e->kind == ExprKind::Name) {
      s.load(e->name);
      return;
    }
    if (e->kind == ExprKind::NsRef) {
      s.load(e->name);
      return;
    }
    if (e->kind == ExprKind::CondExpr) {
      visit_expr(e->b.get(), s);
      visit_expr(e->a.get(), s);
      visit_expr(e->c.get(), s);
      return;
    }
    visit_expr(e->a.get(), s);
    visit_expr(e->b.get(), s);
    visit_expr(e->c.get(), s);
    for (auto& x : e->items) visit_expr(x.get(), s);
    for (auto& kv : e->kwargs) visit_expr(kv.second.get(), s);
    visit_expr(e->dyn_args.get(), s);
    visit_expr(e->dyn_kwargs.get(), s);
  }

  void store_target(const Expr* e, Symbols& s, bool as_param) {
    if (e->kind == ExprKind::Name) {
      if (as_param) s.param(e->name);
      else s.store(e->name);
    } else if (e->kind == ExprKind::NsRef) {
      s.load(e->name);
    } else if (e->kind == ExprKind::Tuple) {
      for (auto& x : e->items) store_target(x.get(), s, as_param);
    }
  }

  void visit_body(const Body& b, Symbols& s) {
    for (auto& st : b) visit_stmt(*st, s);
  }

  // Jinja2's branch handling: each branch sees a copy; names stored in only
  // some branches fall back to an outer alias or a context lookup.
  void visit_if_branches(const Expr* test, const Body& body, const std::vector<const IfBranch*>& elifs,
                         const Body* else_body, Symbols& s) {
    visit_expr(test, s);
    Symbols b1 = s, b2 = s, b3 = s;
    visit_body(body, b1);
    for (auto* br : elifs) visit_if_branches(br->test.get(), br->body, {}, nullptr, b2);
    if (else_body) visit_body(*else_body, b3);
    std::map<std::string, int> counts;
    for (auto* br : {&b1, &b2, &b3})
      for (auto& n : br->stores)
        if (!s.stores.count(n)) counts[n]++;
    for (auto* br : {&b1, &b2, &b3}) {
      for (auto& [n, l] : br->refs) s.refs[n] = l;
      s.stores.insert(br->stores.begin(), br->stores.end());
      s.resolves.insert(br->resolves.begin(), br->resolves.end());
    }
    for (auto& [n, c] : counts) {
      if (c == 3) continue;
      if (s.parent && s.parent->has_ref(n)) {
        s.refs[n] = Load::Alias;
      } else {
        s.refs[n] = Load::Resolve;
        s.resolves.insert(n);
      }
    }
  }

  void visit_stmt(const Stmt& st, Symbols& s) {
    switch (st.kind) {
      case StmtKind::Data:
      case StmtKind::Break:
      case StmtKind::Continue:
      case StmtKind::Block:
        return;
      case StmtKind::Print:
        for (auto& e : st.exprs) visit_expr(e.get(), s);
        return;
      case StmtKind::If: {
        std::vector<const IfBranch*> elifs;
        for (size_t k = 1; k < st.branches.size(); ++k) elifs.push_back(&st.branches[k]);
        visit_if_branches(st.branches[0].test.get(), st.branches[0].body, elifs, &st.else_body, s);
        return;
      }
      case StmtKind::For:
        visit_expr(st.iter.get(), s);
        return;
      case StmtKind::Set:
        visit_expr(st.cond.get(), s);
        store_target(st.target.get(), s, false);
        return;
      case StmtKind::SetBlock:
        store_target(st.target.get(), s, false);
        return;
      case StmtKind::Macro:
        s.store(st.name);
        return;
      case StmtKind::CallBlock:
        if (st.iter) visit_expr(st.iter.get(), s);
        return;
      case StmtKind::FilterBlock:
        visit_expr(st.iter.get(), s);
        return;
      case StmtKind::With:
        for (auto& e : st.exprs) visit_expr(e.get(), s);
        return;
      case StmtKind::NoLoader:
        visit_expr(st.cond.get(), s);
        return;
      case StmtKind::Autoescape:
        visit_expr(st.cond.get(), s);
        visit_body(st.body, s);
        return;
    }
  }

  // ---- frames opened by statements of a frame (RootVisitor + codegen) ----
  void nested(const Body& b, const Symbols& parent) {
    for (auto& st : b) nested_stmt(const_cast<Stmt&>(*st), parent);
  }

  void nested_stmt(Stmt& st, const Symbols& parent) {
    switch (st.kind) {
      case StmtKind::If:
        for (auto& br : st.branches) nested(br.body, parent);
        nested(st.else_body, parent);
        return;
      case StmtKind::Autoescape:
        nested(st.body, parent);
        return;
      case StmtKind::For: {
        std::set<std::string> read;
        names_read(st.body, read);
        Symbols body;
        body.parent = &parent;
        frame(body, [&](Symbols& s) {
          st.uses_loop = st.recursive || read.count("loop");
          if (st.uses_loop) s.param("loop");
          store_target(st.target.get(), s, true);
          visit_body(st.body, s);
        }, &st.prebind);
        nested(st.body, body);
        if (!st.else_body.empty()) {
          Symbols es;
          es.parent = &parent;
          frame(es, [&](Symbols& s) { visit_body(st.else_body, s); }, &st.else_prebind);
          nested(st.else_body, es);
        }
        if (st.cond) {
          Symbols ts;
          ts.parent = &parent;
          frame(ts, [&](Symbols& s) {
            store_target(st.target.get(), s, true);
            visit_expr(st.cond.get(), s);
          }, nullptr);
        }
        return;
      }
      case StmtKind::Macro:
      case StmtKind::CallBlock: {
        Symbols ms;
        ms.parent = &parent;
        frame(ms, [&](Symbols& s) {
          for (auto& p : st.params) s.param(p);
          for (auto& d : st.exprs) visit_expr(d.get(), s);
          visit_body(st.body, s);
          // caller/kwargs/varargs are declared after the analysis, so a
          // read of them was already recorded as a context lookup.
          if (st.uses_caller && st.explicit_caller < 0) s.param("caller");
          if (st.catch_kwargs) s.param("kwargs");
          if (st.catch_varargs) s.param("varargs");
        }, &st.prebind);
        nested(st.body, ms);
        return;
      }
      case StmtKind::FilterBlock:
      case StmtKind::SetBlock:
      case StmtKind::With:
      case StmtKind::Block: {
        Symbols fs;
        fs.parent = st.kind == StmtKind::Block ? nullptr : &parent;
        frame(fs, [&](Symbols& s) {
          if (st.kind == StmtKind::FilterBlock) visit_expr(st.iter.get(), s);
          if (st.kind == StmtKind::With)
            for (auto& t : st.targets) store_target(t.get(), s, true);
          visit_body(st.body, s);
        }, &st.prebind);
        nested(st.body, fs);
        return;
      }
      default:
        return;
    }
  }
};

// ---- vLLM content-format detection ------------------------------------

bool is_var(const Expr* e, const std::string& var) { return e && e->kind == ExprKind::Name && e->name == var; }

bool is_attr(const Expr* e, const std::string& var, const std::string& key) {
  if (!e) return false;
  if (e->kind == ExprKind::Getitem)
    return is_var(e->a.get(), var) && e->b->kind == ExprKind::Const && e->b->value.is_str() && e->b->value.as_str() == key;
  if (e->kind == ExprKind::Getattr) return is_var(e->a.get(), var) && e->name == key;
  return false;
}

// The variable (or its `key` element) possibly through filters, tests, slices.
bool is_var_or_elems(const Expr* e, const std::string& var, const std::string* key) {
  if (!e) return false;
  if (e->kind == ExprKind::Filter)
    return e->a && e->a->kind != ExprKind::FilterInput && is_var_or_elems(e->a.get(), var, key);
  if (e->kind == ExprKind::Test) return is_var_or_elems(e->a.get(), var, key);
  if (e->kind == ExprKind::Slice) return is_var_or_elems(e->a.get(), var, key);
  return key ? is_attr(e, var, *key) : is_var(e, var);
}

template <class F>
void for_each_stmt(const Body& b, F&& f) {
  for (auto& s : b) {
    f(*s);
    for (auto& br : s->branches) for_each_stmt(br.body, f);
    for_each_stmt(s->body, f);
    for_each_stmt(s->else_body, f);
  }
}

struct ShapeError {};

ContentFormat detect(const Template& t) {
  std::vector<const Stmt*> assigns, loops;
  for_each_stmt(t.body, [&](const Stmt& s) {
    if (s.kind == StmtKind::Set) assigns.push_back(&s);
    if (s.kind == StmtKind::For) loops.push_back(&s);
  });
  try {
    // Names derived from `messages` through assignments (breadth first).
    std::vector<std::string> msg_names{"messages"};
    std::set<std::string> seen{"messages"};
    std::deque<std::string> queue{"messages"};
    while (!queue.empty()) {
      std::string cur = queue.front();
      queue.pop_front();
      for (auto* a : assigns) {
        if (!is_var_or_elems(a->cond.get(), cur, nullptr)) continue;
        if (a->target->kind != ExprKind::Name) throw ShapeError{};
        const std::string& lhs = a->target->name;
        msg_names.push_back(lhs);
        if (lhs != cur && seen.insert(lhs).second) queue.push_back(lhs);
      }
    }
    std::vector<std::string> item_names;
    for (auto* l : loops) {
      for (auto& v : msg_names) {
        if (is_var_or_elems(l->iter.get(), v, nullptr)) {
          if (l->target->kind != ExprKind::Name) throw ShapeError{};
          item_names.push_back(l->target->name);
          break;
        }
      }
    }
    static const std::string kContent = "content";
    for (auto* l : loops) {
      bool over_content = false;
      for (auto& v : item_names) over_content = over_content || is_var_or_elems(l->iter.get(), v, &kContent);
      // vLLM also treats a loop over a bare variable named `content` (e.g. a
      // macro parameter, as in Qwen3.5/3.6) as iterating message content.
      over_content = over_content || is_var(l->iter.get(), kContent);
      if (over_content) {
        if (l->target->kind != ExprKind::Name) throw ShapeError{};
        return ContentFormat::OpenAI;
      }
    }
    return ContentFormat::String;
  } catch (const ShapeError&) {
    return ContentFormat::String;  // vLLM falls back to its default on unexpected shapes
  }
}

}  // namespace

// Called once by compile(): fills prebind lists, undeclared names and the
// content format.
void analyze_template(Template& t) {
  Analyzer a;
  a.root(t);
  static const std::set<std::string> kGlobals = {"range", "dict", "lipsum", "cycler", "joiner", "namespace",
                                                  "raise_exception", "strftime_now"};
  t.undeclared.clear();
  for (auto& n : a.undeclared)
    if (!kGlobals.count(n)) t.undeclared.push_back(n);
  t.content_format = detect(t);
}

}  // namespace jinja
