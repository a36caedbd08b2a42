// Archive-shaped fixtures for rebuild and verify: files at their canonical archive paths
// (<archive>/<exchange>/<symbol>/<date>_<file>.csv.gz), loaded through the real loader.
import { dirname } from 'node:path';
import { mkdirSync } from 'node:fs';
import { basename } from 'node:path';
import { expect } from 'vitest';
import { loadFiles, type LoadInput } from '../../src/warehouse/loader.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/open.js';
import { query, writeFixture, type FixtureOptions, type Market } from './fixtures.js';
import { FILE_KINDS, type FileKind } from '../../src/core/file-kinds.js';
import { archivePath } from '../../src/core/archive/layout.js';

export function writeArchived(archive: string, kind: FileKind, market: Market, options: FixtureOptions = {}): LoadInput {
  const path = archivePath(archive, market.exchange, market.symbol, market.sessionDate, kind);
  mkdirSync(dirname(path), { recursive: true });
  const input = writeFixture(dirname(path), kind, market, { ...options, name: basename(path) });
  return { ...input, archivePath: path };
}

export async function withDb<T>(dbPath: string, fn: (wh: Warehouse) => Promise<T>): Promise<T> {
  const wh = await openWarehouse(dbPath);
  try {
    return await fn(wh);
  } finally {
    wh.close();
  }
}

/** Archives every kind of every market and loads them all. */
export async function seedArchive(dbPath: string, archive: string, markets: readonly Market[]): Promise<LoadInput[]> {
  const inputs = markets.flatMap((market) => FILE_KINDS.map((kind) => writeArchived(archive, kind, market)));
  await withDb(dbPath, async (wh) => {
    const report = await loadFiles(wh.connection, inputs);
    expect(report.failed).toEqual([]);
  });
  return inputs;
}

/** Row count and an order-independent content checksum per data table. */
export async function tableChecksums(wh: Warehouse): Promise<Record<string, unknown>> {
  const sums: Record<string, unknown> = {};
  for (const table of FILE_KINDS) {
    const [row] = await query(wh, `SELECT count(*)::INTEGER AS n, coalesce(sum(hash(t)), 0)::VARCHAR AS h FROM ${table} t`);
    sums[table] = row;
  }
  return sums;
}
