// A product file a newcomer reads in one sitting: none of src/ over MAX_LINES lines. A file that
// grows past it holds more than one idea and is split by them (as export/ and api/ were).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAX_LINES = 450;

function tsFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

function linesOf(path: string): number {
  return readFileSync(path, 'utf8').split('\n').length - 1;
}

it(`no file of src/ is over ${MAX_LINES} lines`, () => {
  const files = tsFiles(join(ROOT, 'src'));
  expect(files.length).toBeGreaterThan(100); // the walk found the product
  const long = files.filter((path) => linesOf(path) > MAX_LINES).map((path) => `${relative(ROOT, path)}: ${linesOf(path)} lines`);
  expect(long).toEqual([]);
});
