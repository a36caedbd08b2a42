// `gexwh export`: the data and live tables as hive-partitioned Parquet (or CSV), incrementally, to a folder or s3://.
import type { Command } from 'commander';
import { contextOf } from '../context.js';
import { checkExportFlags, type ExportFlags } from '../export-flags.js';
import { formatTable } from '../output.js';
import { listOption } from '../parse.js';

export function registerExport(program: Command): void {
  program
    .command('export')
    .description('write the data and live tables as hive-partitioned Parquet (or CSV), incrementally, with views.sql and the runs')
    .requiredOption('--out <dir>', 'output folder, or s3://bucket/prefix (credentials from the AWS chain: env, profile, instance role)')
    .option('--format <format>', 'parquet or csv (default parquet)')
    .option('--table <list>', 'levels, strikes_total, strikes_by_expiry, live_levels, term_structure, live_strikes (default all)', listOption)
    .option('--since <date>', 'first session date, YYYY-MM-DD')
    .option('--until <date>', 'last session date, YYYY-MM-DD')
    .option('--exchange <list>', 'history venues (repeatable, comma list)', listOption)
    .option('--symbol <list>', 'symbols (repeatable, comma list)', listOption)
    .option('--full', 'rewrite every selected partition, not only new or changed sessions')
    .option('--s3-endpoint <url>', 'an S3-compatible endpoint for an s3:// --out (MinIO, R2, Ceph), e.g. http://localhost:9000 (default: AWS)')
    .option('--s3-force-path-style', 'address the bucket in the URL path (http://host/bucket/key), as most S3-compatible stores need')
    .action(async (flags: ExportFlags, command: Command) => {
      const ctx = contextOf(command);
      // Every given value is checked (an empty --since too), before any file is touched.
      const checked = checkExportFlags(flags);
      const [{ exportWarehouse }, { createTaskProgress }] = await Promise.all([import('../../export/export.js'), import('../progress.js')]);
      const progress = createTaskProgress(ctx, 'export');
      const result = await exportWarehouse({ dbPath: ctx.settings.db, ...checked, onProgress: progress.onProgress }).finally(() => progress.done());
      for (const warning of result.warnings) ctx.out.warn(warning);
      ctx.out.result(result, () =>
        [
          formatTable(result.tables as unknown as Record<string, unknown>[]),
          `export to ${result.outDir} (${result.format}): ${result.partitionsWritten} partition(s) written, ${result.partitionsSkipped} unchanged, ${result.partitionsRemoved} removed, ${result.rowsWritten} rows written; views.sql and _gexwh_export.json beside them.`,
        ].join('\n'),
      );
    });
}
