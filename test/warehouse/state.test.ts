import { describe, expect, it } from 'vitest';
import { listLedger, loadedFiles, recordFileStatus } from '../../src/warehouse/ledger.js';
import { listCoverage, listManifest, readListingState, recordListing, upsertCoverage, upsertManifest } from '../../src/warehouse/manifest.js';
import { finishRun, lastRun, redactSecrets, startRun } from '../../src/warehouse/runs.js';
import { BTC, query, withWarehouse } from './fixtures.js';
import { fileKey } from '../../src/core/pairs.js';
import type { ManifestRow } from '../../src/core/rows.js';

const SHA_A = 'a'.repeat(64);
const SHA_B = 'b'.repeat(64);

describe('ledger', () => {
  it('records failures, never demoting a loaded version', async () => {
    await withWarehouse(async (wh) => {
      const file = { ...BTC, file: 'levels' as const, sha256: SHA_A, bytes: 10, rows: 4 };
      await recordFileStatus(wh.connection, file, 'failed_verify', 'sha256 mismatch');
      expect(await listLedger(wh.connection)).toMatchObject([{ status: 'failed_verify', error: 'sha256 mismatch', bytes: 10 }]);
      await recordFileStatus(wh.connection, file, 'loaded');
      await recordFileStatus(wh.connection, file, 'failed_load', 'late failure');
      expect(await listLedger(wh.connection)).toMatchObject([{ status: 'loaded', error: null }]);
      await recordFileStatus(wh.connection, { ...file, sha256: SHA_B }, 'failed_load', 'bad');
      expect(await listLedger(wh.connection, 'failed_load')).toMatchObject([{ sha256: SHA_B }]);
      const loaded = await loadedFiles(wh.connection);
      expect([...loaded]).toEqual([[fileKey(file), SHA_A]]);
    });
  });
});

describe('manifest', () => {
  it('upserts many rows through the appender, merges duplicates, reports the newest date', async () => {
    await withWarehouse(async (wh) => {
      const rows: ManifestRow[] = [];
      const start = Date.UTC(2020, 0, 1);
      for (let day = 0; day < 2000; day += 1) {
        const date = new Date(start + day * 86_400_000).toISOString().slice(0, 10);
        for (const file of ['levels', 'strikes_total', 'strikes_by_expiry'] as const) {
          rows.push({ session_date: date, file, rows: day, bytes: day * 10, sha256: SHA_A, schema_version: 1 });
        }
      }
      expect(await readListingState(wh.connection, 'bybit', 'BTC')).toEqual({ newestStored: null, completeFrom: null });
      expect(await upsertManifest(wh.connection, 'bybit', 'BTC', rows, new Date('2026-01-01T00:00:00Z'))).toBe(6000);
      // A rebuilt file: same key, new sha; listed twice on overlapping pages.
      const rebuilt = { ...rows[0], sha256: SHA_B } as ManifestRow;
      await upsertManifest(wh.connection, 'bybit', 'BTC', [rebuilt, rebuilt], '2026-01-02T00:00:00Z');
      expect(await query(wh, 'SELECT count(*)::INTEGER AS n FROM sync.manifest')).toEqual([{ n: 6000 }]);
      expect((await readListingState(wh.connection, 'bybit', 'BTC')).newestStored).toBe('2025-06-22');
      expect((await readListingState(wh.connection, 'bybit', 'ETH')).newestStored).toBeNull();
      // How much of the manifest is held: recorded per pair, replaced by the next record.
      await recordListing(wh.connection, 'bybit', 'BTC', '2024-01-01', new Date('2026-01-02T00:00:00Z'));
      await recordListing(wh.connection, 'bybit', 'BTC', '2023-06-01', new Date('2026-01-03T00:00:00Z'));
      expect(await readListingState(wh.connection, 'bybit', 'BTC')).toEqual({ newestStored: '2025-06-22', completeFrom: '2023-06-01' });
      await recordListing(wh.connection, 'bybit', 'BTC', null, new Date('2026-01-04T00:00:00Z'));
      expect((await readListingState(wh.connection, 'bybit', 'BTC')).completeFrom).toBeNull();
      const listed = await listManifest(wh.connection, 'bybit', 'BTC');
      expect(listed.find((r) => r.session_date === '2020-01-01' && r.file === 'levels')?.sha256).toBe(SHA_B);
      expect(listed[0]).toMatchObject({ session_date: '2025-06-22', rows: 1999, bytes: 19990 });
      // A kind gexwh does not know, or a malformed date, is never stored.
      const odd = [
        { ...rebuilt, file: 'strikes_weird' },
        { ...rebuilt, session_date: '2026-1-1' },
      ];
      expect(await upsertManifest(wh.connection, 'bybit', 'BTC', odd, new Date())).toBe(0);
    });
  });
});

describe('coverage', () => {
  it('replaces rows per (exchange, symbol) and keeps nulls', async () => {
    await withWarehouse(async (wh) => {
      const row = {
        exchange: 'bybit',
        symbol: 'BTC',
        first_ts: '2024-01-01T00:00:00Z',
        last_ts: '2026-11-20T23:45:00Z',
        sessions: 1000,
        files_first_date: '2024-01-01',
        files_last_date: '2026-11-19',
      };
      await upsertCoverage(wh.connection, [row, { ...row, symbol: 'NEW', files_first_date: null, files_last_date: null }], new Date());
      await upsertCoverage(wh.connection, [{ ...row, files_last_date: '2026-11-20' }], new Date());
      expect(await listCoverage(wh.connection)).toEqual([
        { ...row, files_last_date: '2026-11-20' },
        { ...row, symbol: 'NEW', files_first_date: null, files_last_date: null },
      ]);
      // A pair the answer repeats is stored as its last row says; no rows change nothing.
      await upsertCoverage(
        wh.connection,
        [
          { ...row, sessions: 1 },
          { ...row, symbol: 'NEW', sessions: 2 },
          { ...row, sessions: 3 },
        ],
        new Date(),
      );
      await upsertCoverage(wh.connection, [], new Date());
      expect((await listCoverage(wh.connection)).map((stored) => [stored.symbol, stored.sessions])).toEqual([
        ['BTC', 3],
        ['NEW', 2],
      ]);
    });
  });
});

describe('runs', () => {
  it('redacts secrets from options', () => {
    expect(redactSecrets({ apiKey: 'k', api_key_file: '/x', nested: { token: 't', db: 'd' }, list: [{ password: 'p', a: 1 }] })).toEqual({
      nested: { db: 'd' },
      list: [{ a: 1 }],
    });
  });

  it('starts and finishes a run with its counts', async () => {
    await withWarehouse(async (wh) => {
      const first = await startRun(wh.connection, { command: 'sync', options: { symbol: ['BTC'], apiKey: 'secret-value' } });
      const second = await startRun(wh.connection, { command: 'sync', options: {} });
      expect(second).toBeGreaterThan(first);
      await finishRun(wh.connection, second, {
        outcome: 'partial',
        creditsSpent: 3,
        requestsSpent: 5,
        filesPlanned: 4,
        filesLoaded: 2,
        filesFailed: 1,
        filesDeferred: 1,
        error: 'one failed',
      });
      const run = await lastRun(wh.connection, 'sync');
      expect(run).toMatchObject({
        runId: second,
        outcome: 'partial',
        creditsSpent: 3,
        requestsSpent: 5,
        filesPlanned: 4,
        filesLoaded: 2,
        filesFailed: 1,
        filesDeferred: 1,
        error: 'one failed',
      });
      expect(run?.finishedAt).toMatch(/Z$/);
      const stored = await query(wh, 'SELECT options::VARCHAR AS o FROM sync.runs WHERE run_id = $1', [first]);
      expect(stored[0]?.o).not.toContain('secret-value');
      expect(JSON.parse(String(stored[0]?.o))).toEqual({ symbol: ['BTC'] });
    });
  });
});
