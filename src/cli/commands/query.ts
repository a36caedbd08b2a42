// `gexwh query SQL`: one read-only statement on the sandboxed warehouse, printed as a table, or
// streamed as CSV, JSON or JSON lines, or written to a file (--out); cancelled by a signal or --timeout.
import type { Command } from 'commander';
import { UsageError } from '../../core/errors.js';
import type { QueryOptions } from '../../warehouse/query.js';
import { contextOf, type CommandContext } from '../context.js';
import { TERMINAL_MAX_ROWS } from '../options.js';
import { STREAM_FORMATS } from '../query-output.js';
import { withConfig } from '../option-use.js';

const QUERY_FORMATS = ['table', ...STREAM_FORMATS] as const;
type QueryFormat = (typeof QUERY_FORMATS)[number];

interface QueryFlags {
  format?: string;
  readDir?: string[];
  maxRows?: number;
  out?: string;
  force?: boolean;
  timeout?: number;
  tz?: string;
}

export function registerQuery(program: Command): void {
  program
    .command('query')
    .description('run one read-only SQL statement on the warehouse, sandboxed: print a table, stream CSV, JSON or JSON lines, or write a file')
    .argument('<sql>', 'the SQL text, e.g. "SELECT * FROM levels_close LIMIT 5"')
    .action(async (sql: string, flags: QueryFlags, cmd: Command) => {
      const ctx = contextOf(cmd);
      const options: QueryOptions = {
        readDirectories: flags.readDir ?? [],
        signal: ctx.signal,
        timeoutSeconds: withConfig('query', flags, ctx.settings.config).timeout ?? 0,
        onStart: () => ctx.out.debug('query: the statement is running (Ctrl-C cancels it)'),
      };
      if (flags.out !== undefined) {
        const { writeQueryFile } = await import('../query-file.js');
        const written = await writeQueryFile(ctx.settings.db, sql, { out: flags.out, force: flags.force === true, format: flags.format, options });
        ctx.out.result(
          written,
          () => `wrote ${written.rows.toLocaleString('en-US')} row(s) of ${written.columns} column(s) to ${written.out} (${written.format})`,
        );
        return;
      }
      if (flags.force) throw new UsageError('--force goes with --out FILE (it replaces an existing file)');
      const format = checkFormat(flags.format ?? (ctx.settings.json ? 'json' : 'table'));
      if (flags.maxRows !== undefined && format !== 'table')
        throw new UsageError(`--max-rows is for the table format; with --format ${format} every row is written (cut them with LIMIT)`);
      await printQuery(ctx, sql, format, { maxRows: flags.maxRows, zone: withConfig('query', flags, ctx.settings.config).tz ?? 'UTC' }, options);
    });
}

function checkFormat(format: string): QueryFormat {
  if (!(QUERY_FORMATS as readonly string[]).includes(format)) {
    throw new UsageError(`--format: unknown format "${format}"; allowed: ${QUERY_FORMATS.join(', ')}`);
  }
  return format as QueryFormat;
}

async function printQuery(
  ctx: CommandContext,
  sql: string,
  format: QueryFormat,
  { maxRows, zone }: { maxRows: number | undefined; zone: string },
  options: QueryOptions,
): Promise<void> {
  const [{ withQuery }, { tableText, writeRows }, { stdoutSink }] = await Promise.all([
    import('../../warehouse/query.js'),
    import('../query-output.js'),
    import('../stdout-sink.js'),
  ]);
  const terminal = process.stdout.isTTY === true;
  await withQuery(ctx.settings.db, sql, options, async (rows) => {
    if (format !== 'table') return void (await writeRows(rows, format, stdoutSink(rows.cancelled), terminal));
    const limit = maxRows ?? (terminal ? TERMINAL_MAX_ROWS : 0);
    const text = await tableText(rows, limit === 0 ? undefined : limit, zone);
    await stdoutSink(rows.cancelled).write(`${text}\n`);
  });
}
