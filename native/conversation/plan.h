// Building a request's template messages from plans the package made.
//
// The package (TypeScript) owns every rule of how a request message becomes
// a template message. This side only takes the request apart and puts
// messages together again: it parses the raw request text once, writes each
// message's *shape* (the message with every non-empty string under an
// opaque key, such as `content`, replaced by a numbered slot marker), and,
// once the package has built the template message of a shape with those
// markers in it (its *plan*), fills each message's own strings into its
// shape's plan. A plan may also ask for a slot decoded as JSON (a tool
// call's `arguments`). Anything this side cannot do exactly as the plan
// says (a slot that does not decode to an object, a shape without a plan)
// declines, and the package takes its usual path.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "jinja/value.h"

namespace nvc {

struct ShapeReport {
  // The request text with its `messages` list written as an empty list (the
  // rest of the text as it was).
  std::string rest;
  // Distinct shapes of this request's messages that have no plan yet.
  std::vector<std::string> unplanned;
  // Names this request's state for planned_messages.
  uint64_t ticket = 0;
  // Set (with false returned) when the request continues one shaped on
  // this thread before: its text is that one's up to the end of its last
  // message, then more messages (an agent's next turn, which the package
  // builds on the messages it keeps).
  bool continues = false;
};

// Parses `text` (Python json.loads semantics) and writes its messages'
// shapes. `config` is the package's settings, one per line: the marker
// nonce (hex), the deepest nesting the package takes, a tag for the build
// mode (plans are kept per config), then the opaque keys. False: not the
// plain case (not an object, no single list of objects as `messages`, a
// lone surrogate, nesting past the bound, a shape too large, a shape the
// package could not plan, or a request that continues a recent one: see
// ShapeReport::continues). The text is kept as one of the recent requests
// when it is shaped (moved from, so pass an rvalue to save its copy).
bool shape_request(std::string text, std::string_view config, ShapeReport& out);

// The plans (shape, plan JSON) for the last shaped request's config.
void add_plans(std::string_view config, const std::vector<std::pair<std::string, std::string>>& plans);

// The template messages of the request `ticket` named, from the plans,
// built where the request's parse holds them (so a ticket is spent by its
// first call, whatever the outcome). False: declined (another request was
// shaped since, the ticket was spent, a shape has no plan, a slot to
// decode is not a JSON object).
bool planned_messages(uint64_t ticket, jinja::Value& out);

// Drops this thread's plans and shaped request.
void forget_plans();

}  // namespace nvc
