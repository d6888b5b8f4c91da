// Lookups by a name that comes from a request or a file. A plain object answers `constructor`,
// `toString`, `__proto__`, ... from Object.prototype, so `obj[name]` of an unknown name can be a
// function, and `obj[name] = v` with name `__proto__` replaces the prototype instead of storing
// a field. Every table keyed by outside names is built with `ownRecord` and read with `ownValue`.

/** `obj[key]` when `key` is an own property of `obj`, else undefined (never an inherited value). */
export function ownValue<T>(obj: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/** Stores `value` under `key` as an own, enumerable property, even when `key` is `__proto__`. */
export function setOwn<T>(obj: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

/** A table with no prototype, filled from `entries` (own properties only). */
export function ownRecord<T>(entries: Iterable<readonly [string, T]> = []): Record<string, T> {
  const out = Object.create(null) as Record<string, T>;
  for (const [k, v] of entries) setOwn(out, k, v);
  return out;
}
