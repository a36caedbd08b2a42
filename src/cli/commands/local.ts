// Commands that work on the local warehouse and archive only (no network, no credit):
// `query`, `export`, `load`, `rebuild`, `verify`.
import type { Command } from 'commander';
import { IntegrityError, PartialFailureError, UsageError } from '../../core/errors.js';
import { exportWarehouse, rebuildWarehouse, runQuery, verifyWarehouse, type QueryResult } from '../../warehouse/index.js';
import { DEFAULT_WAIT_LOCK_SECONDS, loadWaiting, restoreLiveTables } from '../../sync/load-pending.js';
import { contextOf } from '../context.js';
import { formatCell, formatTable } from '../output.js';
import { escapeJson } from '../terminal.js';
import { createExportProgress } from '../progress.js';
import { collectOption, integerOption, listOption } from '../parse.js';

const QUERY_FORMATS = ['table', 'csv', 'json'] as const;

interface ExportFlags {
  out: string;
  format?: string;
  table?: string[];
  since?: string;
  until?: string;
  exchange?: string[];
  symbol?: string[];
  full?: boolean;
  s3Endpoint?: string;
  s3ForcePathStyle?: boolean;
}

export function registerLocal(program: Command): void {
  program
    .command('query')
    .description('run one read-only SQL statement on the warehouse, sandboxed, and print a table, CSV or JSON')
    .argument('<sql>', 'the SQL text, e.g. "SELECT * FROM levels_close LIMIT 5"')
    .option('--format <format>', 'table, csv or json (default table; json also with --json)')
    .option('--read-dir <folder>', 'also let the SQL read files under this folder, e.g. an export (repeatable; never writes; default: none, only the warehouse)', collectOption)
    .action(async (sql: string, flags: { format?: string; readDir?: string[] }, command: Command) => {
      const ctx = contextOf(command);
      const format = flags.format ?? (ctx.settings.json ? 'json' : 'table');
      if (!(QUERY_FORMATS as readonly string[]).includes(format)) {
        throw new UsageError(`--format: unknown format "${format}"; allowed: ${QUERY_FORMATS.join(', ')}`);
      }
      const result = await runQuery(ctx.settings.db, sql, { readDirectories: flags.readDir ?? [] });
      process.stdout.write(`${renderQuery(result, format as (typeof QUERY_FORMATS)[number])}\n`);
    });

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
      if ((flags.s3Endpoint !== undefined || flags.s3ForcePathStyle) && !/^s3:\/\//i.test(flags.out)) {
        throw new UsageError('export: --s3-endpoint and --s3-force-path-style apply to an s3://bucket/prefix --out only');
      }
      if (flags.s3Endpoint !== undefined && !/^https?:\/\/[^/\s]+/i.test(flags.s3Endpoint)) {
        throw new UsageError(`export: --s3-endpoint must be an http(s) URL, e.g. http://localhost:9000; got "${flags.s3Endpoint}"`);
      }
      const progress = createExportProgress(ctx);
      // Every given value goes to the validation (an empty --since too), before any file is touched.
      const result = await exportWarehouse({
        dbPath: ctx.settings.db,
        outDir: flags.out,
        ...(flags.format !== undefined ? { format: flags.format as 'parquet' } : {}),
        ...(flags.table ? { tables: flags.table } : {}),
        ...(flags.since !== undefined ? { since: flags.since } : {}),
        ...(flags.until !== undefined ? { until: flags.until } : {}),
        ...(flags.exchange ? { exchanges: flags.exchange } : {}),
        ...(flags.symbol ? { symbols: flags.symbol.map((s) => s.toUpperCase()) } : {}),
        full: flags.full === true,
        s3: { ...(flags.s3Endpoint !== undefined ? { endpoint: flags.s3Endpoint } : {}), forcePathStyle: flags.s3ForcePathStyle === true },
        onProgress: progress.onProgress,
      }).finally(() => progress.done());
      ctx.out.result(result, () =>
        [
          formatTable(result.tables as unknown as Record<string, unknown>[]),
          `export to ${result.outDir} (${result.format}): ${result.partitionsWritten} partition(s) written, ${result.partitionsSkipped} unchanged, ${result.partitionsRemoved} removed, ${result.rowsWritten} rows written; views.sql and _gexwh_export.json beside them.`,
        ].join('\n'),
      );
    });

  program
    .command('load')
    .description("load the paid files a sync archived but could not load (the warehouse was held): no network, no credit")
    .option('--wait-lock <seconds>', `wait up to N seconds for another process to let the warehouse go (default ${DEFAULT_WAIT_LOCK_SECONDS})`, integerOption(0, 86_400))
    .action(async (flags: { waitLock?: number }, command: Command) => {
      const ctx = contextOf(command);
      const result = await loadWaiting({ dbPath: ctx.settings.db, archiveRoot: ctx.settings.archive, waitSeconds: flags.waitLock ?? DEFAULT_WAIT_LOCK_SECONDS, signal: ctx.signal });
      ctx.out.result(result, () =>
        [
          `load: ${result.filesLoaded} file(s) loaded from the archive's journal (${result.rowsLoaded} rows), ${result.filesFailed.length} failed, ` +
            `${result.manifestsStored} manifest listing(s), ${result.snapshotsLoaded} live snapshot(s) and ${result.runsRecorded} run record(s) stored; 0 credits, no network.`,
          ...result.filesFailed.map((f) => `  failed_load: ${f.exchange}/${f.symbol} ${f.sessionDate} ${f.file}: ${f.error}`),
          ...result.warnings.map((w) => `  note: ${w}`),
        ].join('\n'),
      );
      if (result.filesFailed.length > 0) {
        throw new PartialFailureError(`${result.filesFailed.length} file(s) failed to load; they stay archived (gexwh verify --repair, or rebuild)`);
      }
    });

  program
    .command('rebuild')
    .description('recreate the data tables from the raw archive alone (no network, no credit)')
    .option('--wait-lock <seconds>', `wait up to N seconds for another process holding the warehouse (default ${DEFAULT_WAIT_LOCK_SECONDS}) or a running sync (default: exit 5 at once)`, integerOption(0, 86_400))
    .action(async (flags: { waitLock?: number }, command: Command) => {
      const ctx = contextOf(command);
      const result = await rebuildWarehouse({
        dbPath: ctx.settings.db,
        archiveRoot: ctx.settings.archive,
        lockWaitSeconds: flags.waitLock ?? 0,
        warehouseWaitSeconds: flags.waitLock ?? DEFAULT_WAIT_LOCK_SECONDS,
      });
      // The live tables come back from the capture journal (<archive>/_live), as the data tables from the archive.
      const live = await restoreLiveTables({ dbPath: ctx.settings.db, archiveRoot: ctx.settings.archive, waitSeconds: flags.waitLock ?? DEFAULT_WAIT_LOCK_SECONDS, signal: ctx.signal });
      const liveRows = live.inserted.live_levels + live.inserted.term_structure + live.inserted.live_strikes;
      const fromArchive = result.source === 'archive';
      ctx.out.result({ ...result, live }, () =>
        [
          ...(result.damagedCopies.length > 0
            ? [`rebuild: the warehouse ${ctx.settings.db} was damaged; kept as ${result.damagedCopies.join(' and ')}; recreated from the archive alone.`,
               `  levels rows fetched by --fill-levels (source api), if any, are not archived: the next sync --fill-levels fetches them again.`]
            : fromArchive ? [`rebuild: no warehouse at ${ctx.settings.db}; created from the archive alone.`] : []),
          `rebuild: ${result.filesReloaded} file(s) ${fromArchive ? 'loaded' : 'reloaded'} from ${ctx.settings.archive} (${result.rowsLoaded} rows), ${result.orphanRowsRemoved} orphan row(s) removed, ${result.problems.length} problem(s).`,
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

  program
    .command('verify')
    .description('re-hash archived files against the ledger and manifest, re-count loaded rows; exit 4 on any mismatch')
    .option('--repair', 'reload files whose archive copy is intact')
    .option('--wait-lock <seconds>', 'with --repair: wait for a running sync (default: exit 5 at once)', integerOption(0, 86_400))
    .action(async (flags: { repair?: boolean; waitLock?: number }, command: Command) => {
      const ctx = contextOf(command);
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

function renderQuery(result: QueryResult, format: 'table' | 'csv' | 'json'): string {
  if (format === 'json') return escapeJson(JSON.stringify(result.rows, null, 2));
  const names = result.columns.map((c) => c.name);
  if (format === 'table') return formatTable(result.rows, names);
  const escape = (value: unknown) => {
    const text = formatCsvCell(value);
    return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  };
  return [names.map(escape).join(','), ...result.rows.map((row) => names.map((n) => escape(row[n])).join(','))].join('\n');
}

function formatCsvCell(value: unknown): string {
  // CSV keeps full precision (the table rounds for reading).
  if (typeof value === 'number') return String(value);
  return formatCell(value);
}
