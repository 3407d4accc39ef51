// Globals every template sees: range, dict, namespace, cycler, joiner, lipsum,
// raise_exception(msg) and strftime_now(fmt) (reads RenderState::now).
#pragma once

#include <memory>

#include "value.h"

namespace jinja {

// Immutable, built once, shared by all renders.
const DictData& default_globals();
// Python time.strftime/datetime.strftime formatting of a broken-down time.
std::string py_strftime(const std::string& fmt, const DateTime& t);

}  // namespace jinja
