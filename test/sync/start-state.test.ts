// The sync's start reads the journal's packages once: the stopped runs are closed and the journal is
// loaded (or, with the warehouse held, its listings put in the plan's copy) from that one read. The
// only other read is the load's own clean-up, after it moved what it loaded (the packages left empty go).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore, type BeginOptions } from '../../src/sync/state-source.js';
import { openSpendLog } from '../../src/journal/spend-log.js';
import { journalFiles } from '../../src/journal/held.js';
import { openPackageOf, unregisterOpenPackage } from '../../src/journal/open-package.js';
import { readListingState } from '../../src/warehouse/index.js';
import { holdWarehouse } from '../helpers/holder.js';
import { packageReadsEachTest } from '../helpers/package-reads.js';
import { migratedTemplate, seedWarehouse } from '../helpers/migrated-warehouse.js';
import type { CoverageRow } from '../../src/core/rows.js';

const each = packageReadsEachTest('gexwh-start-');

const pair = { exchange: 'combined', symbol: 'BTC' };
const listing = {
  ...pair,
  rows: [{ session_date: '2026-03-09', file: 'levels', rows: 10, bytes: 100, sha256: 'c'.repeat(64), schema_version: 1 }],
  listedAt: '2026-03-10T00:40:00.000Z',
  completeFrom: '2026-03-01',
};

/** An archive whose journal holds a run stopped hard (2 credits) and a listing a held-out run left. */
async function journal(): Promise<{ archiveRoot: string; dbPath: string }> {
  const archiveRoot = join(each.dir, 'archive');
  const log = openSpendLog(archiveRoot, { command: 'sync', options: {}, startedAt: new Date('2026-03-10T00:30:00Z') }, () => 2);
  await log.credit(2);
  unregisterOpenPackage(archiveRoot, openPackageOf(archiveRoot)!);
  await journalFiles(archiveRoot, [], { listings: [listing], stored: false });
  const dbPath = join(each.dir, 'gex.duckdb');
  seedWarehouse(await migratedTemplate(), dbPath);
  each.reads.reset();
  return { archiveRoot, dbPath };
}

function begin(paths: { archiveRoot: string; dbPath: string }): BeginOptions {
  return {
    ...paths,
    command: 'sync',
    recordedOptions: {},
    startedAt: new Date('2026-03-11T00:30:00Z'),
    pairs: [pair],
    coverage: [{ ...pair, files_first_date: '2026-03-01', files_last_date: '2026-03-10' } as CoverageRow],
    journalCheck: {},
  };
}

describe("the sync's start", () => {
  it('with the warehouse writable: the stopped run is closed and loaded from one read of the packages', async () => {
    const paths = await journal();
    const warnings: string[] = [];
    const store = await openStore(begin(paths), (message) => warnings.push(message));
    try {
      expect(store.mode).toBe('warehouse');
      expect(warnings.join('\n')).toMatch(/a run stopped before it finished left 0 paid file\(s\) \(2 credit\(s\) recorded\)/);
      expect(store.waiting.runsRecorded).toBe(1);
      // The start's read, then the load's clean-up of the packages it emptied.
      expect(each.reads.count()).toBe(2);
    } finally {
      store.close();
    }
  });

  it.each([
    ['read_only', 'copy'],
    ['read_write', 'archive'],
  ] as const)('with the warehouse held %s: planning in %s mode with the journal listings, from one read', async (holding, mode) => {
    const paths = await journal();
    const holder = await holdWarehouse(paths.dbPath, holding);
    try {
      const store = await openStore(begin(paths), () => undefined);
      try {
        expect(store.mode).toBe(mode);
        const conn = await store.planConnection(() => undefined);
        expect(await readListingState(conn, pair.exchange, pair.symbol)).toEqual({ newestStored: '2026-03-09', completeFrom: '2026-03-01' });
        expect(each.reads.count()).toBe(1);
      } finally {
        store.close();
      }
    } finally {
      await holder.release().catch(() => holder.kill());
    }
  });
});
