// `gexwh rebuild`: the data tables from the raw archive alone, the live tables from the capture journal.
import type { Command } from 'commander';
import { IntegrityError } from '../../core/errors.js';
import { DEFAULT_WAIT_LOCK_SECONDS } from '../../journal/wait-lock.js';
import { contextOf } from '../context.js';
import { formatCount } from '../summary.js';

export function registerRebuild(program: Command): void {
  program
    .command('rebuild')
    .description('recreate the data tables from the raw archive alone (no network, no credit)')
    .action(async (flags: { waitLock?: number; force?: boolean }, command: Command) => {
      const ctx = contextOf(command);
      const [{ rebuildWarehouse }, { restoreLiveTables }, { createTaskProgress }] = await Promise.all([
        import('../../warehouse/index.js'),
        import('../../journal/load-pending.js'),
        import('../progress.js'),
      ]);
      const progress = createTaskProgress(ctx, 'rebuild');
      const result = await rebuildWarehouse({
        dbPath: ctx.settings.db,
        archiveRoot: ctx.settings.archive,
        lockWaitSeconds: flags.waitLock ?? 0,
        warehouseWaitSeconds: flags.waitLock ?? DEFAULT_WAIT_LOCK_SECONDS,
        force: flags.force === true,
        onProgress: progress.onProgress,
      }).finally(() => progress.done());
      // The live tables come back from the capture journal (<archive>/_live), as the data tables from the archive.
      const live = await restoreLiveTables({
        dbPath: ctx.settings.db,
        archiveRoot: ctx.settings.archive,
        waitSeconds: flags.waitLock ?? DEFAULT_WAIT_LOCK_SECONDS,
        signal: ctx.signal,
      });
      const liveRows = live.inserted.live_levels + live.inserted.term_structure + live.inserted.live_strikes;
      const fromArchive = result.source === 'archive';
      ctx.out.result({ ...result, live }, () =>
        [
          ...(result.replaced
            ? [
                `rebuild: ${ctx.settings.db} was not a warehouse of gexwh; kept as ${result.damagedCopies.join(' and ')} (--force); created from the archive alone.`,
              ]
            : result.damagedCopies.length > 0
              ? [
                  `rebuild: the warehouse ${ctx.settings.db} was damaged; kept as ${result.damagedCopies.join(' and ')}; recreated from the archive alone.`,
                  `  levels rows fetched by --fill-levels (source api), if any, are not archived: the next sync --fill-levels fetches them again.`,
                ]
              : fromArchive
                ? [`rebuild: no warehouse at ${ctx.settings.db}; created from the archive alone.`]
                : []),
          `rebuild: ${result.filesReloaded} file(s) ${fromArchive ? 'loaded' : 'reloaded'} from ${ctx.settings.archive} (${formatCount(result.rowsLoaded)} rows), ${result.orphanRowsRemoved} orphan row(s) removed, ${result.problems.length} problem(s).`,
          ...(live.snapshots > 0 ? [`rebuild: ${live.snapshots} journaled live snapshot(s) replayed, ${liveRows} missing live row(s) restored.`] : []),
          ...live.unreadable.map((path) => `  skipped (unreadable live snapshot): ${path}`),
          ...result.skipped.map((path) => `  skipped (not an archived daily file): ${path}`),
          ...result.problems.map((p) => `  ${p.kind}: ${p.exchange}/${p.symbol} ${p.session_date} ${p.file}: ${p.detail}`),
        ].join('\n'),
      );
      if (result.problems.length > 0) {
        const rows = fromArchive ? 'they are not in the warehouse' : 'their rows are as before';
        throw new IntegrityError(`${result.problems.length} archived file(s) could not be rebuilt; ${rows}`);
      }
    });
}
