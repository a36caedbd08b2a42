import { describe, expect, it } from 'vitest';
import { loadFiles } from '../../src/warehouse/loader.js';
import { listLedger, loadedFiles } from '../../src/warehouse/ledger.js';
import { BTC, HEADERS, levelsRows, query, withWarehouse, writeFixture, type Market } from './fixtures.js';
import { fileKey } from '../../src/core/pairs.js';

const ETH: Market = { exchange: 'deribit', symbol: 'ETH', sessionDate: '2026-11-20' };

describe('loadFiles: each kind', () => {
  it('loads levels with TOTAL → NULL expiration_date, source file, typed values', async () => {
    await withWarehouse(async (wh, dir) => {
      const input = writeFixture(dir, 'levels', BTC);
      const report = await loadFiles(wh.connection, [input]);
      expect(report.failed).toEqual([]);
      expect(report.loaded).toHaveLength(1);
      expect(report.rowsLoaded).toBe(4);
      const rows = await query(
        wh,
        `SELECT exchange, symbol, session_date::VARCHAR AS sd, timestamp_utc::VARCHAR AS ts, expiration,
          expiration_date::VARCHAR AS ed, dte, spot, flip_count, typeof(flip_count) AS fct, regime, max_pain, schema_version, source, type, oi_date::VARCHAR AS oi
        FROM levels ORDER BY timestamp_utc, expiration`,
      );
      expect(rows[0]).toEqual({
        exchange: 'bybit',
        symbol: 'BTC',
        sd: '2026-11-20',
        ts: '2026-11-20 14:00:00+00',
        expiration: '2026-12-25',
        ed: '2026-12-25',
        dte: 35,
        spot: 0.5,
        flip_count: 2,
        fct: 'INTEGER',
        regime: 'positive',
        max_pain: 95000,
        schema_version: 1,
        source: 'file',
        type: 'intraday',
        oi: '2026-11-20',
      });
      expect(rows[1]).toMatchObject({ expiration: 'TOTAL', ed: null, dte: null, max_pain: null });
      expect(rows[3]).toMatchObject({ ts: '2026-11-20 14:15:00+00', spot: 1000.5 });
      const ledger = await listLedger(wh.connection);
      expect(ledger).toHaveLength(1);
      expect(ledger[0]).toMatchObject({ status: 'loaded', sha256: input.sha256, rows: 4, archivePath: input.archivePath, error: null });
      expect(ledger[0]?.loadedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    });
  });

  it('loads strikes_total: prefix stripped, half strikes, exponent numbers, empty → NULL, snapshot fields dropped', async () => {
    await withWarehouse(async (wh, dir) => {
      const report = await loadFiles(wh.connection, [writeFixture(dir, 'strikes_total', BTC)]);
      expect(report.failed).toEqual([]);
      expect(report.warnings).toEqual([]);
      const rows = await query(wh, 'SELECT * EXCLUDE (timestamp_utc, session_date) FROM strikes_total ORDER BY strike');
      expect(rows).toEqual([
        { exchange: 'bybit', symbol: 'BTC', strike: 97500, call_gex: 1_500_000, put_gex: 50, net_gex: 50, call_oi: 10, put_oi: 20, schema_version: 1 },
        { exchange: 'bybit', symbol: 'BTC', strike: 97750.5, call_gex: 101, put_gex: null, net_gex: 51, call_oi: 10, put_oi: 20, schema_version: 1 },
        { exchange: 'bybit', symbol: 'BTC', strike: 98000, call_gex: 102, put_gex: 50, net_gex: 52, call_oi: 10, put_oi: 20, schema_version: 1 },
      ]);
    });
  });

  it('loads strikes_by_expiry with expiration → expiration_date', async () => {
    await withWarehouse(async (wh, dir) => {
      const report = await loadFiles(wh.connection, [writeFixture(dir, 'strikes_by_expiry', BTC)]);
      expect(report.failed).toEqual([]);
      const rows = await query(wh, `SELECT expiration_date::VARCHAR AS ed, strike, net_gex, put_oi FROM strikes_by_expiry ORDER BY ed, strike`);
      expect(rows).toEqual([
        { ed: '2026-11-27', strike: 97500, net_gex: -1, put_oi: 400 },
        { ed: '2026-11-27', strike: 97500.5, net_gex: -1, put_oi: 400 },
        { ed: '2026-12-25', strike: 97500, net_gex: -1, put_oi: 400 },
        { ed: '2026-12-25', strike: 97500.5, net_gex: -1, put_oi: 400 },
      ]);
    });
  });
});

describe('loadFiles: headers', () => {
  it('maps reordered columns by name and reports an unknown column once', async () => {
    await withWarehouse(async (wh, dir) => {
      const header = [...HEADERS.levels].reverse();
      header.splice(3, 0, 'vanna');
      const rows = levelsRows(BTC).map((row) => ({ ...row, vanna: 'x' }));
      const a = writeFixture(dir, 'levels', BTC, { header, rows });
      const b = writeFixture(dir, 'levels', ETH, { header, rows: levelsRows(ETH).map((row) => ({ ...row, vanna: 'y' })) });
      const report = await loadFiles(wh.connection, [a, b]);
      expect(report.failed).toEqual([]);
      expect(report.warnings).toHaveLength(1);
      expect(report.warnings[0]).toContain('"vanna"');
      const got = await query(wh, `SELECT spot, flip, regime, expiration, dte FROM levels WHERE symbol = 'BTC' ORDER BY timestamp_utc, expiration`);
      expect(got[0]).toEqual({ spot: 0.5, flip: 1.5, regime: 'positive', expiration: '2026-12-25', dte: 35 });
      expect(await query(wh, 'SELECT count(*)::INTEGER AS n FROM levels')).toEqual([{ n: 8 }]);
    });
  });

  it('a missing required column fails naming the file and column, writes no rows', async () => {
    await withWarehouse(async (wh, dir) => {
      const header = HEADERS.strikes_total.filter((name) => name !== 'strike_put_gex');
      const input = writeFixture(dir, 'strikes_total', BTC, { header });
      const report = await loadFiles(wh.connection, [input]);
      expect(report.loaded).toEqual([]);
      expect(report.failed).toHaveLength(1);
      expect(report.failed[0]?.error).toContain(input.path);
      expect(report.failed[0]?.error).toContain('"strike_put_gex"');
      expect(await query(wh, 'SELECT count(*)::INTEGER AS n FROM strikes_total')).toEqual([{ n: 0 }]);
      const ledger = await listLedger(wh.connection);
      expect(ledger).toMatchObject([{ status: 'failed_load', sha256: input.sha256 }]);
      expect(ledger[0]?.error).toContain('strike_put_gex');
    });
  });
});

describe('loadFiles: integrity', () => {
  it('a row count different from the manifest is failed_load with nothing written', async () => {
    await withWarehouse(async (wh, dir) => {
      const input = writeFixture(dir, 'levels', BTC, { manifestRows: 5 });
      const report = await loadFiles(wh.connection, [input]);
      expect(report.failed[0]?.error).toMatch(/read 4 rows, the manifest says 5/);
      expect(await query(wh, 'SELECT count(*)::INTEGER AS n FROM levels')).toEqual([{ n: 0 }]);
      expect((await listLedger(wh.connection))[0]?.status).toBe('failed_load');
    });
  });

  it('a levels file that repeats a capture × expiration is failed_load naming it, nothing written', async () => {
    await withWarehouse(async (wh, dir) => {
      const rows = levelsRows(BTC);
      const input = writeFixture(dir, 'levels', BTC, { rows: [...rows, rows[0]!] });
      const report = await loadFiles(wh.connection, [input]);
      expect(report.failed[0]?.error).toMatch(/repeats a capture × expiration: bybit\/BTC 2026-11-20 capture 2026-11-20T14:00:00Z expiration TOTAL \(2 rows\)/);
      expect(await query(wh, 'SELECT count(*)::INTEGER AS n FROM levels')).toEqual([{ n: 0 }]);
      expect((await listLedger(wh.connection))[0]?.status).toBe('failed_load');
    });
  });

  it('a file whose rows name another symbol is failed_load', async () => {
    await withWarehouse(async (wh, dir) => {
      const input = writeFixture(dir, 'levels', BTC, { rows: levelsRows(ETH) });
      const report = await loadFiles(wh.connection, [input]);
      expect(report.failed).toHaveLength(1);
      expect(report.failed[0]?.error).toMatch(/another market or session/);
      expect(await query(wh, 'SELECT count(*)::INTEGER AS n FROM levels')).toEqual([{ n: 0 }]);
    });
  });

  it('a value that is not a number fails the file, not silently NULL', async () => {
    await withWarehouse(async (wh, dir) => {
      const rows = levelsRows(BTC);
      if (rows[1]) rows[1].spot = 'abc';
      const input = writeFixture(dir, 'levels', BTC, { rows });
      const report = await loadFiles(wh.connection, [input]);
      expect(report.failed).toHaveLength(1);
      expect(report.failed[0]?.error).toContain(input.path);
      expect(report.failed[0]?.error).toContain('"spot"');
      expect(report.failed[0]?.error).not.toContain('Possible solutions');
      expect(await query(wh, 'SELECT count(*)::INTEGER AS n FROM levels')).toEqual([{ n: 0 }]);
    });
  });

  it('a malformed timestamp fails the file (read_csv alone would make it NULL)', async () => {
    await withWarehouse(async (wh, dir) => {
      const rows = levelsRows(BTC);
      if (rows[2]) rows[2].timestamp_utc = '2026-11-20T14:1425:00Z';
      const report = await loadFiles(wh.connection, [writeFixture(dir, 'levels', BTC, { rows })]);
      expect(report.failed[0]?.error).toMatch(/timestamp/);
      expect(await query(wh, 'SELECT count(*)::INTEGER AS n FROM levels')).toEqual([{ n: 0 }]);
    });
  });

  it('re-loading the same sha256 is a no-op', async () => {
    await withWarehouse(async (wh, dir) => {
      const input = writeFixture(dir, 'strikes_by_expiry', BTC);
      await loadFiles(wh.connection, [input]);
      const again = await loadFiles(wh.connection, [input]);
      expect(again.skipped).toEqual([input]);
      expect(again.loaded).toEqual([]);
      expect(await query(wh, 'SELECT count(*)::INTEGER AS n FROM strikes_by_expiry')).toEqual([{ n: 4 }]);
      expect(await listLedger(wh.connection)).toHaveLength(1);
    });
  });

  it('a newer sha256 replaces the old rows and marks the old version superseded', async () => {
    await withWarehouse(async (wh, dir) => {
      const v1 = writeFixture(dir, 'levels', BTC, { name: 'v1.csv.gz' });
      await loadFiles(wh.connection, [v1]);
      const rows = levelsRows(BTC)
        .slice(0, 2)
        .map((row) => ({ ...row, spot: 123 }));
      const v2 = writeFixture(dir, 'levels', BTC, { name: 'v2.csv.gz', rows });
      const report = await loadFiles(wh.connection, [v2]);
      expect(report.loaded).toEqual([v2]);
      expect(await query(wh, 'SELECT DISTINCT spot FROM levels')).toEqual([{ spot: 123 }]);
      expect(await query(wh, 'SELECT count(*)::INTEGER AS n FROM levels')).toEqual([{ n: 2 }]);
      const ledger = await listLedger(wh.connection);
      expect(ledger.map((r) => [r.sha256, r.status]).sort()).toEqual(
        [
          [v1.sha256, 'superseded'],
          [v2.sha256, 'loaded'],
        ].sort(),
      );
      expect((await loadedFiles(wh.connection)).get(fileKey(v2))).toBe(v2.sha256);
    });
  });

  it('a batch writes each file its own ledger row and supersedes only older versions of the same file', async () => {
    await withWarehouse(async (wh, dir) => {
      const eth = { ...BTC, symbol: 'ETH' };
      const oldBtc = writeFixture(dir, 'levels', BTC, { name: 'btc-v1.csv.gz' });
      const ethLoaded = writeFixture(dir, 'levels', eth, { name: 'eth.csv.gz' });
      await loadFiles(wh.connection, [oldBtc, ethLoaded]);
      const rows = levelsRows(BTC)
        .slice(0, 2)
        .map((row) => ({ ...row, spot: 99 }));
      const newBtc = { ...writeFixture(dir, 'levels', BTC, { name: 'btc-v2.csv.gz', rows }), downloadedAt: '2026-11-21T01:02:03.000Z' };
      const sol = { ...writeFixture(dir, 'levels', { ...BTC, symbol: 'SOL' }), downloadedAt: '2026-11-21T04:05:06.000Z' };
      const report = await loadFiles(wh.connection, [newBtc, sol], { now: () => new Date('2026-11-22T00:00:00Z') });
      expect(report.loaded).toEqual([newBtc, sol]);

      const ledger = await listLedger(wh.connection);
      const bySha = new Map(ledger.map((row) => [row.sha256, row]));
      expect(bySha.get(oldBtc.sha256)?.status).toBe('superseded');
      expect(bySha.get(ethLoaded.sha256)?.status).toBe('loaded');
      for (const input of [newBtc, sol]) {
        expect(bySha.get(input.sha256)).toMatchObject({
          symbol: input.symbol,
          status: 'loaded',
          bytes: input.bytes,
          rows: input.rows,
          archivePath: input.archivePath,
          downloadedAt: input.downloadedAt,
          loadedAt: '2026-11-22T00:00:00.000Z',
          error: null,
        });
      }
      expect(ledger).toHaveLength(4);
      // Asked about two files, the ledger answers for those two only.
      const asked = await loadedFiles(wh.connection, [newBtc, { ...sol, sessionDate: '2026-11-19' }]);
      expect([...asked]).toEqual([[fileKey(newBtc), newBtc.sha256]]);
    });
  });

  it('a batch with one bad file loads the others and records the bad one', async () => {
    await withWarehouse(async (wh, dir) => {
      const markets = ['BTC', 'ETH', 'SOL'].map((symbol) => ({ ...BTC, symbol }));
      const good1 = writeFixture(dir, 'strikes_total', markets[0] as Market);
      const bad = writeFixture(dir, 'strikes_total', markets[1] as Market, { manifestRows: 99 });
      const good2 = writeFixture(dir, 'strikes_total', markets[2] as Market);
      const report = await loadFiles(wh.connection, [good1, bad, good2]);
      expect(report.loaded.map((f) => f.symbol).sort()).toEqual(['BTC', 'SOL']);
      expect(report.failed.map((f) => f.input.symbol)).toEqual(['ETH']);
      expect(await query(wh, 'SELECT symbol, count(*)::INTEGER AS n FROM strikes_total GROUP BY symbol ORDER BY symbol')).toEqual([
        { symbol: 'BTC', n: 3 },
        { symbol: 'SOL', n: 3 },
      ]);
      const statuses = (await listLedger(wh.connection)).map((r) => `${r.symbol}:${r.status}`).sort();
      expect(statuses).toEqual(['BTC:loaded', 'ETH:failed_load', 'SOL:loaded']);
    });
  });

  it('a levels file replaces the api rows of its session only', async () => {
    await withWarehouse(async (wh, dir) => {
      const insertApi = `INSERT INTO levels (exchange, symbol, session_date, timestamp_utc, expiration, spot, source)
                         VALUES ('bybit', 'BTC', $1::DATE, $2::TIMESTAMPTZ, 'TOTAL', -1, 'api')`;
      await wh.connection.run(insertApi, ['2026-11-20', '2026-11-20T14:00:00Z']);
      await wh.connection.run(insertApi, ['2026-11-20', '2026-11-20T23:45:00Z']);
      await wh.connection.run(insertApi, ['2026-11-21', '2026-11-21T00:00:00Z']);
      const report = await loadFiles(wh.connection, [writeFixture(dir, 'levels', BTC)]);
      expect(report.failed).toEqual([]);
      expect(await query(wh, `SELECT session_date::VARCHAR AS sd, source, count(*)::INTEGER AS n FROM levels GROUP BY ALL ORDER BY ALL`)).toEqual([
        { sd: '2026-11-20', source: 'file', n: 4 },
        { sd: '2026-11-21', source: 'api', n: 1 },
      ]);
    });
  });

  it('invalid inputs never reach SQL', async () => {
    await withWarehouse(async (wh, dir) => {
      const input = writeFixture(dir, 'levels', BTC);
      const report = await loadFiles(wh.connection, [{ ...input, exchange: "bybit'; DROP TABLE levels; --" }]);
      expect(report.failed[0]?.error).toMatch(/unknown exchange/);
      expect(await query(wh, 'SELECT count(*)::INTEGER AS n FROM levels')).toEqual([{ n: 0 }]);
    });
  });

  it('two versions of one file in one call load in order, the last one winning', async () => {
    await withWarehouse(async (wh, dir) => {
      const v1 = writeFixture(dir, 'levels', BTC, { name: 'v1.csv.gz' });
      const v2 = writeFixture(dir, 'levels', BTC, { name: 'v2.csv.gz', rows: levelsRows(BTC).slice(0, 2) });
      const report = await loadFiles(wh.connection, [v1, v2, v2]);
      expect(report.failed).toEqual([]);
      expect(report.loaded).toEqual([v1, v2]);
      expect(report.skipped).toEqual([v2]);
      expect(await query(wh, 'SELECT count(*)::INTEGER AS n FROM levels')).toEqual([{ n: 2 }]);
      expect((await listLedger(wh.connection)).map((r) => r.status).sort()).toEqual(['loaded', 'superseded']);
    });
  });

  it('batches respect the file limit and still load everything', async () => {
    await withWarehouse(async (wh, dir) => {
      const inputs = ['A', 'B', 'C', 'D', 'E'].map((symbol) => writeFixture(dir, 'strikes_by_expiry', { ...BTC, symbol }));
      const report = await loadFiles(wh.connection, inputs, { maxFilesPerBatch: 2 });
      expect(report.loaded).toHaveLength(5);
      expect(report.rowsLoaded).toBe(20);
    });
  });

  it('reports progress after each batch: files done, up to all of them', async () => {
    await withWarehouse(async (wh, dir) => {
      const inputs = ['A', 'B', 'C', 'D', 'E'].map((symbol) => writeFixture(dir, 'strikes_by_expiry', { ...BTC, symbol }));
      const seen: number[] = [];
      await loadFiles(wh.connection, inputs, { maxFilesPerBatch: 2, onProgress: (done) => seen.push(done) });
      expect(seen).toEqual([0, 2, 4, 5]);
      // A second load skips every file: one report with all of them done before any batch.
      const again: number[] = [];
      await loadFiles(wh.connection, inputs, { onProgress: (done) => again.push(done) });
      expect(again).toEqual([5]);
    });
  });
});

describe('loadFiles: CSV dialect', () => {
  it('reads CRLF line ends, quoted fields and empty text as NULL', async () => {
    await withWarehouse(async (wh, dir) => {
      const { gzipSync } = await import('node:zlib');
      const { writeFileSync } = await import('node:fs');
      const { createHash } = await import('node:crypto');
      const rows = levelsRows(BTC).slice(0, 2);
      if (rows[0]) rows[0].regime = '';
      if (rows[1]) rows[1].regime = '"negative"';
      const header = HEADERS.levels.map((name) => (name === 'spot' ? '"spot"' : name));
      const text =
        [header.join(','), ...rows.map((row) => HEADERS.levels.map((name) => (row[name] === null ? '' : String(row[name]))).join(','))].join('\r\n') + '\r\n';
      const bytes = gzipSync(text);
      const input = writeFixture(dir, 'levels', BTC, { rows });
      writeFileSync(input.path, bytes);
      const report = await loadFiles(wh.connection, [{ ...input, sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length }]);
      expect(report.failed).toEqual([]);
      expect(await query(wh, 'SELECT regime, spot FROM levels ORDER BY expiration DESC')).toEqual([
        { regime: null, spot: 0.5 },
        { regime: 'negative', spot: 0.5 },
      ]);
    });
  });

  it('a missing file is failed_load naming it', async () => {
    await withWarehouse(async (wh, dir) => {
      const input = { ...writeFixture(dir, 'levels', BTC), path: `${dir}/nope.csv.gz` };
      const report = await loadFiles(wh.connection, [input]);
      expect(report.failed[0]?.error).toContain('nope.csv.gz');
      expect((await listLedger(wh.connection))[0]?.status).toBe('failed_load');
    });
  });
});
