// gexwh chart through the CLI, run in this process, on a warehouse synced (and captured) from the
// emulator in process.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Resvg } from '@resvg/resvg-js';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli.js';
import { startBench, type Bench } from '../helpers/sync.js';

let bench: Bench;
let db: string[];
const BTC = ['--exchange', 'deribit', '--symbol', 'BTC'];

beforeAll(async () => {
  bench = await startBench();
  await bench.sync({ exchange: 'deribit', symbol: 'BTC' });
  db = ['--db', bench.dbPath];
  const env = { GEX_BASE_URL: bench.emulator.baseUrl, GEX_API_KEY: bench.emulator.keys.pro };
  const capture = await runCliInProcess(['capture', ...db, '--archive', bench.archive, '--symbol', 'BTC'], { env });
  expect(capture.code, capture.stderr).toBe(0);
}, 120_000);
afterAll(() => bench.close());

describe('gexwh chart', () => {
  it('profile to PNG: the asked size, the same bytes on a second run', async () => {
    const out = join(bench.dir, 'p.png');
    const args = ['chart', 'profile', ...db, ...BTC, '--out', out, '--width', '900', '--height', '500'];
    const run = await runCliInProcess([...args, '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ kind: 'profile', format: 'png', width: 900, height: 500 });
    const first = readFileSync(out);
    const image = PNG.sync.read(first);
    expect([image.width, image.height]).toEqual([900, 500]);
    expect((await runCliInProcess(args)).code).toBe(0);
    expect(readFileSync(out).equals(first)).toBe(true);
  }, 60_000);

  it('--at between two captures draws the earlier one', async () => {
    const out = join(bench.dir, 'at.svg');
    const run = await runCliInProcess(['chart', 'profile', ...db, ...BTC, '--at', '2026-03-10T12:14:59Z', '--out', out, '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).shows).toMatch(/^capture 2026-03-10T12:00:00Z/);
    expect(readFileSync(out, 'utf8')).toContain('capture 2026-03-10 12:00 UTC (as of 2026-03-10 12:14 UTC)');
  }, 60_000);

  it('oi, levels, walls, netgex and term to well-formed SVG, the new kinds stable across runs', async () => {
    const svgs = new Map<string, string>();
    for (const [kind, pair] of [
      ['oi', BTC],
      ['levels', BTC],
      ['walls', BTC],
      ['netgex', BTC],
      ['term', ['--exchange', 'combined', '--symbol', 'BTC']],
    ] as const) {
      const out = join(bench.dir, `${kind}.svg`);
      const run = await runCliInProcess(['chart', kind, ...db, ...pair, '--out', out, '--theme', 'dark']);
      expect(run.code, run.stderr).toBe(0);
      const svg = readFileSync(out, 'utf8');
      expect(new Resvg(svg, { font: { loadSystemFonts: false } }).width).toBe(1000);
      svgs.set(kind, svg);
    }
    // Byte stability of every kind is the golden and render tests' job; here the new kinds, through the CLI.
    for (const kind of ['oi', 'netgex']) {
      const out = join(bench.dir, `${kind}.svg`);
      expect((await runCliInProcess(['chart', kind, ...db, ...BTC, '--out', out, '--theme', 'dark'])).code).toBe(0);
      expect(readFileSync(out, 'utf8')).toBe(svgs.get(kind));
    }
  }, 150_000);

  it('bad input is exit 2 with what is allowed, and writes nothing', async () => {
    const out = join(bench.dir, 'bad', 'x.png');
    const cases: [string[], RegExp][] = [
      [['chart', 'pie', ...db, ...BTC, '--out', out], /unknown chart kind "pie"; allowed: profile, oi, levels, walls, netgex, term/],
      [['chart', 'profile', ...db, ...BTC, '--out', out, '--at', 'yesterday'], /--at: "yesterday" is not an ISO 8601 instant/],
      [['chart', 'profile', ...db, '--exchange', 'deribit', '--symbol', 'BTX', '--out', out], /BTX: no history in the warehouse .*did you mean BTC\?/],
      [['chart', 'profile', ...db, ...BTC, '--out', join(bench.dir, 'bad', 'x.jpg')], /--out .*x.jpg: the extension says the format; allowed: .svg, .png/],
      [['chart', 'profile', ...db, ...BTC, '--out', out, '--at', '2020-01-01T00:00:00Z'], /no strikes capture of deribit BTC at or before 2020-01-01/],
      [['chart', 'term', ...db, ...BTC, '--out', out], /BTC's term structure is captured as --exchange combined/],
      [['chart', 'profile', '--db', join(bench.dir, 'none.duckdb'), ...BTC, '--out', out], /no warehouse at/],
    ];
    for (const [args, message] of cases) {
      const run = await runCliInProcess(args);
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(2);
      expect(run.stderr).toMatch(message);
    }
    expect(existsSync(join(bench.dir, 'bad')) ? readdirSync(join(bench.dir, 'bad')) : []).toEqual([]);
    expect(existsSync(join(bench.dir, 'none.duckdb'))).toBe(false);
  }, 90_000);
});
