/**
 * DeepSeek V3.2 / V4 DSML tool calls:
 *
 *   <｜DSML｜function_calls>            (V4: <｜DSML｜tool_calls>)
 *   <｜DSML｜invoke name="NAME">
 *   <｜DSML｜parameter name="K" string="true|false">VALUE</｜DSML｜parameter>
 *   </｜DSML｜invoke>
 *   </｜DSML｜function_calls>
 *
 * The bars are U+FF5C. Streaming sends the header when the invoke tag is
 * complete and one `{"k": v` / `, "k": v` fragment per closed parameter, in
 * the same bytes `json.dumps` would produce for the whole object.
 */
import { callHexId } from './emitter';
import { PyDict, PyValue, isPyDict, makePyDict, pyEntries, pyJsonDumps } from '../protocol/pyjson';
import { TextMachine } from './machine';
import { tryLoads } from './pyvalue';
import { coerceToSchemaType, extractTypes, findToolProperties } from './schema';
import { findFirst, partialSuffixLen } from './scan';
import type { ParseOptions } from './types';

const DS = '｜DSML｜';
const WRAP_OPEN = [`<${DS}function_calls>`, `<${DS}tool_calls>`];
const WRAP_CLOSE = [`</${DS}function_calls>`, `</${DS}tool_calls>`];
const INVOKE_OPEN = `<${DS}invoke`;
const INVOKE_CLOSE = `</${DS}invoke>`;
const PARAM_OPEN = `<${DS}parameter`;
const PARAM_CLOSE = `</${DS}parameter>`;

/** The legacy wrapper parameter that carries the whole argument object. */
const WRAPPER = 'arguments';

type State = 'content' | 'wrapper' | 'invoke' | 'param';

interface Param {
  name: string;
  isString: boolean;
  raw: string;
}

interface OpenCall {
  index: number;
  props: Record<string, unknown> | undefined;
  emitted: Set<string>;
  held: Param | null;
}

function attr(tag: string, name: string): string | undefined {
  return new RegExp(`\\b${name}="([^"]*)"`).exec(tag)?.[1];
}

export class DsmlParser extends TextMachine {
  private state: State = 'content';
  private call: OpenCall | null = null;
  private param: { name: string; isString: boolean } | null = null;
  private scanPos = 0;

  constructor(opts: ParseOptions) {
    super(opts, 'verbatim', callHexId);
  }

  protected step(): boolean {
    switch (this.state) {
      case 'content': {
        if (this.scanContent(WRAP_OPEN) === null) return false;
        this.state = 'wrapper';
        return true;
      }
      case 'wrapper':
        return this.markup([INVOKE_OPEN, ...WRAP_CLOSE]);
      case 'invoke':
        return this.markup([PARAM_OPEN, INVOKE_CLOSE, ...WRAP_CLOSE]);
      case 'param':
        return this.paramValue();
    }
  }

  /** Inside the wrapper or an invoke: skip filler until the next tag. */
  private markup(tokens: string[]): boolean {
    const hit = findFirst(this.buf, tokens);
    if (!hit) {
      this.take(this.buf.length - (this.eof ? 0 : partialSuffixLen(this.buf, tokens)));
      return false;
    }
    this.take(hit.index);
    if (hit.token === INVOKE_OPEN || hit.token === PARAM_OPEN) {
      const gt = this.buf.indexOf('>');
      if (gt < 0) {
        if (this.eof) this.take(this.buf.length);
        return false;
      }
      const tag = this.take(gt + 1);
      if (hit.token === INVOKE_OPEN) this.openInvoke(tag);
      else this.openParam(tag);
      return true;
    }
    this.take(hit.token.length);
    if (hit.token === INVOKE_CLOSE) {
      this.closeCall(false);
      this.state = 'wrapper';
    } else {
      // Wrapper closed (possibly with an invoke still open).
      if (this.call) this.closeCall(false);
      this.state = 'content';
    }
    return true;
  }

  private openInvoke(tag: string): void {
    const name = attr(tag, 'name');
    if (name === undefined || name === '') return; // unusable tag: skip it
    this.content.callStart();
    this.call = {
      index: this.sink.openCall(name),
      props: findToolProperties(this.opts.tools, name),
      emitted: new Set(),
      held: null,
    };
    this.state = 'invoke';
  }

  private openParam(tag: string): void {
    const name = attr(tag, 'name');
    if (name === undefined) return;
    // `string` defaults to typed, the form the encoder uses for non-strings.
    this.param = { name, isString: attr(tag, 'string') === 'true' };
    this.state = 'param';
    this.scanPos = 0;
  }

  private paramValue(): boolean {
    const { index, next } = this.findFrom(PARAM_CLOSE, this.scanPos);
    this.scanPos = next;
    if (index < 0) return false; // at eof the cut-off value is dropped
    const raw = this.take(index);
    this.take(PARAM_CLOSE.length);
    this.addParam({ ...this.param!, raw });
    this.param = null;
    this.state = 'invoke';
    return true;
  }

  private addParam(p: Param): void {
    const call = this.call!;
    if (call.held) {
      const held = call.held;
      call.held = null;
      this.emitParam(held.name, this.convert(held));
    }
    // A lone `arguments` parameter may be the legacy nested shape; keep it
    // until the invoke closes and we know whether it stays alone.
    if (p.name === WRAPPER && call.emitted.size === 0 && !(call.props && WRAPPER in call.props)) {
      call.held = p;
      return;
    }
    this.emitParam(p.name, this.convert(p));
  }

  private convert(p: Param): PyValue {
    if (p.isString) return p.raw;
    const props = this.call!.props;
    // Typed values follow the schema; undeclared ones are JSON when they parse.
    return coerceToSchemaType(p.raw, props && p.name in props ? extractTypes(props[p.name]) : []);
  }

  private emitParam(name: string, value: PyValue): void {
    const call = this.call!;
    // Bytes already streamed cannot be replaced, so a repeated key keeps its first value.
    if (call.emitted.has(name)) return;
    const prefix = call.emitted.size === 0 ? '{' : ', ';
    call.emitted.add(name);
    this.sink.args(call.index, `${prefix}${pyJsonDumps(name)}: ${pyJsonDumps(value)}`);
  }

  /** Unwrap `{"arguments": {...}}` into `{...}` with schema-typed values. */
  private unwrap(p: Param): PyDict | null {
    const decoded = tryLoads(p.raw);
    if (!isPyDict(decoded)) return null;
    const entries = pyEntries(decoded) as Array<[string, PyValue]>;
    if (entries.length === 0) return null;
    const props = this.call!.props;
    return makePyDict(
      entries.map(([k, v]) => [
        k,
        props && k in props ? coerceToSchemaType(typeof v === 'string' ? v : pyJsonDumps(v), extractTypes(props[k])) : v,
      ]),
    );
  }

  private closeCall(cutOff: boolean): void {
    const call = this.call!;
    if (call.held) {
      const held = call.held;
      call.held = null;
      const inner = cutOff ? null : this.unwrap(held);
      if (inner) {
        this.sink.args(call.index, pyJsonDumps(inner));
        this.call = null;
        return;
      }
      this.emitParam(held.name, this.convert(held));
    }
    if (call.emitted.size > 0) this.sink.args(call.index, '}');
    else if (!cutOff) this.sink.args(call.index, '{}');
    this.call = null;
  }

  protected override finishOpenCall(): void {
    // Fragments already sent are closed into valid JSON; a call with none
    // keeps `arguments: ""`.
    if (this.call) this.closeCall(true);
  }
}
