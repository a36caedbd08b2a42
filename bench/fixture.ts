// The emulator as the benchmark's server: in-process on loopback, port 0, with every daily file
// built before any timing (file generation is the emulator's cost, not the client's) and pinned in
// memory so no cache eviction can rebuild one mid-run.
import { mkdtempSync, promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type Emulator } from '../emulator/index.js';
import type { DailyFile, FileKind, MarketModel } from '../emulator/market/types.js';

export const BENCH_NOW = '2026-03-11T14:07:00Z';
export const EXCHANGE = 'deribit';
export const SYMBOL = 'BTC';
export const KINDS: readonly FileKind[] = ['levels', 'strikes_total', 'strikes_by_expiry'];

export interface FixtureOptions {
  sessions: number;
  expirations: number;
  strikes: number;
  now?: string;
  seed?: number;
}

export interface Fixture {
  emulator: Emulator;
  /** Completed session dates, newest first. */
  sessions: string[];
  /** The unlimited key: the benchmark measures speed, not the quota. */
  key: string;
  /** Total gzip bytes and rows of the pinned files. */
  bytes: number;
  rows: number;
  /** Builds and pins the files of more sessions (e.g. the day after the clock moves). */
  prebuild(dates: readonly string[]): void;
  close(): Promise<void>;
}

export function isoDaysBefore(iso: string, days: number): string {
  return new Date(Date.parse(`${iso.slice(0, 10)}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10);
}

/** Wraps market.dailyFile with an unbounded map (the model's own cache is bounded). */
function pinDailyFiles(market: MarketModel): void {
  const build = market.dailyFile.bind(market);
  const pinned = new Map<string, DailyFile>();
  market.dailyFile = (exchange, symbol, sessionDate, kind, revision) => {
    const key = `${exchange}|${symbol}|${sessionDate}|${kind}|${revision}`;
    let file = pinned.get(key);
    if (file === undefined) {
      file = build(exchange, symbol, sessionDate, kind, revision);
      pinned.set(key, file);
    }
    return file;
  };
}

export async function startFixture(options: FixtureOptions): Promise<Fixture> {
  const now = options.now ?? BENCH_NOW;
  const emulator = await startEmulator({
    now,
    days: options.sessions,
    expirations: options.expirations,
    strikes: options.strikes,
    seed: options.seed ?? 7,
    symbols: [SYMBOL],
  });
  pinDailyFiles(emulator.market);
  const sessions = Array.from({ length: options.sessions }, (_, i) => isoDaysBefore(now, i + 1));
  const prebuild = (dates: readonly string[]) => {
    let bytes = 0;
    let rows = 0;
    for (const date of dates) {
      for (const kind of KINDS) {
        const file = emulator.market.dailyFile(EXCHANGE, SYMBOL, date, kind, 0);
        bytes += file.bytes.length;
        rows += file.rows;
      }
    }
    return { bytes, rows };
  };
  const { bytes, rows } = prebuild(sessions);
  return { emulator, sessions, key: emulator.keys.admin, bytes, rows, prebuild, close: () => emulator.close() };
}

/** A fresh temp folder; remove it with removeDir. */
export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `gexwh-bench-${prefix}-`));
}

export async function removeDir(dir: string): Promise<void> {
  await fs.rm(dir, { recursive: true, force: true });
}
