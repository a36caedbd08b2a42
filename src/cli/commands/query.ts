// `gexwh query SQL`: one read-only statement on the sandboxed warehouse, as a table, CSV or JSON.
import type { Command } from 'commander';
import { UsageError } from '../../core/errors.js';
import type { QueryResult } from '../../warehouse/index.js';
import { contextOf } from '../context.js';
import { formatCell, formatTable } from '../output.js';
import { escapeJson } from '../terminal.js';
import { collectOption } from '../parse.js';

const QUERY_FORMATS = ['table', 'csv', 'json'] as const;

export function registerQuery(program: Command): void {
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
      const { runQuery } = await import('../../warehouse/index.js');
      const result = await runQuery(ctx.settings.db, sql, { readDirectories: flags.readDir ?? [] });
      process.stdout.write(`${renderQuery(result, format as (typeof QUERY_FORMATS)[number])}\n`);
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
