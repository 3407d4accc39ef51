/**
 * zod schemas for the OpenAI Chat Completions request as vLLM 0.25.0 accepts
 * it (the parts that matter for rendering). They validate the pyjson value
 * model (plain objects, numbers, `PyFloat`, `bigint`) and are used for
 * validation only: the request is processed from the original value so key
 * order and number types survive. Unknown fields are allowed everywhere.
 */

import { z } from 'zod';
import { RequestValidationError } from '../errors';
import { PyFloat } from './pyjson';

/** Any JSON value of the pyjson model. */
export const PyJsonValueSchema: z.ZodType<unknown> = z.unknown();
/** A JSON number of the model: number, bigint or PyFloat. */
export const PyNumberSchema = z.union([z.number(), z.bigint(), z.instanceof(PyFloat)]);
const JsonObjectSchema = z.record(z.string(), z.unknown());

type Path = Array<string | number>;

/** An issue of a nested safeParse with `prefix` in front of its path, union branches included. */
function rebase(issue: z.ZodIssue, prefix: Path): z.ZodIssue {
  const path = [...prefix, ...issue.path];
  if (issue.code !== 'invalid_union') return { ...issue, path };
  return { ...issue, path, unionErrors: issue.unionErrors.map((e) => new z.ZodError(e.issues.map((i) => rebase(i, prefix)))) };
}

/**
 * Re-reports the issues of a nested safeParse from a superRefine. zod puts
 * the refinement's own path in front of each issue's path, but not in front
 * of the paths inside union branches, which `flatten` reports: those get it
 * here, so every reported path is the full JSON path.
 */
function forward(ctx: z.RefinementCtx, issues: readonly z.ZodIssue[]): void {
  for (const issue of issues) {
    if (issue.code !== 'invalid_union') {
      ctx.addIssue({ ...issue } as z.IssueData);
      continue;
    }
    const rebased = rebase(issue, ctx.path) as z.ZodInvalidUnionIssue;
    ctx.addIssue({ ...rebased, path: issue.path } as z.IssueData);
  }
}

const textLike = (type: string, key: string) =>
  z.object({ type: z.literal(type), [key]: z.string().nullable().optional() }).passthrough();

export const TextPartSchema = textLike('text', 'text');
export const InputTextPartSchema = textLike('input_text', 'text');
export const OutputTextPartSchema = textLike('output_text', 'text');
export const RefusalPartSchema = textLike('refusal', 'refusal');
export const ThinkingPartSchema = textLike('thinking', 'thinking');
export const ToolReferencePartSchema = z.object({ type: z.literal('tool_reference'), name: z.string() }).passthrough();

/** A content part: a bare string or a typed object (media types are rejected when the message is built). */
export const ContentPartSchema = z.union([z.string(), z.object({ type: z.string().optional() }).passthrough()]).superRefine((part, ctx) => {
  if (typeof part === 'string') return;
  const byType: Record<string, z.ZodTypeAny> = {
    text: TextPartSchema,
    input_text: InputTextPartSchema,
    output_text: OutputTextPartSchema,
    refusal: RefusalPartSchema,
    thinking: ThinkingPartSchema,
    tool_reference: ToolReferencePartSchema,
  };
  const schema = part.type !== undefined ? byType[part.type] : undefined;
  if (!schema) return;
  const r = schema.safeParse(part);
  if (!r.success) forward(ctx, r.error.issues);
});

export const MessageContentSchema = z.union([z.string(), z.null(), z.array(ContentPartSchema)]);

export const ToolCallFunctionSchema = z
  .object({ name: z.string().optional(), arguments: z.unknown().optional() })
  .passthrough();
/**
 * A tool-call entry: id, type, function {name, arguments}. Over HTTP, vLLM's
 * pydantic model would also insist on `type` and on a string `arguments`; we
 * accept what vLLM's message post-processing accepts (its offline `LLM.chat`
 * path): `arguments` missing, null or already structured, `type` absent. The
 * post-processing then decodes, defaults or rejects them (non-function types
 * get vLLM's own message there).
 */
export const ToolCallSchema = z
  .object({
    id: z.string(),
    type: z.string().optional(),
    function: z.object({ name: z.string(), arguments: z.unknown().optional() }).passthrough(),
  })
  .passthrough();

export const KNOWN_ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function'] as const;

const baseMessage = {
  role: z.string(),
  content: MessageContentSchema.optional(),
  name: z.string().optional(),
  task: z.unknown().optional(),
};
export const SystemMessageSchema = z.object({ ...baseMessage, role: z.literal('system') }).passthrough();
export const DeveloperMessageSchema = z
  .object({ ...baseMessage, role: z.literal('developer'), tools: z.array(z.unknown()).nullable().optional() })
  .passthrough();
export const UserMessageSchema = z.object({ ...baseMessage, role: z.literal('user') }).passthrough();
export const AssistantMessageSchema = z
  .object({
    ...baseMessage,
    role: z.literal('assistant'),
    tool_calls: z.array(ToolCallSchema).nullable().optional(),
    reasoning: z.string().nullable().optional(),
    reasoning_content: z.string().nullable().optional(),
  })
  .passthrough();
export const ToolMessageSchema = z
  .object({ ...baseMessage, role: z.literal('tool'), tool_call_id: z.string().nullable().optional() })
  .passthrough();
/** vLLM's custom message param accepts any role string. */
export const CustomMessageSchema = z
  .object({
    ...baseMessage,
    tool_calls: z.array(ToolCallSchema).nullable().optional(),
    tool_call_id: z.string().nullable().optional(),
    reasoning: z.string().nullable().optional(),
    tools: z.array(z.unknown()).nullable().optional(),
  })
  .passthrough();

/** The schema of each known role (a Map: a role such as `__proto__` or `constructor` names no schema). */
const SCHEMA_OF_ROLE = new Map<string, z.ZodTypeAny>([
  ['system', SystemMessageSchema],
  ['developer', DeveloperMessageSchema],
  ['user', UserMessageSchema],
  ['assistant', AssistantMessageSchema],
  ['tool', ToolMessageSchema],
]);

export const ChatMessageSchema = z.object({ role: z.string() }).passthrough().superRefine((msg, ctx) => {
  const r = (SCHEMA_OF_ROLE.get(msg.role) ?? CustomMessageSchema).safeParse(msg);
  if (!r.success) forward(ctx, r.error.issues);
});

export const FunctionDefinitionSchema = z
  .object({
    name: z.string(),
    description: z.string().nullable().optional(),
    parameters: JsonObjectSchema.nullable().optional(),
    strict: z.boolean().nullable().optional(),
    defer_loading: z.boolean().nullable().optional(),
  })
  .passthrough();

export const ToolSchema = z
  .object({
    type: z.literal('function').optional(),
    function: FunctionDefinitionSchema,
    defer_loading: z.boolean().nullable().optional(),
  })
  .passthrough();

export const ChatCompletionRequestSchema = z
  .object({
    messages: z.array(ChatMessageSchema),
    // vLLM 0.25 rejects an empty list rather than treating it like no tools.
    tools: z
      .array(ToolSchema)
      .min(1, '`tools` must not be an empty array. Either provide at least one tool or omit the field entirely.')
      .nullable()
      .optional(),
    tool_choice: z.unknown().optional(),
    add_generation_prompt: z.boolean().optional(),
    continue_final_message: z.boolean().optional(),
    chat_template: z.string().nullable().optional(),
    chat_template_kwargs: JsonObjectSchema.nullable().optional(),
    documents: z.array(JsonObjectSchema).nullable().optional(),
    reasoning_effort: z.string().nullable().optional(),
  })
  .passthrough();

export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequestSchema>;

/** `messages[2].content[0].text` */
export function formatPath(path: ReadonlyArray<string | number>): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out ? `.${p}` : p;
  }
  return out;
}

function describe(data: unknown): string {
  if (data instanceof PyFloat) return 'float';
  if (typeof data === 'bigint') return 'number';
  return typeof data;
}

/** The most informative issue of a zod error (for unions: the branch that got deepest). */
function flatten(issues: readonly z.ZodIssue[]): z.ZodIssue[] {
  const out: z.ZodIssue[] = [];
  for (const issue of issues) {
    if (issue.code === 'invalid_union') {
      const branches = issue.unionErrors.map((e) => flatten(e.issues));
      const typeOnly = branches.every((b) => b.length === 1 && b[0]!.code === 'invalid_type' && b[0]!.path.length === issue.path.length);
      if (typeOnly) {
        const expected = branches.map((b) => (b[0] as z.ZodInvalidTypeIssue).expected).join(' | ');
        const received = (branches[0]![0] as z.ZodInvalidTypeIssue).received;
        out.push({ ...issue, code: 'custom', message: `Expected ${expected}, received ${received}` } as z.ZodIssue);
        continue;
      }
      const best = branches
        .filter((b) => !(b.length === 1 && b[0]!.code === 'invalid_type' && b[0]!.path.length === issue.path.length))
        .sort((a, b) => Math.max(...b.map((i) => i.path.length)) - Math.max(...a.map((i) => i.path.length)))[0];
      out.push(...(best ?? branches[0]!));
    } else {
      out.push(issue);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------
// Fast acceptance check
//
// A hand-written mirror of ChatCompletionRequestSchema that answers "does zod
// accept this?" without allocating. It is conservative: it returns true only
// for values zod certainly accepts (plain objects only), and false for
// anything else, in which case zod runs and reports the error as before. So
// zod stays the authority on what is rejected and how the error reads; this
// only skips zod's (allocation-heavy) walk for requests that pass.

/** What zod v3 parses as an object, restricted to plain objects. */
function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return false;
  // zod treats an object with then/catch functions as a promise
  return typeof (v as { then?: unknown }).then !== 'function';
}
const optString = (v: unknown): boolean => v === undefined || typeof v === 'string';
const optNullString = (v: unknown): boolean => v === undefined || v === null || typeof v === 'string';
const optNullBool = (v: unknown): boolean => v === undefined || v === null || typeof v === 'boolean';
const optBool = (v: unknown): boolean => v === undefined || typeof v === 'boolean';
const optNullArray = (v: unknown): boolean => v === undefined || v === null || Array.isArray(v);
const optNullRecord = (v: unknown): boolean => v === undefined || v === null || isPlainObject(v);

function fastContentPart(part: unknown): boolean {
  if (typeof part === 'string') return true;
  if (!isPlainObject(part)) return false;
  const type = part['type'];
  if (type === undefined) return true;
  if (typeof type !== 'string') return false;
  switch (type) {
    case 'text':
    case 'input_text':
    case 'output_text':
      return optNullString(part['text']);
    case 'refusal':
      return optNullString(part['refusal']);
    case 'thinking':
      return optNullString(part['thinking']);
    case 'tool_reference':
      return typeof part['name'] === 'string';
    default:
      return true;
  }
}

function fastContent(content: unknown): boolean {
  if (content === undefined || content === null || typeof content === 'string') return true;
  if (!Array.isArray(content)) return false;
  for (let i = 0; i < content.length; i++) if (!fastContentPart(content[i])) return false;
  return true;
}

function fastToolCalls(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (!Array.isArray(v)) return false;
  for (let i = 0; i < v.length; i++) {
    const tc = v[i];
    if (!isPlainObject(tc) || typeof tc['id'] !== 'string') return false;
    if (tc['type'] !== undefined && typeof tc['type'] !== 'string') return false;
    const fn = tc['function'];
    if (!isPlainObject(fn) || typeof fn['name'] !== 'string') return false;
  }
  return true;
}

function fastMessage(m: unknown): boolean {
  if (!isPlainObject(m)) return false;
  const role = m['role'];
  if (typeof role !== 'string') return false;
  if (!fastContent(m['content']) || !optString(m['name'])) return false;
  switch (role) {
    case 'system':
    case 'user':
      return true;
    case 'developer':
      return optNullArray(m['tools']);
    case 'assistant':
      return fastToolCalls(m['tool_calls']) && optNullString(m['reasoning']) && optNullString(m['reasoning_content']);
    case 'tool':
      return optNullString(m['tool_call_id']);
    default:
      return (
        fastToolCalls(m['tool_calls']) &&
        optNullString(m['tool_call_id']) &&
        optNullString(m['reasoning']) &&
        optNullArray(m['tools'])
      );
  }
}

function fastTool(t: unknown): boolean {
  if (!isPlainObject(t)) return false;
  const type = t['type'];
  if (type !== undefined && type !== 'function') return false;
  if (!optNullBool(t['defer_loading'])) return false;
  const fn = t['function'];
  return (
    isPlainObject(fn) &&
    typeof fn['name'] === 'string' &&
    optNullString(fn['description']) &&
    optNullRecord(fn['parameters']) &&
    optNullBool(fn['strict']) &&
    optNullBool(fn['defer_loading'])
  );
}

/**
 * True when ChatCompletionRequestSchema certainly accepts `value` (checked
 * without allocating); false means "let zod decide".
 */
export function isCertainlyValidRequest(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  const messages = value['messages'];
  if (!Array.isArray(messages)) return false;
  for (let i = 0; i < messages.length; i++) if (!fastMessage(messages[i])) return false;
  const tools = value['tools'];
  if (tools !== undefined && tools !== null) {
    if (!Array.isArray(tools) || tools.length < 1) return false;
    for (let i = 0; i < tools.length; i++) if (!fastTool(tools[i])) return false;
  }
  if (!optBool(value['add_generation_prompt']) || !optBool(value['continue_final_message'])) return false;
  if (!optNullString(value['chat_template']) || !optNullString(value['reasoning_effort'])) return false;
  if (!optNullRecord(value['chat_template_kwargs'])) return false;
  const documents = value['documents'];
  if (documents !== undefined && documents !== null) {
    if (!Array.isArray(documents)) return false;
    for (let i = 0; i < documents.length; i++) if (!isPlainObject(documents[i])) return false;
  }
  return true;
}

/** Validate with `schema`; throws RequestValidationError naming the JSON path of the first problem. */
export function validateRequest<T>(schema: z.ZodType<T>, value: unknown): void {
  if (schema === (ChatCompletionRequestSchema as z.ZodType<unknown>) && isCertainlyValidRequest(value)) return;
  const r = schema.safeParse(value, {
    errorMap: (issue, ctx) => {
      if (issue.code === 'invalid_type' && (ctx.data instanceof PyFloat || typeof ctx.data === 'bigint')) {
        return { message: `Expected ${issue.expected}, received ${describe(ctx.data)}` };
      }
      return { message: ctx.defaultError };
    },
  });
  if (r.success) return;
  const issues = flatten(r.error.issues).map((i) => ({ path: formatPath(i.path), message: i.message }));
  const first = issues[0]!;
  throw new RequestValidationError(first.path ? `${first.path}: ${first.message}` : first.message, first.path, issues);
}
