/**
 * A member computed on first read: an enumerable accessor that replaces
 * itself with a plain data property holding the value (on first read, or
 * when assigned), so the object behaves as if the value had been there.
 */
export function defineLazy<T extends object, K extends keyof T & string>(obj: T, key: K, compute: () => T[K]): void {
  const settle = (value: unknown) => Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  Object.defineProperty(obj, key, {
    enumerable: true,
    configurable: true,
    get() {
      const value = compute();
      settle(value);
      return value;
    },
    set(value: unknown) {
      settle(value);
    },
  });
}
