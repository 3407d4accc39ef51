// Where a JSON value ends in a JS string, and how many members its objects
// have, found natively (for src/protocol/json-spans.ts and
// json-parse-agrees.ts on long texts).
#pragma once

#include <napi.h>

namespace nvc_addon {

// jsonValueEnd(text, at): the UTF-16 index just past the JSON value that
// starts at `at` (not whitespace), by its structure alone, exactly as
// json-spans' own valueEnd finds it; -1 where it does not end.
Napi::Value JsonValueEnd(const Napi::CallbackInfo& info);

// jsonMembers(text): the number of `:` outside the strings of `text` (valid
// JSON: its object members, duplicate keys included); -1 where the text
// could not be read.
Napi::Value JsonMembers(const Napi::CallbackInfo& info);

}  // namespace nvc_addon
