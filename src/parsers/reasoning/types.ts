/** Public types of the reasoning parsers (vLLM `--reasoning-parser`). */

export interface ReasoningOptions {
  /** A vLLM `--reasoning-parser` name, e.g. `deepseek_r1`, `qwen3`. */
  parser: string;
  /**
   * The request's `chat_template_kwargs`. vLLM's parsers read
   * `enable_thinking` / `thinking` from them (qwen3, seed_oss, glm45,
   * kimi_k2: thinking unless disabled; deepseek_v3: thinking only when
   * enabled), exactly as the chat template does.
   */
  chatTemplateKwargs?: Record<string, unknown>;
  /**
   * Overrides where the output starts: `true` when the rendered prompt left
   * a reasoning block open (the template ended it with `<think>`), so the
   * output begins inside reasoning; `false` when it begins as content and
   * only a start tag opens reasoning. Leave it undefined for vLLM's own
   * per-parser default (which `chatTemplateKwargs` can switch). Parsers whose
   * format has no open/closed state (granite, hunyuan_a13b, olmo3,
   * minimax_m2_append_think, openai) ignore it.
   */
  promptEndsInReasoning?: boolean;
}

export interface ReasoningResult {
  /** Reasoning text, or null when there is none (an empty string is reported as null). */
  reasoning: string | null;
  /** Everything else, the input of the tool-call parser; null when empty. */
  content: string | null;
}

export interface ReasoningDelta {
  reasoning?: string;
  content?: string;
}

export interface StreamingReasoningParser {
  /** Feed the next piece of model output; returns what it decided (fields absent when empty). */
  push(chunk: string): ReasoningDelta;
  /** The output is complete: flush whatever was held back. */
  end(): ReasoningDelta;
}
