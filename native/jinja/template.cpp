// Public entry points of the engine (template.h).
#include "template.h"

#include "evaluator.h"
#include "parser.h"

namespace jinja {

std::shared_ptr<const Template> compile(std::string_view source) {
  auto t = std::make_shared<Template>();
  t->body = parse_template(source);
  analyze_template(*t);
  assign_name_ids(*t);
  return t;
}

std::string render(const Template& tpl, const DictData& context, RenderState& state) {
  // Break cycles through namespaces however the render ends.
  struct DropRefs {
    RenderState& st;
    ~DropRefs() {
      for (auto& w : st.mutable_objects)
        if (auto obj = w.lock()) obj->drop_refs();
      st.mutable_objects.clear();
    }
  } drop{state};
  RenderScope scope(state);
  return evaluate(tpl, context, state);
}

const std::vector<std::string>& undeclared_variables(const Template& tpl) { return tpl.undeclared; }

ContentFormat detect_content_format(const Template& tpl) { return tpl.content_format; }

}  // namespace jinja
