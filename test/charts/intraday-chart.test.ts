// `gexwh chart intraday`, --tz for chart, report and query, and the report's desk tables (the latest
// levels with both walls' definitions, what changed since the last close), through the CLI on a
// demo-like warehouse: a completed session held from files (its last capture the close) and today's
// session from api fills (every capture intraday). The regime shading is checked by pixel against
// the regimes SQL answers; the numbers of the report against hand SQL. Every run is the CLI's code in
// this process (the cases check exit codes, output and the files written).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWarehouse } from '../../src/warehouse/index.js';
import { runCliInProcess } from '../helpers/cli.js';
import { loadDemoHistory } from '../helpers/demo-warehouse.js';

let dir: string;
let db: string;
const BTC = ['--exchange', 'deribit', '--symbol', 'BTC'];
type Row = Record<string, unknown>;
let closedRegimes: (string | null)[];
let todayCount: number;
let changes: Row;

async function rows(conn: DuckDBConnection, sql: string): Promise<Row[]> {
  return (await conn.runAndReadAll(sql)).getRowObjectsJson() as Row[];
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gexwh-intraday-'));
  db = join(dir, 'wh.duckdb');
  const wh = await openWarehouse(db);
  try {
    await loadDemoHistory(wh, dir, { from: '2026-03-12', strikes: 12 });
    closedRegimes = (
      await rows(
        wh.connection,
        `SELECT regime FROM levels WHERE symbol = 'BTC' AND expiration = 'TOTAL' AND session_date = DATE '2026-03-15' ORDER BY timestamp_utc`,
      )
    ).map((r) => r.regime as string | null);
    todayCount = (
      await rows(wh.connection, `SELECT count(*)::INT AS n FROM levels WHERE symbol = 'BTC' AND expiration = 'TOTAL' AND session_date = DATE '2026-03-16'`)
    )[0]!.n as number;
    // What changed by hand: today's last capture against the close of 2026-03-15, from the levels table.
    changes = (
      await rows(
        wh.connection,
        `SELECT n.spot AS spot_now, c.spot AS spot_close, n.flip AS flip_now, c.flip AS flip_close, n.regime AS regime_now, c.regime AS regime_close,
                n.p1_strike AS p1_now, c.p1_strike AS p1_close
           FROM (SELECT * FROM levels WHERE symbol = 'BTC' AND exchange = 'deribit' AND expiration = 'TOTAL' ORDER BY timestamp_utc DESC LIMIT 1) n,
                (SELECT * FROM levels WHERE symbol = 'BTC' AND exchange = 'deribit' AND expiration = 'TOTAL' AND type = 'close' ORDER BY timestamp_utc DESC LIMIT 1) c`,
      )
    )[0]!;
    await wh.connection.run('CHECKPOINT');
  } finally {
    wh.close();
  }
}, 180_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('gexwh chart intraday', () => {
  it('a closed session: every capture, the close filled and named, the others hollow "intraday"; the regime shaded per capture by pixel', async () => {
    const png = join(dir, 'closed.png');
    const run = await runCliInProcess(['chart', 'intraday', '--db', db, ...BTC, '--date', '2026-03-15', '--out', png, '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).shows).toBe('session 2026-03-15, 96 captures');
    const svgOut = join(dir, 'closed.svg');
    expect((await runCliInProcess(['chart', 'intraday', '--db', db, ...BTC, '--date', '2026-03-15', '--out', svgOut])).code).toBe(0);
    const svg = readFileSync(svgOut, 'utf8');
    expect(svg).toContain('session 2026-03-15');
    expect(svg).toContain('96 captures, 00:00 UTC to 23:45 UTC; the close at 23:45 UTC');
    for (const name of ['spot (intraday capture)', 'spot (close)', 'API call wall (p1)', 'nearest call wall (±10%)', 'positive regime'])
      expect(svg).toContain(name);
    // The band behind each capture's slot is its regime's colour: sampled low in the plot, where no line runs.
    const image = PNG.sync.read(readFileSync(png));
    const slot = (928 - 72) / closedRegimes.length;
    const colourAt = (x: number, y: number) => {
      const i = (image.width * y + x) * 4;
      return [image.data[i]!, image.data[i + 1]!, image.data[i + 2]!];
    };
    let matched = 0;
    closedRegimes.forEach((regime, k) => {
      const [r, g, b] = colourAt(Math.round(72 + slot * (k + 0.5)), 488);
      const seen = g! > r! + 4 && g! > b! ? 'positive' : r! > g! + 4 && r! > b! ? 'negative' : null;
      if (seen === regime) matched += 1;
    });
    expect(new Set(closedRegimes).size).toBeGreaterThan(0);
    expect(matched).toBeGreaterThanOrEqual(closedRegimes.length - 2);
  }, 60_000);

  it("the legend's entries stand apart: no text runs into the next entry's marker, drawn in the chart font", async () => {
    for (const [pair, date] of [
      [BTC, '2026-03-15'],
      [['--exchange', 'tradfi', '--symbol', 'SPY'], '2026-03-13'],
    ] as const) {
      const [svgOut, pngOut] = [join(dir, 'legend.svg'), join(dir, 'legend.png')];
      for (const out of [svgOut, pngOut])
        expect((await runCliInProcess(['chart', 'intraday', '--db', db, ...pair, '--date', date, '--out', out])).code).toBe(0);
      // Each entry is drawn from its own origin: the marker from x, the text 30 px on.
      const entries = [...readFileSync(svgOut, 'utf8').matchAll(/<text [^>]*x="30" y="7" transform="translate\(([\d.]+) ([\d.]+)\)"[^>]*>([^<]*)</g)].map(
        (m) => ({
          x: Number(m[1]),
          y: Number(m[2]),
          name: m[3]!,
        }),
      );
      expect(entries.map((e) => e.name)).toContain('spot (intraday capture)');
      const image = PNG.sync.read(readFileSync(pngOut));
      const pixel = (x: number, y: number) => image.data.readUInt32BE((image.width * y + x) * 4);
      const background = pixel(2, 2);
      for (const [i, entry] of entries.entries()) {
        const next = entries[i + 1];
        if (next === undefined || next.y !== entry.y) continue;
        // The 3 px columns before the next entry's marker, over the entry's height, are background.
        const inked: string[] = [];
        for (let x = Math.floor(next.x) - 3; x < Math.floor(next.x); x++)
          for (let y = Math.round(entry.y); y < Math.round(entry.y) + 14; y++) if (pixel(x, y) !== background) inked.push(`${x},${y}`);
        expect(inked, `${date}: "${entry.name}" runs into "${next.name}"`).toEqual([]);
      }
    }
  });

  it("today's session from api fills: all intraday, no close named, and no nearest walls without strikes", async () => {
    const out = join(dir, 'today.svg');
    const run = await runCliInProcess(['chart', 'intraday', '--db', db, ...BTC, '--out', out, '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).shows).toBe(`session 2026-03-16, ${todayCount} captures`);
    const svg = readFileSync(out, 'utf8');
    expect(svg).toContain('all intraday: no close held for this session');
    expect(svg).toContain('nearest walls: no strikes held');
    expect(svg).not.toContain('spot (close)');
  });

  it('--tz shows the capture times in the zone; --date outside the sessions held and --date on another kind are exit 2', async () => {
    const out = join(dir, 'ny.svg');
    const run = await runCliInProcess(['chart', 'intraday', '--db', db, ...BTC, '--date', '2026-03-15', '--tz', 'America/New_York', '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toContain('96 captures, 20:00 EDT to 19:45 EDT; the close at 19:45 EDT');
    const missing = await runCliInProcess(['chart', 'intraday', '--db', db, ...BTC, '--date', '2025-01-01', '--out', out]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no capture of deribit BTC in session 2025-01-01; the sessions held run from 2026-03-12 to 2026-03-16');
    const other = await runCliInProcess(['chart', 'levels', '--db', db, ...BTC, '--date', '2026-03-15', '--out', out]);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('--date is for chart intraday');
  });

  it('--date on a day the NYSE does not trade says why a TradFi pair has no session there', async () => {
    const out = join(dir, 'closed-day.svg');
    const spy = ['--exchange', 'tradfi', '--symbol', 'SPY', '--out', out];
    const weekend = await runCliInProcess(['chart', 'intraday', '--db', db, ...spy, '--date', '2026-03-14']);
    expect(weekend.code).toBe(2);
    expect(weekend.stderr).toContain('no capture of tradfi SPY in session 2026-03-14 (a weekend: no NYSE session); the sessions held run from 2026-03-12');
    const holiday = await runCliInProcess(['chart', 'intraday', '--db', db, ...spy, '--date', '2026-01-19']);
    expect(holiday.code).toBe(2);
    expect(holiday.stderr).toContain('in session 2026-01-19 (an NYSE holiday, Martin Luther King Jr. Day: no session)');
    const crypto = await runCliInProcess(['chart', 'intraday', '--db', db, ...BTC, '--date', '2026-01-19', '--out', out]);
    expect(crypto.stderr).toContain('no capture of deribit BTC in session 2026-01-19; the sessions');
  });
});

describe('--tz for chart, report and query', () => {
  it('an unknown zone is exit 2 naming it, the closest zones and how to list them all', async () => {
    for (const args of [
      ['chart', 'intraday', ...BTC, '--out', join(dir, 'x.svg')],
      ['report', '--out', join(dir, 'x.html')],
      ['query', 'SELECT 1'],
    ]) {
      const run = await runCliInProcess([...args, '--db', db, '--tz', 'Europe/Berln']);
      expect(run.code, args[0]).toBe(2);
      expect(run.stderr).toContain('"Europe/Berln" is not a time zone; did you mean Europe/Berlin');
      expect(run.stderr).toContain(`Intl.supportedValuesOf('timeZone')`);
    }
  });

  it('query: the table shows TIMESTAMPTZ in the zone; csv stays UTC', async () => {
    const sql = `SELECT TIMESTAMPTZ '2026-03-15T23:45:00Z' AS ts, TIMESTAMP '2026-03-15 23:45:00' AS naive`;
    const table = await runCliInProcess(['query', sql, '--db', db, '--tz', 'America/New_York']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain('2026-03-15 19:45:00 EDT');
    expect(table.stdout).toContain('2026-03-15 23:45:00');
    const utc = await runCliInProcess(['query', sql, '--db', db]);
    expect(utc.stdout).toContain('2026-03-15 23:45:00Z');
    const csv = await runCliInProcess(['query', sql, '--db', db, '--tz', 'America/New_York', '--format', 'csv']);
    expect(csv.stdout).toContain('2026-03-15T23:45:00.000Z');
  });
});

describe("the report's desk tables", () => {
  let html: string;
  beforeAll(async () => {
    const out = join(dir, 'r.html');
    const run = await runCliInProcess(['report', '--db', db, '--out', out, '--symbol', 'BTC', '--sessions', '3', '--tz', 'Asia/Tokyo']);
    expect(run.code, run.stderr).toBe(0);
    html = readFileSync(out, 'utf8');
  }, 120_000);

  it('the latest levels show the API walls and the nearest walls under names that say their rules', () => {
    const latest = /<table class="latest">.*?<\/table>/s.exec(html)![0];
    expect(latest).toContain('<th>API call wall (p1)</th><th>API put wall (n1)</th><th>nearest call wall (±10%)</th><th>nearest put wall (±10%)</th>');
    expect(latest).toContain('2026-03-16 23:00 GMT+9');
  });

  it('what changed since the last close: each value then and now and its change, equal to hand SQL', () => {
    const block = /<h3>What changed since the last close<\/h3>.*?<\/table>/s.exec(html)![0];
    const cells = (name: string) => {
      const row = new RegExp(`<tr><td>${name.replace(/[()]/g, '\\$&')}</td>(.*?)</tr>`).exec(block)![1]!;
      return [...row.matchAll(/<td>(.*?)<\/td>/g)].map((m) => m[1]);
    };
    const fmt = (v: unknown) => Number(v).toLocaleString('en-US', { maximumFractionDigits: 2 });
    const signedDelta = (a: unknown, b: unknown) => {
      const d = Number(b) - Number(a);
      return `${d >= 0 ? '+' : '-'}${fmt(Math.abs(d))}`;
    };
    expect(cells('spot').slice(0, 3)).toEqual([fmt(changes.spot_close), fmt(changes.spot_now), signedDelta(changes.spot_close, changes.spot_now)]);
    expect(cells('flip').slice(0, 3)).toEqual([fmt(changes.flip_close), fmt(changes.flip_now), signedDelta(changes.flip_close, changes.flip_now)]);
    expect(cells('API call wall (p1)').slice(0, 2)).toEqual([fmt(changes.p1_close), fmt(changes.p1_now)]);
    const regime = cells('regime');
    expect(regime.slice(0, 2)).toEqual([changes.regime_close, changes.regime_now]);
    expect(regime[2]).toBe(changes.regime_close === changes.regime_now ? 'unchanged' : `${String(changes.regime_close)} → ${String(changes.regime_now)}`);
    expect(block).toContain('from the close of 2026-03-15');
  });

  it("the profile slider has one frame per close with strikes: today's fills (no strikes) are no frame, never the last close's strikes under today's name", () => {
    const data = JSON.parse(/<script type="application\/json" id="gexwh-data">(.*?)<\/script>/s.exec(html)![1]!) as {
      charts: Record<string, { labels: string[] }>;
    };
    const labels = data.charts['p0-profile']!.labels;
    expect(labels.at(-1)).toBe('capture 2026-03-16 08:45 GMT+9 (close of session 2026-03-15)');
    expect(labels.join('\n')).not.toContain('2026-03-16,');
    expect(labels.join('\n')).not.toContain('not a close');
    expect(new Set(labels).size).toBe(labels.length);
  });
});
