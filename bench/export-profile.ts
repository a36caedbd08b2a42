// `node dist/bench/export-profile.js --db <copy of a scale warehouse> [--sessions N] [--out DIR]`:
// where an export's time goes. Every statement the export runs on its connections is timed (a Proxy
// around each), then grouped by kind (partitioned COPY, ledger, listing ...): first a full export
// into a new folder, then N incremental ones, each after loading one new session of the 4 pairs (the
// emulator's files) as a nightly sync would. The tables are written at once on connections of their
// own, so the statements' times overlap: their sum can pass the wall time. Each export's total
// counts opening and closing the warehouse too, as `gexwh export` pays them. `--out DIR` keeps the export folder between calls: a
// folder the warehouse's ledger already holds skips the full export (minutes at 24 months), so the
// incremental cases can be profiled again and again. The warehouse is written to: run it on a copy.
import { existsSync, mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { exportOn, normalizeExportOptions, type ExportResult } from '../src/export/export.js';
import { loadFiles, openWarehouse } from '../src/warehouse/index.js';
import { KINDS, removeDir, tempDir } from './fixture.js';
import { emulatorSession } from './scale-extras.js';
import { DEFAULT_SHAPE } from './scale-warehouse.js';
import { isNyseTradingDay } from '../src/calendar/nyse.js';

interface Spent {
  ms: number;
  count: number;
}

/** A statement's kind, from its first words: what the profile groups by. */
export function statementKind(sql: string): string {
  const text = sql.trim().replace(/\s+/g, ' ');
  if (/^COPY \(SELECT \* REPLACE/.test(text)) return 'COPY runs file';
  if (/^COPY .*PARTITION_BY/.test(text)) return 'COPY partitioned';
  if (/^COPY /.test(text)) return 'COPY one partition';
  if (/^INSERT OR REPLACE INTO sync\.exports/.test(text)) return 'ledger rows';
  if (/^DELETE FROM sync\.exports/.test(text)) return 'ledger removals';
  if (/^SET |^RESET /.test(text)) return 'settings';
  if (/FROM sync\.files/.test(text)) return 'partitions (ledger)';
  if (/GROUP BY exchange, symbol, session_date/.test(text)) return 'partitions (scan)';
  if (/FROM sync\.exports/.test(text)) return 'exported (ledger)';
  return 'other queries';
}

function timedConnection(conn: DuckDBConnection, spent: Map<string, Spent>): DuckDBConnection {
  return new Proxy(conn, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      if (prop !== 'run' && prop !== 'runAndReadAll') return value.bind(target);
      return async (sql: string, ...rest: unknown[]) => {
        const start = performance.now();
        try {
          return await (value as (...args: unknown[]) => Promise<unknown>).call(target, sql, ...rest);
        } finally {
          const kind = statementKind(sql);
          const entry = spent.get(kind) ?? { ms: 0, count: 0 };
          entry.ms += performance.now() - start;
          entry.count += 1;
          spent.set(kind, entry);
        }
      };
    },
  });
}

async function profiledExport(db: string, outDir: string, label: string, log: (line: string) => void): Promise<void> {
  const opening = performance.now();
  const warehouse = await openWarehouse(db);
  const opened = performance.now();
  const spent = new Map<string, Spent>();
  let result: ExportResult;
  let exported: number;
  try {
    result = await exportOn(timedConnection(warehouse.connection, spent), normalizeExportOptions({ outDir, tables: [...KINDS] }), {
      connect: async () => timedConnection(await warehouse.connect(), spent),
    });
    exported = performance.now();
  } finally {
    warehouse.close();
  }
  const closed = performance.now();
  log(
    `${label}: ${Math.round(exported - opened)} ms, ${result.partitionsWritten} partitions written, ${result.partitionsSkipped} unchanged, load ${loadavg()[0]!.toFixed(1)}`,
  );
  for (const [kind, s] of [...spent.entries()].sort((a, b) => b[1].ms - a[1].ms)) log(`  ${kind}: ${Math.round(s.ms)} ms in ${s.count} statements`);
  log(`  opening the warehouse ${Math.round(opened - opening)} ms, closing it ${Math.round(closed - exported)} ms: ${Math.round(closed - opening)} ms in all`);
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const value = (flag: string) => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : undefined);
  const db = value('--db');
  if (db === undefined) throw new Error('--db <copy of a scale warehouse> is required (it is written to)');
  const sessions = Number(value('--sessions') ?? 2);
  const kept = value('--out');
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const scratch = tempDir('export-profile');
  try {
    const outDir = kept ?? join(scratch, 'out');
    if (kept === undefined || !existsSync(join(kept, '_gexwh_export.json'))) await profiledExport(db, outDir, 'full export', log);
    await profiledExport(db, outDir, 'nothing new', log);
    let date = await lastSession(db);
    for (let i = 0; i < sessions; i++) {
      date = nextTradfiSession(date);
      const files = join(scratch, `files-${i}`);
      mkdirSync(files, { recursive: true });
      const inputs = emulatorSession(files, date, DEFAULT_SHAPE);
      const warehouse = await openWarehouse(db);
      try {
        await loadFiles(warehouse.connection, inputs);
      } finally {
        warehouse.close();
      }
      await profiledExport(db, outDir, `one new session ${date} (${inputs.length} files)`, log);
    }
  } finally {
    await removeDir(scratch);
  }
}

/** The next NYSE trading day: a session of all 4 pairs (12 files), as most nights are. */
function nextTradfiSession(after: string): string {
  let date = after;
  do date = new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  while (!isNyseTradingDay(date));
  return date;
}

/** The warehouse's last session, and never before 2027-05-31 (new sessions stay clear of the scale warehouse's dates). */
async function lastSession(db: string): Promise<string> {
  const warehouse = await openWarehouse(db);
  try {
    const reader = await warehouse.connection.runAndReadAll(`SELECT (greatest(max(session_date), DATE '2027-05-31'))::VARCHAR AS d FROM levels`);
    return String(reader.getRowObjectsJS()[0]?.d);
  } finally {
    warehouse.close();
  }
}

await main();
