// What the code and the docs cite must exist: a comment naming `docs/x.md` or `src/sync/y.ts`, and
// the README or ARCHITECTURE.md naming a file, send a reader to a page or a file that is there. Moves
// and renames leave such citations behind (a comment cited a docs page never written; others named
// files that had moved); this check finds them.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** A repo path with a folder the project has, ending in a file name: `docs/reference.md`, `src/core/errors.ts`. */
const CITED_PATH = /(?<![\w./-])((?:docs|src|emulator|test|bench|scripts|sql)\/[\w./-]*[\w-]\.(?:md|ts|sql|mjs|json))\b/g;

function filesUnder(folder: string, ext: RegExp): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'golden' ? [] : filesUnder(path, ext);
    return ext.test(entry.name) ? [path] : [];
  });
}

/** Every citation of a repo path that names no file, as `citing file: cited path`. */
export function missingCitations(root: string): string[] {
  const readers = [
    ...['src', 'emulator', 'scripts', 'bench'].flatMap((top) => filesUnder(join(root, top), /\.(ts|mjs)$/)),
    ...filesUnder(join(root, 'docs'), /\.md$/),
    ...['README.md', 'ARCHITECTURE.md', 'CHANGELOG.md'].map((name) => join(root, name)).filter((path) => existsSync(path)),
  ];
  return readers.flatMap((file) => {
    const text = readFileSync(file, 'utf8');
    const cited = [...text.matchAll(CITED_PATH)].map((match) => match[1]!);
    return [...new Set(cited)].filter((path) => !existsSync(join(root, path))).map((path) => `${relative(root, file)}: ${path}`);
  });
}

it('every docs page and repo file the code and the docs cite exists', () => {
  expect(missingCitations(ROOT)).toEqual([]);
});
