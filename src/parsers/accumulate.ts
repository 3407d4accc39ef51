/**
 * Fold streaming deltas into a final message the way openai-node's
 * ChatCompletionStream does: slots keyed by `index`, `id`/`type` set when
 * truthy, `name` replaced when truthy, `arguments` appended.
 */
import type { ParseResult, ParsedToolCall, StreamDelta } from './types';

export function accumulateDeltas(deltas: readonly StreamDelta[]): ParseResult {
  let content: string | null = null;
  const slots = new Map<number, { id: string; type: 'function'; function: { name: string; arguments: string } | null }>();
  for (const delta of deltas) {
    if (delta.content) content = (content ?? '') + delta.content;
    for (const tc of delta.tool_calls ?? []) {
      let slot = slots.get(tc.index);
      if (!slot) {
        slot = { id: '', type: 'function', function: null };
        slots.set(tc.index, slot);
      }
      if (tc.id) slot.id = tc.id;
      if (tc.type) slot.type = tc.type;
      if (tc.function) {
        if (!slot.function) slot.function = { name: tc.function.name ?? '', arguments: '' };
        if (tc.function.name) slot.function.name = tc.function.name;
        if (tc.function.arguments) slot.function.arguments += tc.function.arguments;
      }
    }
  }
  const tool_calls: ParsedToolCall[] = [...slots.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, s]) => ({ id: s.id, type: s.type, function: s.function ?? { name: '', arguments: '' } }));
  return { content, tool_calls };
}
