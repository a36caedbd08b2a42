import { fileURLToPath } from 'node:url';
import { describe as group, expect, it } from 'vitest';
import { describe, MAX_COMPLEXITY, measureSource, measureTree } from '../../scripts/complexity.js';

// Each function's expected count is written beside the decisions that make it.
const SAMPLE = `
export function straight(a: number): number {
  return a + 1; // 1
}

export function everyDecision(xs: number[], flag?: boolean): number {
  let total = 0;
  if (flag) total += 1;                      // +1 if
  else if (xs.length > 2) total += 2;        // +1 else-if
  for (const x of xs) total += x;            // +1 for-of
  for (let i = 0; i < 2; i++) total += i;    // +1 for
  while (total > 100) total -= 1;            // +1 while
  do { total += 0; } while (total < 0);      // +1 do
  switch (total) {
    case 1: total = 2; break;                // +1 case
    case 2: total = 3; break;                // +1 case
    default: break;                          // default is not a decision
  }
  try { total = total > 3 ? 1 : 0; }         // +1 ?:
  catch { total = -1; }                      // +1 catch
  const ok = (flag && total > 0) || xs.length === 0; // +1 &&, +1 ||
  return ok ? total : (xs[0] ?? 0);          // +1 ?:, +1 ??
}

export const arrow = (a?: number): number => (a ?? 0) > 1 ? 1 : 0; // 1 + ?? + ?: = 3

export class Holder {
  method(a: boolean, b: boolean): boolean {
    const inner = (c: boolean): boolean => c || a || b; // nested: 1 + 2 = 3, not counted into method
    return a && inner(b); // 1 + && = 2
  }
}

export const table = {
  pick(v: number): string { return v > 0 ? 'up' : 'down'; }, // 2
};
`;

group('complexity counter', () => {
  const measured = measureSource('sample.ts', SAMPLE);
  const byName = new Map(measured.map((fn) => [fn.name, fn.complexity]));

  it('counts each kind of decision once and nested functions apart', () => {
    expect(Object.fromEntries(byName)).toEqual({
      straight: 1,
      everyDecision: 15,
      arrow: 3,
      'Holder.method': 2,
      inner: 3,
      pick: 2,
    });
  });

  it('names the file and line of each function', () => {
    expect(measured.find((fn) => fn.name === 'everyDecision')).toMatchObject({ file: 'sample.ts', line: 6 });
  });
});

for (const [tree, least] of [
  ['src', 500],
  ['emulator', 150],
] as const) {
  group(`${tree}/`, () => {
    const root = fileURLToPath(new URL(`../../${tree}`, import.meta.url));
    // Parsing the tree is the cost; both checks read one measurement.
    let measured: ReturnType<typeof measureTree> | undefined;
    const measuredTree = () => (measured ??= measureTree(root));

    it('measures the whole tree', () => {
      expect(measuredTree().length).toBeGreaterThan(least);
    });

    it(`has no function above cyclomatic complexity ${MAX_COMPLEXITY}`, () => {
      const over = measuredTree().filter((fn) => fn.complexity > MAX_COMPLEXITY);
      expect(over.map(describe)).toEqual([]);
    });
  });
}
