// `gexwh verify [--repair]`: archived files re-hashed against the ledger and manifest, loaded rows re-counted.
import type { Command } from 'commander';
import { IntegrityError } from '../../core/errors.js';
import { contextOf } from '../context.js';
import { integerOption } from '../parse.js';

export function registerVerify(program: Command): void {
  program
    .command('verify')
    .description('re-hash archived files against the ledger and manifest, re-count loaded rows; exit 4 on any mismatch')
    .option('--repair', 'reload files whose archive copy is intact')
    .option('--wait-lock <seconds>', 'with --repair: wait for a running sync (default: exit 5 at once)', integerOption(0, 86_400))
    .action(async (flags: { repair?: boolean; waitLock?: number }, command: Command) => {
      const ctx = contextOf(command);
      const { verifyWarehouse } = await import('../../warehouse/index.js');
      const report = await verifyWarehouse({ dbPath: ctx.settings.db, archiveRoot: ctx.settings.archive, repair: flags.repair === true, lockWaitSeconds: flags.waitLock ?? 0 });
      ctx.out.result(report, () =>
        [
          `verify: ${report.checked} file(s) checked, ${report.problems.length} problem(s)${flags.repair ? `, ${report.repaired.length} repaired` : ''}.`,
          ...report.repaired.map((p) => `  repaired ${p.kind}: ${p.exchange}/${p.symbol} ${p.session_date} ${p.file}: ${p.detail}`),
          ...report.problems.map((p) => `  ${p.kind}: ${p.exchange}/${p.symbol} ${p.session_date} ${p.file}: ${p.detail}`),
        ].join('\n'),
      );
      if (report.problems.length > 0) {
        throw new IntegrityError(`${report.problems.length} problem(s) found${flags.repair ? ' that the archive could not repair' : '; run gexwh verify --repair'}`);
      }
    });
}
