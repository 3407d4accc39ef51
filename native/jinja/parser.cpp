// Parser. Follows the structure of Jinja2's grammar so that precedence,
// associativity, accepted forms and error texts agree with Python:
//   condexpr > or > and > not > compare > +,- > ~ > *,/,//,% > ** > unary
//   > primary + postfix (.x [x] (call)) > filters / tests.
#include "parser.h"

#include <set>

#include "errors.h"
#include "lexer.h"

namespace jinja {

namespace {

using namespace ast;

constexpr int kMaxParseNesting = 1000;    // brackets / statements nested deeper are refused
constexpr int kMaxExprDepth = 256;   // height of one expression tree (left-nested chains included)

const std::set<std::string_view> kStatementKeywords = {"for", "if", "block", "extends", "print", "macro",
                                                       "include", "from", "import", "set", "with", "autoescape"};

std::string py_quote(const std::string& s) {
  // repr() of a plain identifier-like or descriptive string.
  if (s.find('\'') != std::string::npos && s.find('"') == std::string::npos) return "\"" + s + "\"";
  return "'" + s + "'";
}

class Parser {
 public:
  explicit Parser(std::vector<Token> toks) : t_(std::move(toks)) {}

  Body parse_root() {
    raise_if_error(cur());
    Body body = subparse(nullptr);
    // Jinja2 reports compile-time problems only after the whole template
    // parsed: first its own assertion errors, then Python's SyntaxError for
    // misplaced loop controls.
    check_compile(body);
    if (!assertion_errors_.empty()) throw assertion_errors_.front();
    if (!python_syntax_errors_.empty()) throw python_syntax_errors_.front();
    return body;
  }

 private:
  std::vector<Token> t_;
  size_t i_ = 0;
  std::vector<std::vector<std::string>> end_stack_;  // end-tag names being looked for
  std::vector<std::string> tag_stack_;
  int depth_ = 0;
  bool soft_ = false;   // inside an if test/body or a conditional expression
  int loop_depth_ = 0;  // `break`/`continue` are valid when > 0
  std::vector<Error> assertion_errors_;
  std::vector<Error> python_syntax_errors_;

  struct DepthGuard {
    Parser& p;
    explicit DepthGuard(Parser& p) : p(p) {
      if (++p.depth_ > kMaxParseNesting) {
        const Token& t = p.cur();
        throw Error(ErrorKind::Syntax, "TemplateSyntaxError", "template nesting too deep", t.line, t.column);
      }
    }
    ~DepthGuard() { --p.depth_; }
  };

  // Saves and restores the "frame" flags while a nested frame is parsed.
  struct FrameFlags {
    Parser& p;
    bool soft;
    int loops;
    FrameFlags(Parser& p, bool new_soft, int new_loops) : p(p), soft(p.soft_), loops(p.loop_depth_) {
      p.soft_ = new_soft;
      p.loop_depth_ = new_loops;
    }
    ~FrameFlags() {
      p.soft_ = soft;
      p.loop_depth_ = loops;
    }
  };

  const Token& cur() const { return t_[i_]; }
  // Peeking or advancing onto a lexical error raises it (Jinja2's lexer is lazy).
  void raise_if_error(const Token& t) const {
    if (t.type == Tok::Error) throw Error(ErrorKind::Syntax, "TemplateSyntaxError", t.text, t.line, t.column);
  }
  const Token& look() const {
    const Token& t = t_[i_ + 1 < t_.size() ? i_ + 1 : i_];
    raise_if_error(t);
    return t;
  }
  const Token& next() {
    const Token& t = t_[i_];
    if (i_ + 1 < t_.size()) ++i_;
    raise_if_error(t_[i_]);
    return t;
  }
  bool is_op(const char* op) const { return cur().type == Tok::Op && cur().text == op; }
  bool is_name(const char* n) const { return cur().type == Tok::Name && cur().text == n; }
  bool skip_op(const char* op) {
    if (!is_op(op)) return false;
    next();
    return true;
  }
  bool skip_name(const char* n) {
    if (!is_name(n)) return false;
    next();
    return true;
  }

  [[noreturn]] void fail(const std::string& msg, const Token& at) const {
    throw Error(ErrorKind::Syntax, "TemplateSyntaxError", msg, at.line, at.column);
  }
  [[noreturn]] void fail(const std::string& msg) const { fail(msg, cur()); }

  // stream.expect(): description of what was wanted.
  void expect_fail(const std::string& wanted) const {
    if (cur().type == Tok::Eof) fail("unexpected end of template, expected " + py_quote(wanted) + ".");
    fail("expected token " + py_quote(wanted) + ", got " + py_quote(describe_token(cur())));
  }
  const Token& expect_op(const char* op) {
    if (!is_op(op)) expect_fail(op);
    return next();
  }
  const Token& expect_name() {
    if (cur().type != Tok::Name) expect_fail("name");
    return next();
  }
  const Token& expect_name(const char* n) {
    if (!is_name(n)) expect_fail(n);
    return next();
  }
  const Token& expect_block_end() {
    if (cur().type != Tok::BlockEnd) expect_fail("end of statement block");
    return next();
  }
  const Token& expect_var_end() {
    if (cur().type != Tok::VarEnd) expect_fail("end of print statement");
    return next();
  }

  ExprPtr make(ExprKind k, const Token& at) {
    auto e = std::make_unique<Expr>();
    e->kind = k;
    e->line = at.line;
    e->column = at.column;
    return e;
  }
  // Records a finished node's height; refuses trees that rendering (a
  // recursive walk) could not descend safely.
  ExprPtr fin(ExprPtr e) {
    int d = 0;
    auto see = [&](const ExprPtr& c) {
      if (c && c->depth > d) d = c->depth;
    };
    see(e->a);
    see(e->b);
    see(e->c);
    see(e->dyn_args);
    see(e->dyn_kwargs);
    for (auto& x : e->items) see(x);
    for (auto& kv : e->kwargs) see(kv.second);
    e->depth = d + 1;
    if (e->depth > kMaxExprDepth) fail("expression nesting too deep", cur());
    return e;
  }

  StmtPtr make_stmt(StmtKind k, const Token& at) {
    auto s = std::make_unique<Stmt>();
    s->kind = k;
    s->line = at.line;
    s->column = at.column;
    return s;
  }

  [[noreturn]] void fail_unknown_tag(const std::string* name, const Token& at) {
    std::set<std::string> expected;
    for (auto& e : end_stack_)
      for (auto& n : e) expected.insert(n);
    std::string looking;
    if (!end_stack_.empty()) {
      for (size_t k = 0; k < end_stack_.back().size(); ++k) {
        if (k) looking += " or ";
        looking += py_quote(end_stack_.back()[k]);
      }
    }
    std::string msg = name ? "Encountered unknown tag " + py_quote(*name) + "." : "Unexpected end of template.";
    if (!looking.empty()) {
      if (name && expected.count(*name)) {
        msg += " You probably made a nesting mistake. Jinja is expecting this tag, but currently looking for " +
               looking + ".";
      } else {
        msg += " Jinja was looking for the following tags: " + looking + ".";
      }
    }
    if (!tag_stack_.empty()) msg += " The innermost block that needs to be closed is " + py_quote(tag_stack_.back()) + ".";
    fail(msg, at);
  }

  bool at_end_tag(const std::vector<std::string>* ends) const {
    if (!ends || cur().type != Tok::Name) return false;
    for (auto& e : *ends)
      if (cur().text == e) return true;
    return false;
  }

  Body subparse(const std::vector<std::string>* ends) {
    DepthGuard g(*this);
    Body body;
    if (ends) end_stack_.push_back(*ends);
    struct Pop {
      Parser& p;
      bool on;
      ~Pop() {
        if (on) p.end_stack_.pop_back();
      }
    } pop{*this, ends != nullptr};
    while (cur().type != Tok::Eof) {
      const Token& tk = cur();
      if (tk.type == Tok::Data) {
        auto s = make_stmt(StmtKind::Data, tk);
        s->text = tk.value;
        body.push_back(std::move(s));
        next();
      } else if (tk.type == Tok::VarBegin) {
        auto s = make_stmt(StmtKind::Print, tk);
        next();
        s->exprs.push_back(parse_tuple(true, false, nullptr));
        expect_var_end();
        body.push_back(std::move(s));
      } else if (tk.type == Tok::BlockBegin) {
        next();
        if (at_end_tag(ends)) return body;
        parse_statement(body);
        expect_block_end();
      } else {
        fail("internal parsing error");
      }
    }
    return body;
  }

  // parse_statements(): `:`? %} body, then checks an end tag was found.
  Body parse_statements(const std::vector<std::string>& ends, bool drop_needle) {
    skip_op(":");
    expect_block_end();
    Body body = subparse(&ends);
    if (cur().type == Tok::Eof) {
      end_stack_.push_back(ends);
      fail_unknown_tag(nullptr, cur());
    }
    if (drop_needle) next();
    return body;
  }

  void parse_statement(Body& out) {
    const Token& tk = cur();
    if (tk.type != Tok::Name) fail("tag name expected", tk);
    std::string name = tk.text;
    tag_stack_.push_back(name);
    struct Pop {
      Parser& p;
      bool on = true;
      ~Pop() {
        if (on) p.tag_stack_.pop_back();
      }
    } pop{*this};
    if (name == "for") return out.push_back(parse_for());
    if (name == "if") return out.push_back(parse_if());
    if (name == "block") return out.push_back(parse_block());
    if (name == "extends" || name == "include" || name == "import" || name == "from")
      return out.push_back(parse_no_loader(name));
    if (name == "print") return out.push_back(parse_print());
    if (name == "macro") return out.push_back(parse_macro());
    if (name == "set") return out.push_back(parse_set());
    if (name == "with") return out.push_back(parse_with());
    if (name == "autoescape") return out.push_back(parse_autoescape());
    if (name == "call") return out.push_back(parse_call_block());
    if (name == "filter") return out.push_back(parse_filter_block());
    if (name == "break" || name == "continue") {
      const Token& t = next();
      if (loop_depth_ == 0) {
        // Jinja2 emits a Python `break` outside any loop; Python's compiler refuses it.
        python_syntax_errors_.emplace_back(ErrorKind::Syntax, "SyntaxError",
                                           name == "break" ? "'break' outside loop" : "'continue' not properly in loop",
                                           t.line, t.column);
      }
      return out.push_back(make_stmt(name == "break" ? StmtKind::Break : StmtKind::Continue, t));
    }
    if (name == "generation") return out.push_back(parse_generation());
    tag_stack_.pop_back();
    pop.on = false;
    fail_unknown_tag(&name, tk);
  }

  StmtPtr parse_for() {
    auto s = make_stmt(StmtKind::For, next());
    static const std::vector<std::string> in_end = {"in"};
    s->target = parse_assign_target(true, false, &in_end, false);
    expect_name("in");
    static const std::vector<std::string> rec_end = {"recursive"};
    s->iter = parse_tuple(false, false, &rec_end);
    if (skip_name("if")) {
      FrameFlags f(*this, false, loop_depth_);  // the loop filter runs in its own frame
      s->cond = parse_expression(true);
    }
    s->recursive = skip_name("recursive");
    {
      FrameFlags f(*this, false, loop_depth_ + 1);
      s->body = parse_statements({"endfor", "else"}, false);
    }
    if (next().text != "endfor") {
      FrameFlags f(*this, false, loop_depth_);
      s->else_body = parse_statements({"endfor"}, true);
    }
    return s;
  }

  StmtPtr parse_if() {
    auto s = make_stmt(StmtKind::If, next());
    FrameFlags f(*this, true, loop_depth_);
    while (true) {
      IfBranch br;
      br.test = parse_tuple(false, false, nullptr);
      br.body = parse_statements({"elif", "else", "endif"}, false);
      s->branches.push_back(std::move(br));
      const Token& tk = next();
      if (tk.text == "elif") continue;
      if (tk.text == "else") s->else_body = parse_statements({"endif"}, true);
      break;
    }
    return s;
  }

  StmtPtr parse_block() {
    auto s = make_stmt(StmtKind::Block, next());
    s->name = expect_name().text;
    skip_name("scoped");
    skip_name("required");
    if (is_op("-")) fail("Block names in Jinja have to be valid Python identifiers and may not contain hyphens, use an underscore instead.");
    {
      FrameFlags f(*this, false, 0);
      s->body = parse_statements({"endblock"}, true);
    }
    if (is_name(s->name.c_str())) next();
    return s;
  }

  StmtPtr parse_no_loader(const std::string& kind) {
    auto s = make_stmt(StmtKind::NoLoader, next());
    s->name = kind;
    s->cond = parse_expression(true);
    if (kind == "include") {
      if (is_name("ignore") && look().type == Tok::Name && look().text == "missing") {
        next();
        next();
      }
      if ((is_name("with") || is_name("without")) && look().type == Tok::Name && look().text == "context") {
        next();
        next();
      }
    } else if (kind == "import") {
      expect_name("as");
      parse_assign_target(false, true, nullptr, false);
      if ((is_name("with") || is_name("without")) && look().type == Tok::Name && look().text == "context") {
        next();
        next();
      }
    } else if (kind == "from") {
      expect_name("import");
      while (true) {
        if ((is_name("with") || is_name("without")) && look().type == Tok::Name && look().text == "context") {
          next();
          next();
          break;
        }
        if (cur().type != Tok::Name) break;
        next();
        if (skip_name("as")) expect_name();
        if (!skip_op(",")) break;
      }
      if (cur().type != Tok::BlockEnd) expect_fail("name");
    }
    return s;
  }

  StmtPtr parse_print() {
    auto s = make_stmt(StmtKind::Print, next());
    while (cur().type != Tok::BlockEnd) {
      if (!s->exprs.empty()) expect_op(",");
      s->exprs.push_back(parse_expression(true));
    }
    return s;
  }

  void parse_signature(Stmt& s) {
    expect_op("(");
    size_t defaults = 0;
    while (!is_op(")")) {
      if (!s.params.empty()) expect_op(",");
      const Token& nt = expect_name();
      if (skip_op("=")) {
        s.exprs.push_back(parse_expression(true));
        ++defaults;
      } else if (defaults) {
        fail("non-default argument follows default argument");
      }
      s.params.push_back(nt.text);
    }
    expect_op(")");
  }

  static void mark_soft(Expr& e) {
    e.soft = true;
    for (Expr* c : {e.a.get(), e.b.get(), e.c.get(), e.dyn_args.get(), e.dyn_kwargs.get()})
      if (c) mark_soft(*c);
    for (auto& x : e.items) mark_soft(*x);
    for (auto& kv : e.kwargs) mark_soft(*kv.second);
  }

  // Jinja2's compiler raises TemplateAssertionError for the first unknown
  // filter/test it meets outside a conditional context; it visits a
  // filter/test before its operands and a statement's parts in the order the
  // generated code needs them.
  void check_expr(const Expr* e) {
    if (!e) return;
    if (e->kind == ExprKind::Filter && !e->filter && !e->soft)
      assertion_errors_.emplace_back(ErrorKind::Syntax, "TemplateAssertionError", "No filter named " + py_quote(e->name) + ".",
                                     e->line, e->column);
    if (e->kind == ExprKind::Test && !e->test && !e->soft)
      assertion_errors_.emplace_back(ErrorKind::Syntax, "TemplateAssertionError", "No test named " + py_quote(e->name) + ".",
                                     e->line, e->column);
    if (!assertion_errors_.empty()) return;
    for (const Expr* c : {e->a.get(), e->b.get(), e->c.get()}) check_expr(c);
    for (auto& x : e->items) check_expr(x.get());
    for (auto& kv : e->kwargs) check_expr(kv.second.get());
    check_expr(e->dyn_args.get());
    check_expr(e->dyn_kwargs.get());
  }

  void check_callable(const Stmt& s) {
    if (s.caller_without_default) {
      assertion_errors_.emplace_back(ErrorKind::Syntax, "TemplateAssertionError",
                                     "When defining macros or call blocks the special \"caller\" argument must be "
                                     "omitted or be given a default.",
                                     s.line, s.column);
      return;
    }
    for (auto& d : s.exprs) check_expr(d.get());
    check_compile(s.body);
  }

  void check_compile(const Body& body) {
    for (auto& sp : body) {
      if (!assertion_errors_.empty()) return;
      const Stmt& s = *sp;
      switch (s.kind) {
        case StmtKind::Print:
        case StmtKind::With:
          for (auto& e : s.exprs) check_expr(e.get());
          check_compile(s.body);
          break;
        case StmtKind::If:
          for (auto& br : s.branches) {
            check_expr(br.test.get());
            check_compile(br.body);
          }
          check_compile(s.else_body);
          break;
        case StmtKind::For:
          check_expr(s.cond.get());
          if (!s.recursive) check_expr(s.iter.get());
          check_compile(s.body);
          check_compile(s.else_body);
          if (s.recursive) check_expr(s.iter.get());
          break;
        case StmtKind::Set:
          check_expr(s.cond.get());
          break;
        case StmtKind::SetBlock:
        case StmtKind::FilterBlock:
          check_compile(s.body);
          check_expr(s.iter.get());
          break;
        case StmtKind::Macro:
          check_callable(s);
          break;
        case StmtKind::CallBlock:
          check_callable(s);
          check_expr(s.iter.get());
          break;
        case StmtKind::Block:
          check_compile(s.body);
          break;
        case StmtKind::NoLoader:
        case StmtKind::Autoescape:
          check_expr(s.cond.get());
          check_compile(s.body);
          break;
        default:
          break;
      }
    }
  }

  // Marks special names a macro body reads: caller, kwargs, varargs.
  void scan_special(const Body& body, Stmt& m);

  StmtPtr parse_macro() {
    auto s = make_stmt(StmtKind::Macro, next());
    s->name = parse_assign_target(false, true, nullptr, false)->name;
    {
      FrameFlags f(*this, false, 0);
      parse_signature(*s);
      s->body = parse_statements({"endmacro"}, true);
    }
    finish_callable(*s);
    return s;
  }

  void finish_callable(Stmt& s) {
    for (size_t k = 0; k < s.params.size(); ++k)
      if (s.params[k] == "caller") s.explicit_caller = static_cast<int>(k);
    scan_special(s.body, s);
    if (s.uses_caller && s.explicit_caller >= 0) {
      size_t first_default = s.params.size() - s.exprs.size();
      if (static_cast<size_t>(s.explicit_caller) < first_default) {
        s.caller_without_default = true;
      }
    }
    for (auto& p : s.params) {
      if (p == "kwargs") s.catch_kwargs = false;
      if (p == "varargs") s.catch_varargs = false;
    }
  }

  StmtPtr parse_call_block() {
    auto s = make_stmt(StmtKind::CallBlock, next());
    {
      FrameFlags f(*this, false, 0);
      if (is_op("(")) parse_signature(*s);
    }
    s->iter = parse_expression(true);
    if (s->iter->kind != ExprKind::Call)
      throw Error(ErrorKind::Syntax, "TemplateSyntaxError", "expected call", s->line, s->column);
    {
      FrameFlags f(*this, false, 0);
      s->body = parse_statements({"endcall"}, true);
    }
    finish_callable(*s);
    return s;
  }

  StmtPtr parse_generation() {
    auto s = make_stmt(StmtKind::CallBlock, next());
    s->generation = true;
    FrameFlags f(*this, false, 0);
    s->body = parse_statements({"endgeneration"}, true);
    return s;
  }

  StmtPtr parse_filter_block() {
    auto s = make_stmt(StmtKind::FilterBlock, next());
    FrameFlags f(*this, false, loop_depth_);
    s->iter = parse_filter(make(ExprKind::FilterInput, cur()), true);
    s->body = parse_statements({"endfilter"}, true);
    return s;
  }

  StmtPtr parse_with() {
    auto s = make_stmt(StmtKind::With, next());
    while (cur().type != Tok::BlockEnd) {
      if (!s->targets.empty()) expect_op(",");
      s->targets.push_back(parse_assign_target(true, false, nullptr, false));
      expect_op("=");
      s->exprs.push_back(parse_expression(true));
    }
    FrameFlags f(*this, false, loop_depth_);
    s->body = parse_statements({"endwith"}, true);
    return s;
  }

  StmtPtr parse_autoescape() {
    auto s = make_stmt(StmtKind::Autoescape, next());
    s->cond = parse_expression(true);
    s->body = parse_statements({"endautoescape"}, true);
    return s;
  }

  StmtPtr parse_set() {
    const Token& st = next();
    ExprPtr target = parse_assign_target(true, false, nullptr, true);
    if (skip_op("=")) {
      auto s = make_stmt(StmtKind::Set, st);
      s->target = std::move(target);
      s->cond = parse_tuple(true, false, nullptr);
      return s;
    }
    auto s = make_stmt(StmtKind::SetBlock, st);
    s->target = std::move(target);
    FrameFlags f(*this, false, loop_depth_);
    if (is_op("|")) s->iter = parse_filter(make(ExprKind::FilterInput, cur()), false);
    s->body = parse_statements({"endset"}, true);
    return s;
  }

  static bool can_assign(const Expr& e) {
    if (e.kind == ExprKind::Name || e.kind == ExprKind::NsRef) return true;
    if (e.kind == ExprKind::Tuple) {
      for (auto& it : e.items)
        if (!can_assign(*it)) return false;
      return true;
    }
    return false;
  }

  static const char* node_type_name(const Expr& e) {
    switch (e.kind) {
      case ExprKind::Const: return "const";
      case ExprKind::List: return "list";
      case ExprKind::Dict: return "dict";
      case ExprKind::Getattr: return "getattr";
      case ExprKind::Getitem: return "getitem";
      case ExprKind::Call: return "call";
      case ExprKind::Filter: return "filter";
      case ExprKind::Test: return "test";
      case ExprKind::Tuple: return "tuple";
      default: return "expr";
    }
  }

  ExprPtr parse_assign_target(bool with_tuple, bool name_only, const std::vector<std::string>* extra_end,
                              bool with_namespace) {
    ExprPtr target;
    if (name_only) {
      const Token& t = expect_name();
      target = make(ExprKind::Name, t);
      target->name = t.text;
    } else if (with_tuple) {
      target = parse_tuple(false, true, extra_end, false, with_namespace);
    } else {
      target = parse_primary(with_namespace);
    }
    if (!can_assign(*target)) {
      throw Error(ErrorKind::Syntax, "TemplateSyntaxError", std::string("can't assign to ") + py_quote(node_type_name(*target)),
                  target->line, target->column);
    }
    return target;
  }

  ExprPtr parse_expression(bool with_condexpr) {
    DepthGuard g(*this);
    return with_condexpr ? parse_condexpr() : parse_or();
  }

  ExprPtr parse_condexpr() {
    DepthGuard g(*this);
    const Token& start = cur();
    bool saved = soft_;
    // The whole conditional expression compiles in a soft frame, which we
    // only know after its first operand: drop that operand's unknown-filter
    // errors once an `if` follows.
    ExprPtr e1 = parse_or();
    if (is_name("if")) mark_soft(*e1);
    while (skip_name("if")) {
      soft_ = true;
      auto ce = make(ExprKind::CondExpr, start);
      ExprPtr cond = parse_or();
      ExprPtr els;
      if (skip_name("else")) els = parse_condexpr();
      ce->a = std::move(e1);
      ce->b = std::move(cond);
      ce->c = std::move(els);
      e1 = fin(std::move(ce));
    }
    soft_ = saved;
    return e1;
  }

  ExprPtr parse_or() {
    ExprPtr left = parse_and();
    while (is_name("or")) {
      auto e = make(ExprKind::Or, next());
      e->a = std::move(left);
      e->b = parse_and();
      left = fin(std::move(e));
    }
    return left;
  }

  ExprPtr parse_and() {
    ExprPtr left = parse_not();
    while (is_name("and")) {
      auto e = make(ExprKind::And, next());
      e->a = std::move(left);
      e->b = parse_not();
      left = fin(std::move(e));
    }
    return left;
  }

  ExprPtr parse_not() {
    if (is_name("not")) {
      DepthGuard g(*this);
      auto e = make(ExprKind::Not, next());
      e->a = parse_not();
      return fin(std::move(e));
    }
    return parse_compare();
  }

  ExprPtr parse_compare() {
    const Token& start = cur();
    ExprPtr expr = parse_math1();
    ExprPtr cmp;
    while (true) {
      CmpKind k;
      if (cur().type == Tok::Op && (cur().text == "==" || cur().text == "!=" || cur().text == "<" ||
                                    cur().text == "<=" || cur().text == ">" || cur().text == ">=")) {
        const std::string& o = cur().text;
        k = o == "==" ? CmpKind::Eq : o == "!=" ? CmpKind::Ne : o == "<" ? CmpKind::Lt : o == "<=" ? CmpKind::Le
            : o == ">" ? CmpKind::Gt : CmpKind::Ge;
        next();
      } else if (is_name("in")) {
        next();
        k = CmpKind::In;
      } else if (is_name("not") && look().type == Tok::Name && look().text == "in") {
        next();
        next();
        k = CmpKind::NotIn;
      } else {
        break;
      }
      if (!cmp) {
        cmp = make(ExprKind::Compare, start);
        cmp->a = std::move(expr);
      }
      cmp->ops.push_back(k);
      cmp->items.push_back(parse_math1());
    }
    return cmp ? fin(std::move(cmp)) : std::move(expr);
  }

  ExprPtr binary(BinOp op, ExprPtr l, ExprPtr r, const Token& at) {
    auto e = make(ExprKind::Binary, at);
    e->binop = op;
    e->a = std::move(l);
    e->b = std::move(r);
    return fin(std::move(e));
  }

  ExprPtr parse_math1() {
    ExprPtr left = parse_concat();
    while (is_op("+") || is_op("-")) {
      const Token& t = next();
      BinOp op = t.text == "+" ? BinOp::Add : BinOp::Sub;
      left = binary(op, std::move(left), parse_concat(), t);
    }
    return left;
  }

  ExprPtr parse_concat() {
    ExprPtr first = parse_math2();
    if (!is_op("~")) return first;
    auto e = make(ExprKind::Concat, cur());
    e->items.push_back(std::move(first));
    while (skip_op("~")) e->items.push_back(parse_math2());
    return fin(std::move(e));
  }

  ExprPtr parse_math2() {
    ExprPtr left = parse_pow();
    while (is_op("*") || is_op("/") || is_op("//") || is_op("%")) {
      const Token& t = next();
      BinOp op = t.text == "*" ? BinOp::Mul : t.text == "/" ? BinOp::Div : t.text == "//" ? BinOp::FloorDiv : BinOp::Mod;
      left = binary(op, std::move(left), parse_pow(), t);
    }
    return left;
  }

  ExprPtr parse_pow() {
    ExprPtr left = parse_unary(true);
    while (is_op("**")) {
      const Token& t = next();
      left = binary(BinOp::Pow, std::move(left), parse_unary(true), t);
    }
    return left;
  }

  ExprPtr parse_unary(bool with_filter) {
    DepthGuard g(*this);
    ExprPtr node;
    if (is_op("-") || is_op("+")) {
      const Token& t = next();
      node = make(t.text == "-" ? ExprKind::Neg : ExprKind::Pos, t);
      node->a = parse_unary(false);
      node = fin(std::move(node));
    } else {
      node = parse_primary(false);
    }
    node = parse_postfix(std::move(node));
    if (with_filter) node = parse_filter_expr(std::move(node));
    return node;
  }

  ExprPtr parse_primary(bool with_namespace) {
    DepthGuard g(*this);
    const Token& tk = cur();
    if (tk.type == Tok::Name) {
      next();
      auto e = make(ExprKind::Const, tk);
      if (tk.text == "true" || tk.text == "True") {
        e->value = Value::boolean(true);
      } else if (tk.text == "false" || tk.text == "False") {
        e->value = Value::boolean(false);
      } else if (tk.text == "none" || tk.text == "None") {
        e->value = Value::none();
      } else if (with_namespace && is_op(".")) {
        next();
        e->kind = ExprKind::NsRef;
        e->name = tk.text;
        e->attr = expect_name().text;
      } else {
        e->kind = ExprKind::Name;
        e->name = tk.text;
        e->value = Value::undefined("'" + tk.text + "' is undefined");
      }
      return e;
    }
    if (tk.type == Tok::String) {
      auto e = make(ExprKind::Const, tk);
      std::string s;
      while (cur().type == Tok::String) s += next().text;
      e->value = Value::string(std::move(s));
      return e;
    }
    if (tk.type == Tok::Integer || tk.type == Tok::Float) {
      auto e = make(ExprKind::Const, tk);
      e->value = tk.value;
      next();
      return e;
    }
    if (tk.type == Tok::Op && tk.text == "(") {
      next();
      ExprPtr e = parse_tuple(true, false, nullptr, true);
      expect_op(")");
      return e;
    }
    if (tk.type == Tok::Op && tk.text == "[") {
      auto e = make(ExprKind::List, next());
      while (!is_op("]")) {
        if (!e->items.empty()) expect_op(",");
        if (is_op("]")) break;
        e->items.push_back(parse_expression(true));
      }
      expect_op("]");
      return fin(std::move(e));
    }
    if (tk.type == Tok::Op && tk.text == "{") {
      auto e = make(ExprKind::Dict, next());
      while (!is_op("}")) {
        if (!e->items.empty()) expect_op(",");
        if (is_op("}")) break;
        e->items.push_back(parse_expression(true));
        expect_op(":");
        e->items.push_back(parse_expression(true));
      }
      expect_op("}");
      return fin(std::move(e));
    }
    fail("unexpected " + py_quote(describe_token(tk)));
  }

  // Jinja2 3.1 passes its extra end rules to Token.test_any() as a single
  // tuple argument, so they never match; only the closing tokens end a tuple.
  bool is_tuple_end(const std::vector<std::string>*) const {
    return cur().type == Tok::VarEnd || cur().type == Tok::BlockEnd || is_op(")");
  }

  ExprPtr parse_tuple(bool with_condexpr, bool simplified, const std::vector<std::string>* extra,
                      bool explicit_parens = false, bool with_namespace = false) {
    DepthGuard g(*this);
    const Token& start = cur();
    std::vector<ExprPtr> args;
    bool is_tuple = false;
    while (true) {
      if (!args.empty()) expect_op(",");
      if (is_tuple_end(extra)) break;
      if (simplified) args.push_back(parse_primary(with_namespace));
      else args.push_back(parse_expression(with_condexpr));
      if (is_op(",")) is_tuple = true;
      else break;
    }
    if (!is_tuple) {
      if (!args.empty()) return std::move(args[0]);
      if (!explicit_parens) fail("Expected an expression, got " + py_quote(describe_token(cur())));
    }
    auto e = make(ExprKind::Tuple, start);
    e->items = std::move(args);
    return fin(std::move(e));
  }

  ExprPtr parse_postfix(ExprPtr node) {
    while (true) {
      if (is_op(".") || is_op("[")) node = parse_subscript(std::move(node));
      else if (is_op("(")) node = parse_call(std::move(node));
      else break;
    }
    return node;
  }

  ExprPtr parse_filter_expr(ExprPtr node) {
    while (true) {
      if (is_op("|")) node = parse_filter(std::move(node), false);
      else if (is_name("is")) node = parse_test(std::move(node));
      else if (is_op("(")) node = parse_call(std::move(node));
      else break;
    }
    return node;
  }

  ExprPtr parse_subscript(ExprPtr node) {
    DepthGuard g(*this);
    const Token& tk = next();
    if (tk.text == ".") {
      const Token& at = next();
      if (at.type == Tok::Name) {
        auto e = make(ExprKind::Getattr, tk);
        e->a = std::move(node);
        e->name = at.text;
        return fin(std::move(e));
      }
      if (at.type != Tok::Integer) fail("expected name or number", at);
      auto e = make(ExprKind::Getitem, tk);
      e->a = std::move(node);
      auto k = make(ExprKind::Const, at);
      k->value = at.value;
      e->b = std::move(k);
      return fin(std::move(e));
    }
    // "["
    std::vector<ExprPtr> args;
    while (!is_op("]")) {
      if (!args.empty()) expect_op(",");
      args.push_back(parse_subscribed());
    }
    expect_op("]");
    ExprPtr arg;
    if (args.size() == 1) {
      arg = std::move(args[0]);
    } else {
      // Jinja2 generates invalid Python for a slice inside a tuple subscript.
      for (auto& x : args) {
        if (x->kind == ExprKind::Slice)
          python_syntax_errors_.emplace_back(ErrorKind::Syntax, "SyntaxError", "invalid syntax", x->line, x->column);
      }
      arg = make(ExprKind::Tuple, tk);
      arg->items = std::move(args);
      arg = fin(std::move(arg));
    }
    if (arg->kind == ExprKind::Slice && !arg->a) {
      arg->a = std::move(node);
      return fin(std::move(arg));
    }
    auto e = make(ExprKind::Getitem, tk);
    e->a = std::move(node);
    e->b = std::move(arg);
    return fin(std::move(e));
  }

  // One subscript: an expression or a slice a:b:c (each part optional).
  ExprPtr parse_subscribed() {
    const Token& start = cur();
    ExprPtr first;
    if (is_op(":")) {
      next();
    } else {
      first = parse_expression(true);
      if (!is_op(":")) return first;
      next();
    }
    auto s = make(ExprKind::Slice, start);
    if (first) {
      s->has_b = true;
      s->b = std::move(first);
    }
    if (is_op(":")) {
      // no stop
    } else if (!is_op("]") && !is_op(",")) {
      s->has_c = true;
      s->c = parse_expression(true);
    }
    if (skip_op(":")) {
      if (!is_op("]") && !is_op(",")) s->items.push_back(parse_expression(true));
    }
    return fin(std::move(s));
  }

  void parse_call_args(Expr& e) {
    const Token& open = expect_op("(");
    bool require_comma = false;
    auto ensure = [&](bool ok) {
      if (!ok) fail("invalid syntax for function call expression", open);
    };
    while (!is_op(")")) {
      if (require_comma) {
        expect_op(",");
        if (is_op(")")) break;
      }
      if (is_op("*")) {
        ensure(!e.dyn_args && !e.dyn_kwargs);
        next();
        e.dyn_args = parse_expression(true);
      } else if (is_op("**")) {
        ensure(!e.dyn_kwargs);
        next();
        e.dyn_kwargs = parse_expression(true);
      } else if (cur().type == Tok::Name && look().type == Tok::Op && look().text == "=") {
        ensure(!e.dyn_kwargs);
        std::string key = next().text;
        next();
        e.kwargs.emplace_back(key, parse_expression(true));
      } else {
        ensure(!e.dyn_args && !e.dyn_kwargs && e.kwargs.empty());
        e.items.push_back(parse_expression(true));
      }
      require_comma = true;
    }
    expect_op(")");
  }

  ExprPtr parse_call(ExprPtr node) {
    DepthGuard g(*this);
    auto e = make(ExprKind::Call, cur());
    e->a = std::move(node);
    parse_call_args(*e);
    return fin(std::move(e));
  }

  ExprPtr parse_filter(ExprPtr node, bool start_inline) {
    DepthGuard g(*this);
    while (is_op("|") || start_inline) {
      if (!start_inline) next();
      const Token& nt = expect_name();
      auto e = make(ExprKind::Filter, nt);
      e->name = nt.text;
      while (is_op(".")) {
        next();
        e->name += "." + expect_name().text;
      }
      if (is_op("(")) parse_call_args(*e);
      e->a = std::move(node);
      e->filter = find_filter(e->name);
      e->soft = soft_;
      node = fin(std::move(e));
      start_inline = false;
    }
    return node;
  }

  ExprPtr parse_test(ExprPtr node) {
    DepthGuard g(*this);
    const Token& is_tok = next();
    bool negated = skip_name("not");
    const Token& nt = expect_name();
    auto e = make(ExprKind::Test, is_tok);
    e->name = nt.text;
    while (is_op(".")) {
      next();
      e->name += "." + expect_name().text;
    }
    if (is_op("(")) {
      parse_call_args(*e);
    } else if ((cur().type == Tok::Name || cur().type == Tok::String || cur().type == Tok::Integer ||
                cur().type == Tok::Float || is_op("(") || is_op("[") || is_op("{")) &&
               !is_name("else") && !is_name("or") && !is_name("and")) {
      if (is_name("is")) fail("You cannot chain multiple tests with is");
      ExprPtr arg = parse_primary(false);
      e->items.push_back(parse_postfix(std::move(arg)));
    }
    e->a = std::move(node);
    e->test = find_test(e->name);
    e->soft = soft_;
    if (negated) {
      auto n = make(ExprKind::Not, is_tok);
      n->a = fin(std::move(e));
      return fin(std::move(n));
    }
    return fin(std::move(e));
  }
};

// Jinja2 decides whether a macro accepts caller/kwargs/varargs by whether its
// body (at any depth) reads that name.
void collect_names(const Expr* e, std::set<std::string>& out);
void collect_names(const Body& b, std::set<std::string>& out);

void collect_names(const Expr* e, std::set<std::string>& out) {
  if (!e) return;
  if (e->kind == ExprKind::Name) out.insert(e->name);
  collect_names(e->a.get(), out);
  collect_names(e->b.get(), out);
  collect_names(e->c.get(), out);
  for (auto& x : e->items) collect_names(x.get(), out);
  for (auto& kv : e->kwargs) collect_names(kv.second.get(), out);
  collect_names(e->dyn_args.get(), out);
  collect_names(e->dyn_kwargs.get(), out);
}

void collect_stmt_names(const Stmt& s, std::set<std::string>& out) {
  for (auto& x : s.exprs) collect_names(x.get(), out);
  for (auto& br : s.branches) {
    collect_names(br.test.get(), out);
    collect_names(br.body, out);
  }
  collect_names(s.body, out);
  collect_names(s.else_body, out);
  collect_names(s.iter.get(), out);
  collect_names(s.cond.get(), out);
}

void collect_names(const Body& b, std::set<std::string>& out) {
  for (auto& s : b) {
    if (s->kind == StmtKind::Block) continue;  // Jinja2 does not look into blocks here
    collect_stmt_names(*s, out);
  }
}

void Parser::scan_special(const Body& body, Stmt& m) {
  std::set<std::string> names;
  collect_names(body, names);
  m.uses_caller = names.count("caller") > 0;
  m.catch_kwargs = names.count("kwargs") > 0;
  m.catch_varargs = names.count("varargs") > 0;
}

}  // namespace

ast::Body parse_template(std::string_view source) {
  Parser p(tokenize(source));
  return p.parse_root();
}

}  // namespace jinja
