// The download stage alone against an emulator: the planned files of one pair from its manifest, and
// fetchFiles with the sync's real downloader and client (instant retries, as the sync benches'). The
// fault matrices run here, one layer below a whole sync: no warehouse, no plan, the same requests.
import { expect } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import { createApiClient } from '../../src/api/index.js';
import type { FileKind } from '../../src/core/file-kinds.js';
import { hashFile } from '../../src/core/hash.js';
import type { PlannedFile } from '../../src/core/rows.js';
import { syncApiFrom } from '../../src/sync/api-port.js';
import { fetchFiles, type FetchReport } from '../../src/sync/fetch.js';
import { listFiles } from './sync.js';

/** The emulator's manifest of one pair as planned files (asked with the admin key: the pro key's counters stay clean). */
export async function manifestOf(emulator: Emulator, exchange = 'deribit', symbol = 'BTC'): Promise<PlannedFile[]> {
  const response = await fetch(`${emulator.baseUrl}/api/v1/history/files/${exchange}/${symbol}`, { headers: { 'x-api-key': emulator.keys.admin } });
  const page = (await response.json()) as {
    data: { session_date: string; file: FileKind; sha256: string; bytes: number; rows: number; schema_version: number }[];
  };
  return page.data.map((row) => ({
    exchange,
    symbol,
    sessionDate: row.session_date,
    file: row.file,
    sha256: row.sha256,
    bytes: row.bytes,
    rows: row.rows,
    schemaVersion: row.schema_version,
  }));
}

/** fetchFiles over `files` into `archive` with the pro key (concurrency 4, the sync's default). */
export async function fetchStage(emulator: Emulator, archive: string, files: readonly PlannedFile[]): Promise<FetchReport> {
  const client = createApiClient({ baseUrl: emulator.baseUrl, apiKey: emulator.keys.pro, retry: { baseDelayMs: 1, maxDelayMs: 5 } });
  try {
    const api = syncApiFrom(client);
    return await fetchFiles(files, { archiveRoot: archive, concurrency: 4, download: api.download, quotaStopOf: api.quotaStopOf });
  } finally {
    await client.close();
  }
}

/** The archive holds exactly the verified files, each byte for byte the manifest's: nothing partial, no temp file. */
export async function expectArchiveHoldsOnly(archive: string, report: FetchReport): Promise<void> {
  expect((await listFiles(archive)).sort()).toEqual(report.verified.map((f) => f.archivePath).sort());
  for (const file of report.verified) expect(hashFile(file.archivePath)).toEqual({ sha256: file.sha256, bytes: file.bytes });
}
