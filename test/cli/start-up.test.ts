// What a command loads before it knows it has work: --help, --version and a bad flag must not pay
// for DuckDB's native binding, the HTTP client or the chart renderer (each loads inside the action
// that needs it), so a typo answers at once. The CLI as tsc built it (one file per module; the
// bundle's own start is test/cli/bundle.test.ts's) runs with a hook listing every npm package it loads.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { openWarehouse } from '../../src/warehouse/index.js';
import { runCli, UNBUNDLED_CLI_PATH } from '../helpers/cli.js';

const HOOK = fileURLToPath(new URL('../helpers/log-packages.mjs', import.meta.url));
const HEAVY = ['@duckdb/node-api', '@duckdb/node-bindings', 'undici', 'echarts', '@resvg/resvg-js', 'p-limit'];

async function packagesLoaded(args: string[]) {
  const result = await runCli(args, { cli: UNBUNDLED_CLI_PATH, env: { NODE_OPTIONS: `--import "${HOOK}"` } });
  const packages = result.stderr
    .split('\n')
    .filter((line) => line.startsWith('package-loaded: '))
    .map((line) => line.slice('package-loaded: '.length));
  return { ...result, packages };
}

const dir = mkdtempSync(join(tmpdir(), 'gexwh-start-up-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('start-up', () => {
  it('the hook sees packages (the check can fail): a query of the warehouse loads DuckDB', async () => {
    const db = join(dir, 'gex.duckdb');
    (await openWarehouse(db)).close();
    const { code, packages } = await packagesLoaded(['query', '--db', db, 'SELECT 1']);
    expect(code).toBe(0);
    expect(packages).toContain('commander');
    expect(packages).toContain('@duckdb/node-api');
  });

  it.each([
    ['--version', ['--version'], 0],
    ['sync --help', ['sync', '--help'], 0],
    ['sync with a bad --since', ['sync', '--since', 'nope'], 2],
    ['export with a bad --format', ['export', '--format', 'nope', '--out', 'x'], 2],
    ['chart with a bad kind', ['chart', 'nope'], 2],
  ])('%s loads none of DuckDB, undici, ECharts, resvg or p-limit', async (_name, args, code) => {
    const result = await packagesLoaded(args);
    expect(result.code).toBe(code);
    expect(result.packages).toContain('commander');
    expect(result.packages.filter((name) => HEAVY.includes(name))).toEqual([]);
  });
});
