// `gexwh load`: the paid files a held-out sync left in the archive's journal, loaded for 0 credits.
import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { JournalFileRefusedError, NoWarehouseError, PartialFailureError } from '../../core/errors.js';
import { DEFAULT_WAIT_LOCK_SECONDS } from '../../journal/wait-lock.js';
import { contextOf } from '../context.js';
import { formatCount } from '../summary.js';
import { withConfig } from '../option-use.js';

interface LoadFlags {
  waitLock?: number;
  schemaContract?: 'evolve' | 'freeze';
  acceptLayout?: boolean;
  trustJournal?: boolean;
}

export function registerLoad(program: Command): void {
  program
    .command('load')
    .description(
      "load the paid files a sync archived but could not load (the warehouse was held): no credit; with a key, the journal's claims are checked against the API's manifest",
    )
    .action(async (given: LoadFlags, command: Command) => {
      const ctx = contextOf(command);
      // A load never creates a warehouse: a mistyped --db would start a second, empty one.
      if (!existsSync(resolve(ctx.settings.db))) {
        throw new NoWarehouseError(ctx.settings.db, 'load', {
          next: 'gexwh sync creates the warehouse and loads what waits in the journal; gexwh rebuild recreates a lost one from the archive',
        });
      }
      const flags = withConfig('load', given, ctx.settings.config);
      // --accept-layout: the files a freeze held load, and their layouts are recorded as accepted.
      const schemaContract = flags.acceptLayout === true ? 'evolve' : (flags.schemaContract ?? 'evolve');
      const [{ loadWaiting }, { createTaskProgress }, { optionalManifestLister }] = await Promise.all([
        import('../../journal/load-pending.js'),
        import('../progress.js'),
        import('../api-client.js'),
      ]);
      // With a key, the journal's claims are checked against the API's manifest (requests, no credit).
      const api = optionalManifestLister(ctx);
      const progress = createTaskProgress(ctx, 'load');
      let result: Awaited<ReturnType<typeof loadWaiting>>;
      try {
        result = await loadWaiting({
          dbPath: ctx.settings.db,
          archiveRoot: ctx.settings.archive,
          waitSeconds: flags.waitLock ?? DEFAULT_WAIT_LOCK_SECONDS,
          signal: ctx.signal,
          onProgress: progress.onProgress,
          schemaContract,
          check: { ...(api !== undefined ? { list: api.list } : {}), trust: flags.trustJournal === true },
        });
      } finally {
        progress.done();
        await api?.close();
      }
      ctx.out.result(result, () =>
        [
          `load: ${result.filesLoaded} file(s) loaded from the archive's journal (${formatCount(result.rowsLoaded)} rows), ${result.filesFailed.length} failed, ` +
            (result.filesHeld.length > 0 ? `${result.filesHeld.length} held (a new layout; gexwh load --accept-layout loads them), ` : '') +
            `${result.manifestsStored} manifest listing(s), ${result.snapshotsLoaded} live snapshot(s) and ${result.runsRecorded} run record(s) stored; 0 credits, no network.`,
          ...result.filesFailed.map((f) => `  failed_load: ${f.exchange}/${f.symbol} ${f.sessionDate} ${f.file}: ${f.error}`),
          ...result.warnings.map((w) => `  note: ${w}`),
        ].join('\n'),
      );
      if (result.journalRefused !== undefined)
        throw new JournalFileRefusedError(`load: ${result.journalRefused}`, {
          hint: 'the paid files it listed are still in the archive: the next gexwh sync finds them there and loads them for 0 credits',
        });
      if (result.filesFailed.length > 0) {
        throw new PartialFailureError(`${result.filesFailed.length} file(s) failed to load; they stay archived (gexwh verify --repair, or rebuild)`);
      }
    });
}
