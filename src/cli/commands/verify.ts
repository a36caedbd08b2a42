// `gexwh verify [--repair]`: archived files re-hashed against the ledger and manifest, loaded rows re-counted.
import type { Command } from 'commander';
import { IntegrityError } from '../../core/errors.js';
import { contextOf } from '../context.js';

export function registerVerify(program: Command): void {
  program
    .command('verify')
    .description('re-hash archived files against the ledger and manifest, re-count loaded rows; exit 4 on any mismatch')
    .action(async (flags: { repair?: boolean; waitLock?: number }, command: Command) => {
      const ctx = contextOf(command);
      const [{ verifyWarehouse }, { nextStepFor }, { createTaskProgress }] = await Promise.all([
        import('../../warehouse/index.js'),
        import('../../warehouse/verify-advice.js'),
        import('../progress.js'),
      ]);
      const repair = flags.repair === true;
      const progress = createTaskProgress(ctx, 'verify');
      const found = await verifyWarehouse({
        dbPath: ctx.settings.db,
        archiveRoot: ctx.settings.archive,
        repair,
        lockWaitSeconds: flags.waitLock ?? 0,
        onProgress: progress.onProgress,
      }).finally(() => progress.done());
      // Each problem left says what to do about it, in the text and in the JSON (`next`).
      const problems = found.problems.map((p) => ({ ...p, next: nextStepFor(p, repair) }));
      const report = { ...found, problems };
      ctx.out.result(report, () =>
        [
          `verify: ${report.checked} file(s) checked, ${problems.length} problem(s)${repair ? `, ${report.repaired.length} repaired` : ''}.`,
          ...report.repaired.map((p) => `  repaired ${p.kind}: ${p.exchange}/${p.symbol} ${p.session_date} ${p.file}: ${p.detail}`),
          ...problems.flatMap((p) => [`  ${p.kind}: ${p.exchange}/${p.symbol} ${p.session_date} ${p.file}: ${p.detail}`, `    next: ${p.next}`]),
        ].join('\n'),
      );
      if (problems.length > 0) throw new IntegrityError(verdictOf(problems, report.checked, repair, ctx.settings.archive));
    });
}

/** The closing line: a wrong --archive (every copy missing) is said as such; otherwise, where to look. */
function verdictOf(problems: readonly { kind: string }[], checked: number, repair: boolean, archive: string): string {
  if (checked > 0 && problems.length >= checked && problems.every((p) => p.kind === 'missing_archive')) {
    return `every archived file is missing from ${archive}: is --archive the folder the syncs wrote to? (nothing was changed)`;
  }
  const each = 'each says what to do next';
  return `${problems.length} problem(s) found${repair ? ` that the archive could not repair; ${each}` : `; ${each} (gexwh verify --repair fixes those it can from the archive)`}`;
}
