/** Types shared by the request -> template-variables layer. */

export type ContentFormat = 'string' | 'openai';

export interface TemplateFacts {
  /** Content format the template expects (vLLM's AST detection, done by the caller). */
  contentFormat: ContentFormat;
  /** `jinja2.meta.find_undeclared_variables` of the template. */
  undeclaredVariables: ReadonlySet<string>;
  /**
   * Whether the template handles the `developer` role (vLLM: the template text
   * contains `"developer"` or `'developer'`). When false, developer messages
   * become system messages and system messages are consolidated. When absent,
   * derived from `templateSource` if given, else assumed false (vLLM's
   * behaviour for the many templates that never mention the role).
   */
  supportsDeveloperRole?: boolean;
  /** The template text; used for the developer-role check and continue_final_message's field check. */
  templateSource?: string;
}

export type ArgumentsPolicy = 'strict' | 'lenient';

export interface BuildOptions {
  /** `strict` (default) = vLLM 0.25.0; `lenient` = newer vLLM ({} + warning for bad arguments). */
  policy?: ArgumentsPolicy;
  /** Default `auto` = `facts.contentFormat`. */
  contentFormat?: 'auto' | ContentFormat;
  /** Configured special tokens, e.g. `{ bos_token: '<bos>', eos_token: '<eos>' }`; falsy values are skipped. */
  specialTokens?: Record<string, unknown>;
  /** Server-side defaults (`--default-chat-template-kwargs`), merged under the request's. */
  chatTemplateKwargs?: Record<string, unknown>;
  /** Overrides the request's `add_generation_prompt`. */
  addGenerationPrompt?: boolean;
  /** Overrides the request's `continue_final_message`. */
  continueFinalMessage?: boolean;
  /**
   * Apply transformers' message normalisation before the template sees the
   * messages (drop keys whose value is None, alias reasoning fields), as the
   * transformers installed with vLLM 0.25.0 (5.24) does. Default true.
   */
  transformersNormalization?: boolean;
}

export interface ContinueFinalState {
  /** The literal tag appended to the final message's text. */
  readonly tag: string;
  /** The final message's text before the tag was appended. */
  readonly finalText: string;
}

export interface BuiltContext {
  /** JSON text of the template variables (pyjson serialization). */
  contextJson: string;
  /** The conversation as the template sees it (without the continue-final tag). */
  messages: unknown[];
  tools: unknown[] | null;
  /** Names bound in the context. */
  templateVariables: string[];
  warnings: string[];
  continueFinal: ContinueFinalState | null;
}
