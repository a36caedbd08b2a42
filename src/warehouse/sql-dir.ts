// Finds the package's sql/ folder from this module's own location, so the same code works from
// src/ (vitest, tsx) and from dist/src/ after tsc, where sql/ stays at the package root.
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Walks up from `startDir` to the first folder holding both package.json and a sql/ folder. */
export function findSqlDir(startDir: string = dirname(fileURLToPath(import.meta.url))): string {
  let dir = startDir;
  for (;;) {
    const candidate = join(dir, 'sql');
    // dist/ may hold a copied package.json (tsc copies imported JSON), so sql/ must be there too.
    if (existsSync(join(dir, 'package.json')) && existsSync(candidate) && statSync(candidate).isDirectory()) {
      return candidate;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`gexwh: no sql/ folder found above ${startDir}`);
    dir = parent;
  }
}
