// A JS string as the UTF-8 bytes of its JSON.stringify text, between two
// other strings (for lines of JSON written as bytes).
#pragma once

#include <napi.h>

namespace nvc_addon {

// jsonQuoteUtf8(before, value, after): a Buffer holding the UTF-8 bytes of
// `before + JSON.stringify(value) + after`, byte for byte what
// Buffer.from(that string) holds: `before` and `after` as Buffer.from
// encodes them (a lone surrogate as U+FFFD), `value` escaped as
// JSON.stringify escapes it (a lone surrogate as \udXXX).
Napi::Value JsonQuoteUtf8(const Napi::CallbackInfo& info);

}  // namespace nvc_addon
