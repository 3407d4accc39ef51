// Abstract syntax tree of a compiled template. Built once by the parser,
// annotated by the scope analysis, then only read (shared by all renders).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "filters.h"
#include "operators.h"
#include "value.h"

namespace jinja::ast {

// Variable names are interned per template at compile time
// (assign_name_ids): scopes compare these small integer ids, never bytes.
// The first ids are fixed for the names the renderer binds itself.
using NameId = uint32_t;
inline constexpr NameId kLoopId = 0, kCallerId = 1, kKwargsId = 2, kVarargsId = 3, kFirstFreeId = 4;

struct Expr;
struct Stmt;
using ExprPtr = std::unique_ptr<Expr>;
using StmtPtr = std::unique_ptr<Stmt>;
using Body = std::vector<StmtPtr>;

enum class ExprKind {
  Const,      // value
  Name,       // name
  NsRef,      // name.attr as an assignment target ({% set ns.attr = ... %})
  List,       // items
  Tuple,      // items
  Dict,       // items: key, value, key, value, ...
  Getattr,    // a.name
  Getitem,    // a[b]
  Slice,      // a[b:c:d] (null parts are omitted bounds)
  Call,       // a(items..., kwargs..., *dyn_args, **dyn_kwargs)
  Filter,     // a|name(items..., kwargs...); a is null for a filter block's input
  Test,       // a is name(items...)
  Not,        // not a
  Neg,        // -a
  Pos,        // +a
  Binary,     // a binop b
  Concat,     // items joined with ~
  And,        // a and b
  Or,         // a or b
  Compare,    // a op0 items[0] op1 items[1] ...
  CondExpr,   // a if b else c (c may be null)
  FilterInput,  // placeholder for the body of {% filter %}
};

// Comparison operators as the parser sees them; In/NotIn are membership.
enum class CmpKind { Eq, Ne, Lt, Le, Gt, Ge, In, NotIn };

struct Expr {
  ExprKind kind;
  int line = 0;
  int column = 0;
  int depth = 1;               // height of this subtree (bounded by the parser)
  Value value;                 // Const; for Name, the undefined returned when the name is unbound
  std::string name;            // Name, NsRef (namespace name), Getattr attr, Filter/Test name
  NameId id = 0;               // interned `name` for Name / NsRef
  std::string attr;            // NsRef attribute
  ExprPtr a, b, c;             // operands (see ExprKind)
  std::vector<ExprPtr> items;  // positional arguments / elements / compared operands
  std::vector<std::pair<std::string, ExprPtr>> kwargs;
  ExprPtr dyn_args, dyn_kwargs;
  std::vector<CmpKind> ops;    // Compare
  BinOp binop = BinOp::Add;    // Binary
  FilterFn filter = nullptr;   // resolved at compile time (null: unknown, raise when evaluated)
  TestFn test = nullptr;
  bool has_b = false, has_c = false;  // Slice: which bounds are present (a[b:c:d] -> b,c,items[0])
  bool dict_item_attr = false; // Getattr: `name` is neither a dunder nor a dict attribute (a.name on a dict is a[name])
  uint8_t loop_attr = 0;       // Getattr: 1 + index of `name` among LoopObject's plain data attributes, or 0
  bool soft = false;           // Filter/Test compiled in a conditional context: unknown names fail only when run
};

enum class StmtKind {
  Data,         // literal text
  Print,        // {{ expr }} or {% print a, b %}
  If,           // branches + else
  For,
  Set,          // {% set target = expr %}
  SetBlock,     // {% set target | filters %}...{% endset %}
  Macro,
  CallBlock,    // also {% generation %} (a call block whose callee renders caller())
  FilterBlock,
  With,
  Break,
  Continue,
  Block,        // {% block name %}: rendered in place (no inheritance without a loader)
  NoLoader,     // include / import / from / extends: TypeError when reached
  Autoescape,   // rendered as its body
};

struct IfBranch {
  ExprPtr test;
  Body body;
};

struct Stmt {
  StmtKind kind;
  int line = 0;
  int column = 0;
  Value text;                    // Data
  std::vector<ExprPtr> exprs;    // Print: expressions; With: values; Macro/CallBlock: defaults
  std::vector<IfBranch> branches;  // If
  Body body;
  Body else_body;
  ExprPtr target;                // For / Set / SetBlock target; With targets are in `targets`
  std::vector<ExprPtr> targets;  // With
  ExprPtr iter;                  // For iterable; CallBlock call; SetBlock/FilterBlock filter chain
  ExprPtr cond;                  // For `if` filter; Set value
  bool recursive = false;        // For
  bool uses_loop = false;        // For: the body reads `loop` (set by the analysis)
  bool generation = false;       // CallBlock from {% generation %}
  std::string name;              // Macro / Block name
  std::vector<std::string> params;  // Macro / CallBlock parameter names
  bool catch_kwargs = false, catch_varargs = false, uses_caller = false;
  int explicit_caller = -1;      // index of a parameter named `caller`
  bool caller_without_default = false;  // `caller` parameter lacks the default Jinja2 requires
  // Names whose binding in the frame this statement opens starts out as
  // "missing" (an undefined) instead of falling through to outer scopes:
  // Jinja2 resolves a name stored first in a frame that no enclosing frame
  // mentions to a fresh local, so reads from nested frames before the store
  // see an undefined rather than the context's value.
  std::vector<std::pair<std::string, Value>> prebind;  // name + the undefined it starts as
  std::vector<std::pair<std::string, Value>> else_prebind;  // For: the else frame
  // Interned forms, filled by assign_name_ids after the analysis.
  NameId name_id = 0;                                   // Macro name
  std::vector<NameId> param_ids;                        // params
  std::vector<std::pair<NameId, Value>> prebind_ids;    // prebind
  std::vector<std::pair<NameId, Value>> else_prebind_ids;  // else_prebind
};

}  // namespace jinja::ast
