/**
 * A member computed on first read: an enumerable accessor that replaces
 * itself with a plain data property holding the value (on first read, or
 * when assigned), so the object behaves as if the value had been there.
 *
 * The accessor functions are made once per member name and shared by every
 * object, with each object's compute functions kept under a non-enumerable
 * symbol: objects given the same lazy members then share their hidden
 * class (an accessor made of fresh closures per object would give each
 * object a class of its own), and defining one costs no closures.
 */

const PENDING: unique symbol = Symbol('node-vllm-cpp.lazy');

type Pending = Record<string, () => unknown>;
type Holder = { [PENDING]?: Pending } & Record<string, unknown>;

function settle(obj: Holder, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  const pending = obj[PENDING];
  if (pending !== undefined) pending[key] = undefined as never;
}

/** The object holding the accessor of `key` that `self` reached (itself, or one it derives from). */
function holderOf(self: Holder, key: string): Holder {
  let h: Holder | null = self;
  while (h !== null && !Object.prototype.hasOwnProperty.call(h, key)) h = Object.getPrototypeOf(h) as Holder | null;
  return h ?? self;
}

const accessors = new Map<string, PropertyDescriptor>();

function accessorFor(key: string): PropertyDescriptor {
  let d = accessors.get(key);
  if (d === undefined) {
    d = {
      enumerable: true,
      configurable: true,
      get(this: Holder) {
        const holder = holderOf(this, key);
        const value = holder[PENDING]![key]!();
        settle(holder, key, value);
        return value;
      },
      set(this: Holder, value: unknown) {
        settle(holderOf(this, key), key, value);
      },
    };
    accessors.set(key, d);
  }
  return d;
}

export function defineLazy<T extends object, K extends keyof T & string>(obj: T, key: K, compute: () => T[K]): void {
  const holder = obj as unknown as Holder;
  let pending = holder[PENDING];
  if (pending === undefined) {
    pending = {};
    Object.defineProperty(holder, PENDING, { value: pending, configurable: true });
  }
  pending[key] = compute;
  Object.defineProperty(holder, key, accessorFor(key));
}
