// How `gexwh query` writes a result as it comes: CSV, JSON and JSON lines batch by batch (one DuckDB
// chunk at a time, waiting whenever the pipe or the disk is behind), the table up to --max-rows
// with a count of what it left out. Text bound for a terminal goes through terminal.ts; CSV to a
// pipe or a file keeps its bytes.
import type { QueryRows } from '../warehouse/query.js';
import { formatCell, formatTable } from './output.js';
import { escapeJson, escapeLine } from './terminal.js';
import { instantInZone } from '../time/zones.js';

export const STREAM_FORMATS = ['csv', 'json', 'jsonl'] as const;
export type StreamFormat = (typeof STREAM_FORMATS)[number];

/** Takes text in order; resolves false once the reader went away (a closed pipe): stop writing. */
export interface TextSink {
  write(text: string): Promise<boolean>;
}

/** Writes every row in `format`; resolves to the rows written. `terminal`: escape controls in CSV cells. */
export async function writeRows(rows: QueryRows, format: StreamFormat, sink: TextSink, terminal: boolean): Promise<number> {
  const names = rows.columns.map((c) => c.name);
  const layout = LAYOUTS[format](names, terminal);
  let count = 0;
  if (!(await sink.write(layout.head))) return count;
  for await (const batch of rows.batches()) {
    const text = batch.map((values, i) => layout.row(values, count + i === 0)).join('');
    count += batch.length;
    if (!(await sink.write(text))) return count;
  }
  await sink.write(layout.tail(count));
  return count;
}

interface Layout {
  head: string;
  /** One row's text, with whatever separates it from the row before. */
  row(values: unknown[], first: boolean): string;
  tail(rows: number): string;
}

const LAYOUTS: Record<StreamFormat, (names: string[], terminal: boolean) => Layout> = {
  csv: (names, terminal) => {
    const cell = (value: unknown) => csvField(terminal ? escapeLine(csvText(value)) : csvText(value));
    return { head: `${names.map(cell).join(',')}\n`, row: (values) => `${values.map(cell).join(',')}\n`, tail: () => '' };
  },
  // The same text as JSON.stringify(rows, null, 2), one row at a time.
  json: (names) => ({
    head: '[',
    row: (values, first) => `${first ? '\n' : ',\n'}  ${escapeJson(JSON.stringify(rowObject(names, values), null, 2)).replaceAll('\n', '\n  ')}`,
    tail: (rows) => (rows === 0 ? ']\n' : '\n]\n'),
  }),
  jsonl: (names) => ({ head: '', row: (values) => `${escapeJson(JSON.stringify(rowObject(names, values)))}\n`, tail: () => '' }),
};

function rowObject(names: readonly string[], values: readonly unknown[]): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  names.forEach((name, i) => {
    row[name] = values[i] ?? null;
  });
  return row;
}

/** CSV keeps full precision (the table rounds for reading). */
function csvText(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (value instanceof Date) return value.toISOString();
  return formatCell(value);
}

function csvField(text: string): string {
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * The table: at most `maxRows` rows (undefined: all), then a line saying how many were left out. The
 * rest of the result is read to count it, never converted or held. A zone other than UTC (--tz) shows
 * the TIMESTAMPTZ cells in it; naive timestamps have no zone and stay as stored.
 */
export async function tableText(rows: QueryRows, maxRows: number | undefined, zone = 'UTC'): Promise<string> {
  const names = rows.columns.map((c) => c.name);
  const readable = rows.columns.map((c) =>
    zone !== 'UTC' && c.type === 'TIMESTAMP WITH TIME ZONE' ? inZone(zone) : /^TIMESTAMP/.test(c.type) ? readableTimestamp : undefined,
  );
  const shown: Array<Record<string, unknown>> = [];
  let leftOut = 0;
  for await (const batch of rows.batches()) {
    const room = maxRows === undefined ? batch.length : Math.max(0, maxRows - shown.length);
    for (const values of batch.slice(0, room))
      shown.push(
        rowObject(
          names,
          values.map((v, i) => readable[i]?.(v) ?? v),
        ),
      );
    if (room < batch.length) {
      leftOut = batch.length - room + (await rows.countRest());
      break;
    }
  }
  const table = formatTable(shown, names);
  if (shown.length === 0) return `${table}\n(0 rows)`;
  if (leftOut === 0) return table;
  const total = shown.length + leftOut;
  return `${table}\n(${count(shown.length)} of ${count(total)} rows shown, ${count(leftOut)} left out: --max-rows N shows more, 0 all; --format csv|jsonl or --out FILE gives every row)`;
}

/** A timestamp cell as people read it: `2026-03-10 23:45:00Z` (a naive one without the Z), no `.000`. */
function readableTimestamp(value: unknown): unknown {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}T/.test(value)) return value;
  return value.replace('T', ' ').replace(/\.000(Z?)$/, '$1');
}

/** A TIMESTAMPTZ cell (ISO text with Z) in the display zone: `2026-03-10 19:45:00 EDT`. */
function inZone(zone: string): (value: unknown) => unknown {
  return (value) => (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T.*Z$/.test(value) ? instantInZone(value, zone) : value);
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}
