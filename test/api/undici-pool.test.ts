// The API client loads undici's pool alone, not the package's index (fetch, WebSocket, cache stores,
// mocks: ~110 files every command that talks to the API would read and compile at start).
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Pool as FullPool } from 'undici';
import { Pool } from '../../src/api/undici-pool.js';

const CLIENT = fileURLToPath(new URL('../../dist/src/api/client.js', import.meta.url));

/** The files of undici a fresh Node holds once the built client module is loaded. */
function undiciFilesLoadedBy(module: string): string[] {
  const script = `import { createRequire } from 'node:module';
await import(${JSON.stringify(module)});
const cache = createRequire(import.meta.url).cache;
process.stdout.write(JSON.stringify(Object.keys(cache).filter((f) => f.includes('/node_modules/undici/'))));`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as string[];
}

describe('undici-pool', () => {
  it("is undici's own Pool, with the request API the package's index sets on it", () => {
    expect(Pool).toBe(FullPool);
    expect(typeof Pool.prototype.request).toBe('function');
  });

  it("the client loads the pool's files, not undici's index and the rest of the package", () => {
    const files = undiciFilesLoadedBy(CLIENT);
    expect(files.length).toBeGreaterThan(0);
    expect(files.filter((f) => f.endsWith('/node_modules/undici/index.js'))).toEqual([]);
    expect(files.filter((f) => /\/lib\/(web|mock|cache)\//.test(f))).toEqual([]);
    expect(files.length).toBeLessThan(45);
  });
});
