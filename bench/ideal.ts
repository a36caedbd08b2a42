// The ideal pipeline, the yardstick of issue 7: list the manifest once, download every file in
// parallel with an inline sha256 into a folder, then ONE INSERT ... SELECT FROM read_csv([all files],
// columns=..., auto_detect=false) per table, then CHECKPOINT. Same schema as gexwh (openWarehouse),
// none of gexwh's bookkeeping (ledger, archive fsync, staging checks).
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pLimit from 'p-limit';
import { request } from 'undici';
import { mapHeader, parseHeaderLine, readGzipHeaderLine } from '../src/warehouse/csv-header.js';
import { openWarehouse } from '../src/warehouse/index.js';
import { insertFrom } from './select-sql.js';
import type { FileKind } from '../src/core/file-kinds.js';

export interface PeerTarget {
  baseUrl: string;
  key: string;
  exchange: string;
  symbol: string;
}

export interface ManifestEntry {
  session_date: string;
  file: FileKind;
  sha256: string;
  bytes: number;
  rows: number;
}

const KINDS: readonly FileKind[] = ['levels', 'strikes_total', 'strikes_by_expiry'];

/** One listing page (the bench's manifests fit in one: ≤ 400 rows). */
export async function listManifest(target: PeerTarget, since?: string): Promise<ManifestEntry[]> {
  const url = new URL(`${target.baseUrl}/api/v1/history/files/${target.exchange}/${target.symbol}`);
  if (since !== undefined) url.searchParams.set('start', since);
  const response = await request(url, { headers: { 'x-api-key': target.key } });
  if (response.statusCode !== 200) throw new Error(`manifest: HTTP ${response.statusCode}`);
  const json = (await response.body.json()) as { data: ManifestEntry[] };
  return json.data;
}

export function fileUrl(target: PeerTarget, entry: ManifestEntry): string {
  return `${target.baseUrl}/api/v1/history/files/${target.exchange}/${target.symbol}/${entry.session_date}/${entry.file}`;
}

/** GET the file path without following the redirect; returns the presigned link. */
async function presignedLink(target: PeerTarget, entry: ManifestEntry): Promise<string> {
  const response = await request(fileUrl(target, entry), { headers: { 'x-api-key': target.key } });
  await response.body.dump();
  const location = response.headers.location;
  if (response.statusCode !== 302 || typeof location !== 'string') throw new Error(`link: HTTP ${response.statusCode}`);
  return location;
}

async function downloadHashed(link: string, path: string): Promise<string> {
  const response = await request(link);
  if (response.statusCode !== 200) throw new Error(`storage: HTTP ${response.statusCode}`);
  const hash = createHash('sha256');
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  await pipeline(response.body, tap, createWriteStream(path));
  return hash.digest('hex');
}

export async function idealSync(target: PeerTarget, folder: string, dbPath: string, concurrency = 4): Promise<number> {
  const manifest = await listManifest(target);
  const limit = pLimit(concurrency);
  const paths = await Promise.all(
    manifest.map((entry) =>
      limit(async () => {
        const path = join(folder, `${entry.session_date}_${entry.file}.csv.gz`);
        const sha = await downloadHashed(await presignedLink(target, entry), path);
        if (sha !== entry.sha256) throw new Error(`sha256 mismatch for ${path}`);
        return { entry, path };
      }),
    ),
  );
  const warehouse = await openWarehouse(dbPath);
  let rows = 0;
  try {
    const conn = warehouse.connection;
    for (const kind of KINDS) {
      const files = paths.filter((p) => p.entry.file === kind).map((p) => p.path);
      if (files.length === 0) continue;
      const columns = mapHeader(kind, parseHeaderLine(await readGzipHeaderLine(files[0]!))).columns;
      const spec = columns.map((c) => `'${c.alias}': '${c.type}'`).join(', ');
      const list = files.map((_, i) => `$${i + 1}`).join(', ');
      const result = await conn.run(
        `${insertFrom(kind)} read_csv([${list}], header = true, auto_detect = false, delim = ',', quote = '"', escape = '"',
                                      columns = {${spec}}, compression = 'gzip')`,
        files,
      );
      rows += result.rowsChanged;
    }
    await conn.run('CHECKPOINT');
  } finally {
    warehouse.close();
  }
  return rows;
}
