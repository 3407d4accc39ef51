// Where a JSON value ends in a JS string, found natively (for
// src/protocol/json-spans.ts on long texts).
#pragma once

#include <napi.h>

namespace nvc_addon {

// jsonValueEnd(text, at): the UTF-16 index just past the JSON value that
// starts at `at` (not whitespace), by its structure alone, exactly as
// json-spans' own valueEnd finds it; -1 where it does not end.
Napi::Value JsonValueEnd(const Napi::CallbackInfo& info);

}  // namespace nvc_addon
