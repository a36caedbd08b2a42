// definedOnly: optional fields passed on only when given, so a default spread under them survives.
import { describe, expect, it } from 'vitest';
import { definedOnly } from '../../src/core/defined.js';

describe('definedOnly', () => {
  it('drops undefined properties and keeps every other value, falsy ones included', () => {
    const kept = definedOnly({ a: undefined, b: 0, c: '', d: null, e: false, f: [] as string[] });
    expect(kept).toStrictEqual({ b: 0, c: '', d: null, e: false, f: [] });
    expect('a' in kept).toBe(false);
  });

  it('leaves a default standing where the override is undefined', () => {
    const defaults = { connectMs: 10, readMs: 20 };
    expect({ ...defaults, ...definedOnly({ connectMs: undefined, readMs: 5 }) }).toStrictEqual({ connectMs: 10, readMs: 5 });
  });
});
