// Every --json result is snake_case, like the API and the SQL: the keys a test checks for that.

/** Every object key in the value, at any depth. */
export function keysOf(value: unknown, into: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) keysOf(item, into);
  else if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      into.push(key);
      keysOf(inner, into);
    }
  }
  return into;
}

/** Keys with a lower-case letter or digit followed by a capital (camelCase, PascalCase inside). */
export const camelKeysOf = (value: unknown): string[] => keysOf(value).filter((key) => /[a-z0-9][A-Z]/.test(key));
