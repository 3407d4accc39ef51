/**
 * The clock strftime_now reads. Python's transformers calls datetime.now()
 * (local wall time), so the native side takes broken-down wall-clock fields.
 */
export type NowInput = Date | string | undefined;

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(?:Z|[+-]\d{2}:?\d{2})?$/;

/**
 * Date -> its local wall-clock time (what datetime.now() would give);
 * ISO-8601 string -> the wall-clock time as written (any zone suffix ignored),
 * so a fixed `now` renders the same on every machine.
 */
export function wallClock(now: NowInput): number[] {
  if (now === undefined) now = new Date();
  if (now instanceof Date) {
    if (Number.isNaN(now.getTime())) throw new TypeError('now: invalid Date');
    return [now.getFullYear(), now.getMonth() + 1, now.getDate(), now.getHours(), now.getMinutes(), now.getSeconds(), now.getMilliseconds() * 1000];
  }
  // A fixed `now` is usually the same text call after call: parse it once.
  if (now === lastText) return lastFields.slice();
  const fields = parseWallClock(now);
  lastText = now;
  lastFields = fields;
  return fields.slice();
}

let lastText: string | undefined;
let lastFields: number[] = [];

function parseWallClock(now: string): number[] {
  const m = ISO.exec(now.trim());
  if (!m) throw new TypeError(`now: expected an ISO-8601 date-time like 2026-01-15T10:30:00, got ${JSON.stringify(now)}`);
  const f = (i: number) => (m[i] === undefined ? 0 : Number(m[i]));
  const micro = m[7] === undefined ? 0 : Number((m[7] + '000000').slice(0, 6));
  const fields = [f(1), f(2), f(3), f(4), f(5), f(6), micro];
  const [y, mo, d, h, mi, s] = fields;
  const probe = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  if (probe.getUTCFullYear() !== y || probe.getUTCMonth() !== mo - 1 || probe.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) {
    throw new TypeError(`now: not a valid date-time: ${now}`);
  }
  return fields;
}
