import { describe as group, expect, it } from 'vitest';
import { checkTrees, describe, MAX_COMPLEXITY, measureSource } from '../../scripts/complexity.js';
import { writtenTree } from '../helpers/written-tree.js';

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

// The real src/ and emulator/ are bounded by `npm run lint:complexity` (CI's lint lane): parsing them
// is ~4 s of TypeScript's parser, a static check of the tree like dependency-cruiser's. Here, the
// check itself over a tree written for it.
group('the check over a tree', () => {
  const { root, write } = writtenTree('gexwh-complexity-');
  const branches = (n: number) => Array.from({ length: n }, (_, i) => `  if (a === ${i}) return ${i};`).join('\n');
  write('src/flat.ts', 'export const one = (): number => 1;\n');
  write('src/deep/nested/busy.ts', `export function busy(a: number): number {\n${branches(MAX_COMPLEXITY)}\n  return -1;\n}\n`);
  // Declarations are not code: a body here would be counted if .d.ts files were read.
  write('src/deep/types.d.ts', 'export function ignored(a: number): number { return a ? 1 : 0; }\n');
  write('emulator/edge.ts', `export function edge(a: number): number {\n${branches(MAX_COMPLEXITY - 1)}\n  return -1;\n}\n`);
  write('empty/notes.md', 'no code here\n');

  it('walks every folder, names each file from the root, and reports only what is above the bound', () => {
    const { measured, over } = checkTrees(root, ['src', 'emulator'], MAX_COMPLEXITY);
    expect(measured.map((fn) => `${fn.file} ${fn.name} ${fn.complexity}`).sort()).toEqual([
      `emulator/edge.ts edge ${MAX_COMPLEXITY}`,
      `src/deep/nested/busy.ts busy ${MAX_COMPLEXITY + 1}`,
      'src/flat.ts one 1',
    ]);
    expect(over.map(describe)).toEqual([`${String(MAX_COMPLEXITY + 1).padStart(3)}  src/deep/nested/busy.ts:1  busy`]);
  });

  it('refuses a folder with no function (a wrong path is not a clean tree)', () => {
    expect(() => checkTrees(root, ['src', 'empty'], MAX_COMPLEXITY)).toThrow(/no function measured in .*empty/);
  });
});
