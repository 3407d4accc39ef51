// Tree-walking renderer: executes a compiled template's statements against
// a context, with Jinja2's scoping (frames for loops, macros, call blocks,
// block sets, filter blocks and with-blocks; none for if), loop objects,
// macros/caller, loop controls and bounded resources.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "ast.h"
#include "template.h"
#include "value.h"

namespace jinja {

// The compiled form behind template.h's opaque handle.
struct Template {
  ast::Body body;
  std::vector<std::pair<std::string, Value>> root_prebind;  // see ast::Stmt::prebind
  std::vector<std::pair<ast::NameId, Value>> root_prebind_ids;
  std::vector<std::string> names;         // NameId -> name (assign_name_ids)
  std::vector<std::string> undeclared;    // jinja2.meta.find_undeclared_variables
  ContentFormat content_format = ContentFormat::String;
  // Size of the most recent output, used to reserve the next one so the
  // output string does not regrow several times per render. Only a hint:
  // renders on several threads may race on it, hence a relaxed atomic.
  mutable std::atomic<size_t> output_hint{0};
};

// Static analysis run once per compile (meta.cpp): scope prebinds,
// undeclared names, content format.
void analyze_template(Template& t);

// Interns every variable name the template binds or reads (run after
// analyze_template): fills Expr::id, Stmt::name_id/param_ids/prebind_ids
// and Template::names.
void assign_name_ids(Template& t);

// Renders `tpl` with `context` over default_globals(). Throws jinja::Error.
std::string evaluate(const Template& tpl, const DictData& context, RenderState& state);

}  // namespace jinja
