// Property: whatever layout a server writes (any subset of the known columns holding the grain, in any
// order, unknown extras, CRLF, a BOM, quoted numbers, exponent form, empty columns), every file loads
// and every column it carries equals the emulator's truth (the design file's values); a column it
// lacks is NULL, except what the manifest says (identity) and `type`, derived.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createMarketModel,
  extraValue,
  FILE_HEADERS,
  LEVELS_FIELD_NAMES,
  type CustomLayout,
  type FileKind,
  type MarketOptions,
} from '../../emulator/market/index.js';
import { loadFiles, type LoadInput } from '../../src/warehouse/loader.js';
import { query, withWarehouse } from './fixtures.js';

const KINDS = ['levels', 'strikes_total', 'strikes_by_expiry'] as const;
const MARKET: MarketOptions = { seed: 7, expirations: 1, strikes: 3, historyStart: '2026-03-01', symbols: ['BTC'] };
const SESSION = { exchange: 'deribit', symbol: 'BTC', sessionDate: '2026-03-02' };
const REQUIRED: Record<FileKind, readonly string[]> = {
  levels: ['timestamp_utc', 'expiration'],
  strikes_total: ['timestamp_utc', 'strike', 'strike_call_gex', 'strike_put_gex'],
  strikes_by_expiry: ['timestamp_utc', 'expiration', 'strike', 'strike_call_gex', 'strike_put_gex'],
};
const GRAIN: Record<FileKind, readonly string[]> = {
  levels: ['timestamp_utc', 'expiration'],
  strikes_total: ['timestamp_utc', 'strike'],
  strikes_by_expiry: ['timestamp_utc', 'expiration', 'strike'],
};
const EXTRAS = ['x_gauge', 'text_tag', 'zone_set'];
const IDENTITY = new Set(['exchange', 'symbol', 'session_date', 'schema_version']);
/** strikes_total repeats the snapshot fields levels holds: not stored there. */
const NOT_STORED_IN_TOTAL = new Set<string>(['type', 'oi_date', ...LEVELS_FIELD_NAMES]);

/** File column → table column, and how to read it back comparable with the CSV text. */
function tableColumn(kind: FileKind, name: string): string {
  if (name.startsWith('strike_')) return name.slice('strike_'.length);
  if (kind === 'strikes_by_expiry' && name === 'expiration') return 'expiration_date';
  return name;
}

const DATE_COLUMNS = new Set(['session_date', 'oi_date', 'expiration_date']);
function selectOf(kind: FileKind, column: string): string {
  if (column === 'timestamp_utc') return `strftime(timestamp_utc, '%Y-%m-%dT%H:%M:%SZ')`;
  if (DATE_COLUMNS.has(column)) return `${column}::VARCHAR`;
  return kind === 'levels' && column === 'expiration' ? 'expiration' : `"${column}"`;
}

type Truth = Array<Record<string, string>>;

function truthOf(kind: FileKind): Truth {
  const file = createMarketModel(MARKET).dailyFile(SESSION.exchange, SESSION.symbol, SESSION.sessionDate, kind, 0);
  const [header, ...lines] = gunzipSync(file.bytes).toString('utf8').trimEnd().split('\n');
  const names = (header ?? '').split(',');
  return lines.map((line) => Object.fromEntries(line.split(',').map((value, i) => [names[i]!, value])));
}

const TRUTH = Object.fromEntries(KINDS.map((kind) => [kind, truthOf(kind)])) as Record<FileKind, Truth>;

/** A random header for one kind: the required names, any other design names and extras, in any order. */
function columnsArbitrary(kind: FileKind): fc.Arbitrary<string[]> {
  const names = [...FILE_HEADERS[kind], ...EXTRAS];
  return fc.array(fc.tuple(fc.boolean(), fc.double({ min: 0, max: 1, noNaN: true })), { minLength: names.length, maxLength: names.length }).map((marks) =>
    names
      .map((name, i) => ({ name, keep: REQUIRED[kind].includes(name) || marks[i]![0], rank: marks[i]![1] }))
      .filter((entry) => entry.keep)
      .sort((a, b) => a.rank - b.rank)
      .map((entry) => entry.name),
  );
}

const layoutArbitrary: fc.Arbitrary<CustomLayout> = fc
  .record({
    levels: columnsArbitrary('levels'),
    strikes_total: columnsArbitrary('strikes_total'),
    strikes_by_expiry: columnsArbitrary('strikes_by_expiry'),
    crlf: fc.boolean(),
    bom: fc.boolean(),
    quoteNumbers: fc.boolean(),
    exponent: fc.boolean(),
    blank: fc.subarray(['spot', 'flip', 'dte', 'oi_date', 'strike_net_gex', 'strike_put_oi', 'session_date', 'schema_version', 'symbol']),
  })
  .map(({ levels, strikes_total, strikes_by_expiry, ...rest }) => ({ columns: { levels, strikes_total, strikes_by_expiry }, ...rest }));

function writeFiles(dir: string, layout: CustomLayout): LoadInput[] {
  const model = createMarketModel({ ...MARKET, layout });
  return KINDS.map((kind) => {
    const file = model.dailyFile(SESSION.exchange, SESSION.symbol, SESSION.sessionDate, kind, 0);
    const path = join(dir, `${kind}.csv.gz`);
    writeFileSync(path, file.bytes);
    const sha256 = createHash('sha256').update(file.bytes).digest('hex');
    return {
      ...SESSION,
      file: kind,
      path,
      sha256,
      bytes: file.bytes.length,
      rows: file.rows,
      archivePath: `deribit/BTC/2026-03-02_${kind}.csv.gz`,
      downloadedAt: new Date(),
      schemaVersion: 1,
    };
  });
}

/** What the warehouse must hold in `column` for the truth row `row` (its index `i` in the file). */
function expected(kind: FileKind, name: string, row: Record<string, string>, i: number, layout: CustomLayout): string | number | null {
  const present = layout.columns[kind].includes(name);
  if (EXTRAS.includes(name)) return present ? extraValue(name, i) : null;
  if (IDENTITY.has(name)) return name === 'schema_version' ? 1 : (row[name] ?? null);
  // The emulator's type is the derived rule: the session's last capture is its close.
  if (name === 'type') return row.type ?? null;
  const value = present && !layout.blank?.includes(name) ? (row[name] ?? '') : '';
  if (value === '') return null;
  return ['timestamp_utc', 'oi_date', 'expiration', 'regime'].includes(name) ? value : Number(value);
}

async function checkKind(wh: Parameters<Parameters<typeof withWarehouse>[0]>[0], kind: FileKind, layout: CustomLayout): Promise<void> {
  const truth = TRUTH[kind];
  const stored = FILE_HEADERS[kind].filter((name: string) => !(kind === 'strikes_total' && NOT_STORED_IN_TOTAL.has(name)));
  const names = [...stored, ...EXTRAS.filter((name) => layout.columns[kind].includes(name))];
  const grain = GRAIN[kind].map((name) => tableColumn(kind, name));
  const selects = names.map((name) => `${selectOf(kind, tableColumn(kind, name))} AS "${name}"`);
  const rows = await query(wh, `SELECT ${selects.join(', ')} FROM ${kind} ORDER BY ${grain.join(', ')}`);
  const key = (row: Record<string, unknown>) => GRAIN[kind].map((name) => (name === 'strike' ? Number(row[name]) : row[name])).join('|');
  const want = new Map(truth.map((row, i) => [key(row), { row, i }]));
  expect(rows).toHaveLength(truth.length);
  // One comparison per kind: the rows as loaded against the rows the truth says.
  const wanted = rows.map((got) => {
    const match = want.get(key(got));
    return Object.fromEntries(names.map((name) => [name, match ? expected(kind, name, match.row, match.i, layout) : 'no such row in the truth']));
  });
  expect(rows).toEqual(wanted);
}

describe('schema on read over random layouts (property)', () => {
  it('every file loads and every present column equals the emulator truth', async () => {
    // One warehouse for every run: each load replaces the session, and the columns an earlier layout
    // added stay (NULL where this layout lacks them), as in a warehouse that meets many layouts.
    await withWarehouse(async (wh, dir) => {
      let run = 0;
      await fc.assert(
        fc.asyncProperty(layoutArbitrary, async (layout) => {
          const folder = join(dir, `run${++run}`);
          mkdirSync(folder);
          const report = await loadFiles(wh.connection, writeFiles(folder, layout), { reload: true });
          expect(report.failed).toEqual([]);
          expect(report.loaded).toHaveLength(3);
          for (const kind of KINDS) await checkKind(wh, kind, layout);
        }),
        { numRuns: 6, endOnFailure: true },
      );
    });
  }, 120_000);
});
