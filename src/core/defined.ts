// Optional fields passed on only when given: a key set to undefined would still count as present
// to `in`, Object.keys and toStrictEqual, and would override a default it is spread over.

/** `value` without its undefined properties. */
export function definedOnly<T extends object>(value: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}
