// `gexwh load` reads the journal's packages for what it refuses, then once as it closes the stopped
// runs, and loads that read; the last read is its clean-up of the packages it emptied. No read between.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadWaiting } from '../../src/journal/load-pending.js';
import { openSpendLog } from '../../src/journal/spend-log.js';
import { openPackageOf, unregisterOpenPackage } from '../../src/journal/open-package.js';
import { migratedTemplate, seedWarehouse } from '../helpers/migrated-warehouse.js';
import { packageReadsEachTest } from '../helpers/package-reads.js';

const each = packageReadsEachTest('gexwh-load-reads-');

describe('gexwh load', () => {
  it('records a stopped run from the read that closed it: three reads of the packages in all', async () => {
    const archiveRoot = join(each.dir, 'archive');
    const log = openSpendLog(archiveRoot, { command: 'sync', options: {}, startedAt: new Date('2026-03-10T00:30:00Z') }, () => 3);
    await log.credit(3);
    unregisterOpenPackage(archiveRoot, openPackageOf(archiveRoot)!);
    const dbPath = join(each.dir, 'gex.duckdb');
    seedWarehouse(await migratedTemplate(), dbPath);
    each.reads.reset();
    const result = await loadWaiting({ dbPath, archiveRoot, waitSeconds: 0 });
    expect(result.runsRecorded).toBe(1);
    expect(result.filesLoaded).toBe(0);
    expect(each.reads.count()).toBe(3);
  });
});
