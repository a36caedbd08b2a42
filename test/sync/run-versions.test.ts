// A newer version of a file is archived beside the loaded one, never over it, until its rows are
// loaded; then it takes the plain name and the old copy is gone (the ledger keeps it as superseded).
import { existsSync, readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InterruptedError } from '../../src/core/errors.js';
import { hashFile } from '../../src/core/hash.js';
import { syncApiFrom } from '../../src/sync/api-port.js';
import { runSync } from '../../src/sync/run.js';
import { parseSyncSelection } from '../../src/sync/selection.js';
import { verifyWarehouse } from '../../src/warehouse/verify.js';
import { startBench, type Bench } from '../helpers/sync.js';

let bench: Bench | undefined;
afterEach(async () => {
  await bench?.close();
  bench = undefined;
});

const SELECTION = { exchange: 'deribit', symbol: 'BTC' };

describe('a newer version of an archived file', () => {
  it('waits beside the loaded one until it is loaded, then replaces it; no credit paid twice', async () => {
    bench = await startBench();
    const b = bench;
    await b.sync(SELECTION);
    const folder = join(b.archive, 'deribit', 'BTC');
    const plain = join(folder, '2026-03-10_levels.csv.gz');
    const oldSha = hashFile(plain).sha256;
    b.emulator.rebuildFile('deribit', 'BTC', '2026-03-10', 'levels');

    // Stop the run once the new version is archived, before its load.
    const controller = new AbortController();
    const selection = parseSyncSelection(SELECTION);
    const options = {
      command: 'sync' as const,
      dbPath: b.dbPath,
      archiveRoot: b.archive,
      selection,
      dryRun: false,
      fullRescan: true,
      fillLevels: false,
      recordedOptions: {},
    };
    const stopped = await runSync(options, syncApiFrom(b.client()), controller.signal, {
      file: (event) => {
        if (event.outcome === 'verified') controller.abort('SIGINT');
      },
    }).catch((e: unknown) => e);
    expect(stopped).toBeInstanceOf(InterruptedError);
    const pending = readdirSync(folder).filter((name) => /^2026-03-10_levels\.[0-9a-f]{12}\.csv\.gz$/.test(name));
    expect(pending).toHaveLength(1);
    expect(hashFile(plain).sha256).toBe(oldSha); // the loaded version, untouched
    const newSha = hashFile(join(folder, pending[0]!)).sha256;
    expect(pending[0]).toBe(`2026-03-10_levels.${newSha.slice(0, 12)}.csv.gz`);
    // Verify sees the loaded version whole; only the manifest is ahead of it.
    expect((await verifyWarehouse({ dbPath: b.dbPath, archiveRoot: b.archive })).problems.map((p) => p.kind)).toEqual(['manifest_mismatch']);

    const credits = b.emulator.counters.credits(b.emulator.keys.pro);
    const summary = await b.sync(SELECTION);
    expect(summary).toMatchObject({ outcome: 'ok', creditsSpent: 0, filesLoaded: 1 });
    expect(b.emulator.counters.credits(b.emulator.keys.pro)).toBe(credits);
    expect(hashFile(plain).sha256).toBe(newSha);
    expect(existsSync(join(folder, pending[0]!))).toBe(false);
    const ledger = await b.query<{ sha256: string; status: string; archive_path: string | null }>(
      `SELECT sha256, status, archive_path FROM sync.files WHERE session_date = DATE '2026-03-10' AND file = 'levels' ORDER BY status`,
    );
    expect(ledger).toEqual([
      { sha256: newSha, status: 'loaded', archive_path: 'deribit/BTC/2026-03-10_levels.csv.gz' }, // relative to the archive root
      { sha256: oldSha, status: 'superseded', archive_path: null },
    ]);
    expect((await verifyWarehouse({ dbPath: b.dbPath, archiveRoot: b.archive })).problems).toEqual([]);

    // A crash between a load's commit and the move: the loaded version is still under its pending
    // name and the ledger points there (here as an older version recorded it: an absolute path inside
    // the archive). The next sync finishes the move from the ledger, for free.
    renameSync(plain, join(folder, pending[0]!));
    await b.query(`UPDATE sync.files SET archive_path = '${join(folder, pending[0]!)}' WHERE sha256 = '${newSha}'`);
    const again = await b.sync(SELECTION);
    expect(again).toMatchObject({ outcome: 'ok', creditsSpent: 0, filesLoaded: 0 });
    expect(hashFile(plain).sha256).toBe(newSha);
    expect(existsSync(join(folder, pending[0]!))).toBe(false);
    const [row] = await b.query<{ archive_path: string }>(`SELECT archive_path FROM sync.files WHERE sha256 = '${newSha}'`);
    expect(row!.archive_path).toBe('deribit/BTC/2026-03-10_levels.csv.gz');
  });
});
