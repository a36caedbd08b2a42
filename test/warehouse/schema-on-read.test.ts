// Schema on read: only the grain (and the strikes files' GEX) is required, identity columns must agree
// with the manifest, unknown columns are kept and typed from their values, layouts are recorded, and
// the freeze contract holds a new layout instead of loading it.
import { describe, expect, it } from 'vitest';
import { loadFiles } from '../../src/warehouse/loader.js';
import { listLedger } from '../../src/warehouse/ledger.js';
import { BTC, HEADERS, levelsRows, query, rowsFor, withWarehouse, writeFixture, type Market, type Row } from './fixtures.js';

const ETH: Market = { exchange: 'deribit', symbol: 'ETH', sessionDate: '2026-11-21' };

const LEAN = {
  levels: ['timestamp_utc', 'expiration', 'spot', 'net_gex'],
  strikes_total: ['strike', 'timestamp_utc', 'strike_put_gex', 'strike_call_gex'],
  strikes_by_expiry: ['expiration', 'timestamp_utc', 'strike', 'strike_call_gex', 'strike_put_gex'],
} as const;

describe('schema on read: lean files', () => {
  it('a file with only the grain and a few fields loads; absent columns are NULL; type is derived; schema_version from the manifest', async () => {
    await withWarehouse(async (wh, dir) => {
      const inputs = (['levels', 'strikes_total', 'strikes_by_expiry'] as const).map((kind) => ({
        ...writeFixture(dir, kind, BTC, { header: [...LEAN[kind]] }),
        schemaVersion: 1,
      }));
      const report = await loadFiles(wh.connection, inputs);
      expect(report.failed).toEqual([]);
      expect(report.loaded).toHaveLength(3);
      const levels = await query(
        wh,
        `SELECT timestamp_utc::VARCHAR AS ts, expiration, spot, flip, dte, oi_date, type, regime, schema_version, source
           FROM levels ORDER BY timestamp_utc, expiration`,
      );
      expect(levels).toHaveLength(4);
      expect(levels[0]).toEqual({
        ts: '2026-11-20 14:00:00+00',
        expiration: '2026-12-25',
        spot: 0.5,
        flip: null,
        dte: null,
        oi_date: null,
        type: 'intraday',
        regime: null,
        schema_version: 1,
        source: 'file',
      });
      // The last capture of a completed session is its close.
      expect(levels.map((row) => row.type)).toEqual(['intraday', 'intraday', 'close', 'close']);
      const strikes = await query(wh, 'SELECT strike, call_gex, put_gex, net_gex, call_oi, schema_version FROM strikes_total ORDER BY strike');
      expect(strikes[0]).toEqual({ strike: 97500, call_gex: 1_500_000, put_gex: 50, net_gex: null, call_oi: null, schema_version: 1 });
      const byExpiry = await query(wh, 'SELECT count(*)::INTEGER AS n, count(net_gex)::INTEGER AS net FROM strikes_by_expiry');
      expect(byExpiry).toEqual([{ n: 4, net: 0 }]);
      expect((await listLedger(wh.connection)).map((row) => row.status)).toEqual(['loaded', 'loaded', 'loaded']);
    });
  });

  it('every view and macro answers over lean files, with NULLs', async () => {
    await withWarehouse(async (wh, dir) => {
      const inputs = (['levels', 'strikes_total', 'strikes_by_expiry'] as const).map((kind) => writeFixture(dir, kind, BTC, { header: [...LEAN[kind]] }));
      expect((await loadFiles(wh.connection, inputs)).failed).toEqual([]);
      expect(await query(wh, 'SELECT count(*)::INTEGER AS n, count(flip)::INTEGER AS flips FROM levels_total')).toEqual([{ n: 2, flips: 0 }]);
      expect(await query(wh, 'SELECT timestamp_utc::VARCHAR AS ts, type FROM levels_close')).toEqual([{ ts: '2026-11-20 14:15:00+00', type: 'close' }]);
      expect(await query(wh, 'SELECT count(*)::INTEGER AS n, count(regime)::INTEGER AS regimes FROM strikes')).toEqual([{ n: 3, regimes: 0 }]);
      expect(await query(wh, 'SELECT count(*)::INTEGER AS n, count(max_pain)::INTEGER AS mp FROM strikes_expiry')).toEqual([{ n: 4, mp: 0 }]);
      const asof = await query(wh, `SELECT spot, flip FROM levels_asof('bybit', 'BTC', '2026-11-20T15:00:00Z')`);
      expect(asof).toEqual([{ spot: 1000.5, flip: null }]);
    });
  });

  it('a strikes file without a GEX column fails, named, and is recorded failed_load (kept archived, reloaded for no credit)', async () => {
    await withWarehouse(async (wh, dir) => {
      const input = writeFixture(dir, 'strikes_by_expiry', BTC, { header: ['timestamp_utc', 'expiration', 'strike', 'strike_put_gex'] });
      const report = await loadFiles(wh.connection, [input]);
      expect(report.failed[0]?.error).toMatch(/strikes_by_expiry file bybit\/BTC\/2026-11-20 .*missing required column "strike_call_gex"/);
      expect(await listLedger(wh.connection)).toMatchObject([{ status: 'failed_load', archivePath: input.archivePath }]);
    });
  });
});

describe('schema on read: identity', () => {
  it('a file whose schema_version disagrees with its manifest fails, named', async () => {
    await withWarehouse(async (wh, dir) => {
      const input = { ...writeFixture(dir, 'levels', BTC), schemaVersion: 2 };
      const report = await loadFiles(wh.connection, [input]);
      expect(report.loaded).toEqual([]);
      expect(report.failed[0]?.error).toMatch(/levels file bybit\/BTC\/2026-11-20 .*the file says schema_version 1(\.0)? where its manifest says 2/);
      expect(await query(wh, 'SELECT count(*)::INTEGER AS n FROM levels')).toEqual([{ n: 0 }]);
    });
  });

  it('a file whose session_date disagrees fails, named; without the column the manifest decides', async () => {
    await withWarehouse(async (wh, dir) => {
      const rows = levelsRows(BTC).map((row) => ({ ...row, session_date: '2026-11-19' }));
      const bad = writeFixture(dir, 'levels', BTC, { rows });
      const report = await loadFiles(wh.connection, [bad]);
      expect(report.failed[0]?.error).toMatch(/the file says session_date 2026-11-19 where its manifest says 2026-11-20/);
      const without = writeFixture(dir, 'levels', BTC, { rows, header: HEADERS.levels.filter((name) => name !== 'session_date'), name: 'b.csv.gz' });
      expect((await loadFiles(wh.connection, [without])).failed).toEqual([]);
      expect(await query(wh, 'SELECT DISTINCT session_date::VARCHAR AS d FROM levels')).toEqual([{ d: '2026-11-20' }]);
    });
  });
});

const withExtras = (rows: Row[], extras: (i: number) => Row): Row[] => rows.map((row, i) => ({ ...row, ...extras(i) }));

describe('schema on read: unknown columns', () => {
  it('are added to their table typed from the values, announced once, queryable, recorded in sync.layouts', async () => {
    await withWarehouse(async (wh, dir) => {
      const header = [...HEADERS.levels, 'gamma_tilt', 'Venue Note', 'source'];
      const rows = withExtras(levelsRows(BTC), (i) => ({ gamma_tilt: i === 1 ? '' : `${i}.5e1`, 'Venue Note': `n${i}`, source: 'vendor' }));
      const a = { ...writeFixture(dir, 'levels', BTC, { header, rows }), schemaVersion: 1 };
      const b = {
        ...writeFixture(dir, 'levels', ETH, { header, rows: withExtras(levelsRows(ETH), () => ({ gamma_tilt: 7, 'Venue Note': 'x', source: 'v' })) }),
        schemaVersion: 1,
      };
      const report = await loadFiles(wh.connection, [a, b]);
      expect(report.failed).toEqual([]);
      expect(report.warnings.filter((w) => w.includes('gamma_tilt'))).toEqual([
        'levels files carry a new column "gamma_tilt": kept as DOUBLE column levels."gamma_tilt" (first seen in bybit/BTC/2026-11-20 levels)',
      ]);
      expect(report.warnings.some((w) => w.includes('"venue note": kept as VARCHAR'))).toBe(true);
      // A name the loader fills itself is kept beside it, never over it.
      expect(report.warnings.some((w) => w.includes('"file_source": kept as VARCHAR'))).toBe(true);
      const got = await query(
        wh,
        `SELECT gamma_tilt, "venue note" AS note, file_source, source FROM levels WHERE symbol = 'BTC' ORDER BY timestamp_utc, expiration`,
      );
      expect(got.map((row) => row.gamma_tilt)).toEqual([null, 5, 35, 25]);
      expect(got[0]).toMatchObject({ note: 'n1', file_source: 'vendor', source: 'file' });
      const layouts = await query(wh, 'SELECT file, schema_version, header, first_file, columns_added FROM sync.layouts');
      expect(layouts).toEqual([
        {
          file: 'levels',
          schema_version: 1,
          header: header.join(','),
          first_file: 'bybit/BTC/2026-11-20',
          columns_added: ['gamma_tilt DOUBLE', 'venue note VARCHAR', 'file_source VARCHAR'],
        },
      ]);
      // Loaded again: nothing new to say.
      const again = await loadFiles(wh.connection, [a, b], { reload: true });
      expect(again.warnings).toEqual([]);
    });
  });

  it('a type only widens: DOUBLE becomes VARCHAR when a later file holds text, numbers stay their text', async () => {
    await withWarehouse(async (wh, dir) => {
      const header = [...HEADERS.strikes_total, 'skew'];
      const first = writeFixture(dir, 'strikes_total', BTC, { header, rows: withExtras(rowsFor('strikes_total', BTC), (i) => ({ skew: i })) });
      expect((await loadFiles(wh.connection, [first])).failed).toEqual([]);
      expect(await query(wh, `SELECT data_type AS t FROM information_schema.columns WHERE table_name = 'strikes_total' AND column_name = 'skew'`)).toEqual([
        { t: 'DOUBLE' },
      ]);
      const later = writeFixture(dir, 'strikes_total', ETH, {
        header,
        rows: withExtras(rowsFor('strikes_total', ETH), (i) => ({ skew: i === 0 ? 'wide' : i })),
      });
      const report = await loadFiles(wh.connection, [later]);
      expect(report.failed).toEqual([]);
      expect(report.warnings).toEqual(['column strikes_total."skew" widened to VARCHAR: a value in deribit/ETH/2026-11-21 strikes_total is not a number']);
      expect(await query(wh, `SELECT skew FROM strikes_total WHERE symbol = 'ETH' ORDER BY strike`)).toEqual([{ skew: 'wide' }, { skew: '1' }, { skew: '2' }]);
      // Numbers into a VARCHAR column: no change of type again.
      const third = writeFixture(
        dir,
        'strikes_total',
        { ...ETH, sessionDate: '2026-11-22' },
        { header, rows: rowsFor('strikes_total', { ...ETH, sessionDate: '2026-11-22' }).map((row) => ({ ...row, skew: 3 })) },
      );
      expect((await loadFiles(wh.connection, [third])).warnings).toEqual([]);
    });
  });
});

describe('schema on read: schema_version and the freeze contract', () => {
  it('a schema_version not seen before is named once: "schema_version 2 first seen in …: loaded by column name"', async () => {
    await withWarehouse(async (wh, dir) => {
      const rows = levelsRows(BTC).map((row) => ({ ...row, schema_version: 2 }));
      const input = { ...writeFixture(dir, 'levels', BTC, { rows }), schemaVersion: 2 };
      const report = await loadFiles(wh.connection, [input]);
      expect(report.failed).toEqual([]);
      expect(report.warnings).toEqual(['schema_version 2 first seen in bybit/BTC/2026-11-20 levels: loaded by column name']);
      expect(await query(wh, 'SELECT DISTINCT schema_version FROM levels')).toEqual([{ schema_version: 2 }]);
      expect(await query(wh, 'SELECT schema_version FROM sync.files')).toEqual([{ schema_version: 2 }]);
      const eth = { ...writeFixture(dir, 'levels', ETH, { rows: levelsRows(ETH).map((row) => ({ ...row, schema_version: 2 })) }), schemaVersion: 2 };
      expect((await loadFiles(wh.connection, [eth])).warnings).toEqual([]);
    });
  });

  it('freeze holds a file with a new column or schema_version (nothing recorded); evolve then loads it', async () => {
    await withWarehouse(async (wh, dir) => {
      const plain = { ...writeFixture(dir, 'levels', BTC, { header: [...LEAN.levels] }), schemaVersion: 1 };
      const wide = {
        ...writeFixture(dir, 'levels', ETH, { header: [...HEADERS.levels, 'gamma_tilt'], rows: withExtras(levelsRows(ETH), () => ({ gamma_tilt: 1 })) }),
        schemaVersion: 1,
      };
      const v2Market = { ...BTC, sessionDate: '2026-11-22' };
      const v2 = { ...writeFixture(dir, 'levels', v2Market, { header: [...LEAN.levels] }), schemaVersion: 2 };
      const frozen = await loadFiles(wh.connection, [plain, wide, v2], { schemaContract: 'freeze' });
      expect(frozen.loaded).toEqual([plain]);
      expect(frozen.held.map((h) => h.input)).toEqual([wide, v2]);
      expect(frozen.held[0]?.reason).toMatch(
        /deribit\/ETH\/2026-11-21 .*new column\(s\) "gamma_tilt": held by schemaContract freeze; gexwh load --accept-layout loads it/,
      );
      expect(frozen.held[1]?.reason).toMatch(/schema_version 2, not loaded before/);
      expect((await listLedger(wh.connection)).map((row) => row.sessionDate)).toEqual(['2026-11-20']);
      const accepted = await loadFiles(wh.connection, [wide, v2], { schemaContract: 'evolve' });
      expect(accepted.loaded).toHaveLength(2);
      // Accepted once, the same layout loads under freeze.
      const again = {
        ...writeFixture(
          dir,
          'levels',
          { ...ETH, sessionDate: '2026-11-23' },
          {
            header: [...HEADERS.levels, 'gamma_tilt'],
            rows: withExtras(levelsRows({ ...ETH, sessionDate: '2026-11-23' }), () => ({ gamma_tilt: 2, schema_version: 2 })),
          },
        ),
        schemaVersion: 2,
      };
      expect((await loadFiles(wh.connection, [again], { schemaContract: 'freeze' })).loaded).toHaveLength(1);
    });
  });
});
