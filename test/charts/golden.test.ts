// Tests that look: every chart kind drawn to PNG from a fixed emulator warehouse (seed 11, clock
// 2026-03-16 14:07 UTC, the demo's pairs) and compared with its golden picture in test/charts/golden/
// by pixelmatch, with a small tolerance for anti-aliasing on another machine. A failure leaves the
// picture drawn and the difference (in red) in test-artifacts/golden/ to look at. After a change that
// is meant to change the pictures: `npm run test:golden:update`, look at each, commit them.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildChart, encodeChart, type ChartRequest } from '../../src/charts/draw.js';
import { openWarehouse, IN_MEMORY, type Warehouse } from '../../src/warehouse/index.js';
import { loadDemoHistory } from '../helpers/demo-warehouse.js';

const GOLDEN = join(import.meta.dirname, 'golden');
const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts', 'golden');
const UPDATE = process.env.GEXWH_UPDATE_GOLDEN === '1';
/** pixelmatch's per-pixel colour threshold (low: the regime bands are light tints), and the share of pixels allowed to differ. */
const THRESHOLD = 0.03;
const TOLERANCE = 0.001;

const LOOK = { width: 1000, height: 560, theme: 'light' as const };
const BTC = { exchange: 'deribit', symbol: 'BTC' };
const SPY = { exchange: 'tradfi', symbol: 'SPY' };
const BASE: Omit<ChartRequest, 'kind' | 'pair'> = { moment: {}, expiration: 'TOTAL', rangePct: 10, net: false, sessions: { sessions: 20 }, look: LOOK };

const PICTURES: [string, Partial<ChartRequest> & Pick<ChartRequest, 'kind' | 'pair'>][] = [
  ['profile-btc', { kind: 'profile', pair: BTC }],
  // A narrow range leaves the walls past the bars: they are drawn at the edges with arrows.
  ['profile-btc-narrow-net', { kind: 'profile', pair: BTC, rangePct: 3, net: true, moment: { at: new Date('2026-03-12T12:00:00Z') } }],
  ['profile-spy', { kind: 'profile', pair: SPY }],
  ['oi-btc', { kind: 'oi', pair: BTC }],
  ['levels-btc', { kind: 'levels', pair: BTC }],
  ['levels-spy', { kind: 'levels', pair: SPY }],
  ['walls-btc', { kind: 'walls', pair: BTC }],
  ['netgex-btc', { kind: 'netgex', pair: BTC }],
  ['term-btc', { kind: 'term', pair: BTC }],
  ['levels-spy-dark', { kind: 'levels', pair: SPY, look: { ...LOOK, theme: 'dark' } }],
];

let wh: Warehouse;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gexwh-golden-'));
  wh = await openWarehouse(IN_MEMORY);
  await loadDemoHistory(wh, dir, { from: '2026-03-02', strikes: 24 });
}, 120_000);
afterAll(() => {
  wh?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('golden pictures', () => {
  it.each(PICTURES)('%s', async (name, asked) => {
    const request = { ...BASE, ...asked } as ChartRequest;
    const chart = await buildChart(wh.connection, request);
    const drawn = await encodeChart(chart.option, request.look, 'png');
    const file = join(GOLDEN, `${name}.png`);
    if (UPDATE) {
      writeFileSync(file, drawn);
      return;
    }
    expect(existsSync(file), `${file} is missing: npm run test:golden:update draws it`).toBe(true);
    const golden = PNG.sync.read(readFileSync(file));
    const actual = PNG.sync.read(drawn);
    expect([actual.width, actual.height]).toEqual([golden.width, golden.height]);
    const diff = new PNG({ width: golden.width, height: golden.height });
    const differing = pixelmatch(golden.data, actual.data, diff.data, golden.width, golden.height, { threshold: THRESHOLD });
    if (differing > golden.width * golden.height * TOLERANCE) {
      mkdirSync(ARTIFACTS, { recursive: true });
      writeFileSync(join(ARTIFACTS, `${name}.png`), drawn);
      writeFileSync(join(ARTIFACTS, `${name}.diff.png`), PNG.sync.write(diff));
    }
    expect(differing, `${name}: ${differing} pixels differ from the golden picture (see test-artifacts/golden/${name}.diff.png)`).toBeLessThanOrEqual(
      golden.width * golden.height * TOLERANCE,
    );
  });
});
