// @duckdb/node-api is CommonJS. Imported from ESM, Node lexes each of the ~50 files its index
// re-exports to find their named exports, a noticeable part of every command's start; require skips that.
// Values come from here; types are still imported from the package with `import type`.
import { createRequire } from 'node:module';

export const duckdb = createRequire(import.meta.url)('@duckdb/node-api') as typeof import('@duckdb/node-api');
