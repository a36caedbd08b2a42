// Export to a real S3 server (s3rver in process, behind a proxy that can cut the network): a fresh
// export, an incremental one, an upload cut mid-way and resumed without sending the verified objects
// again, and the objects read back and compared row for row with the warehouse. The CLI's refusals
// (wrong credentials: exit 3; no such bucket: exit 2) run the CLI's code in this process.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ObjectStoreAuthError, ObjectStoreBucketError, ObjectStoreError } from '../../src/core/errors.js';
import { exportWarehouse, type ExportOptions } from '../../src/export/export.js';
import { MANIFEST_FILE } from '../../src/export/manifest.js';
import { s3Client } from '../../src/export/s3.js';
import { FILE_KINDS } from '../../src/core/file-kinds.js';
import { loadFiles, type LoadInput } from '../../src/warehouse/loader.js';
import { openWarehouse } from '../../src/warehouse/open.js';
import { runCliInProcess } from '../helpers/cli.js';
import { restoredEachTest } from '../helpers/restored-dir.js';
import { S3_KEY, startLocalS3, type LocalS3 } from '../helpers/s3.js';
import { BTC, query, writeFixture, type Market } from '../warehouse/fixtures.js';

const BUCKET = 'gex-share';
const SESSIONS: Market[] = ['2026-11-16', '2026-11-17', '2026-11-18', '2026-11-19', '2026-11-20'].map((sessionDate) => ({ ...BTC, sessionDate }));
const SPY: Market = { exchange: 'tradfi', symbol: 'SPY', sessionDate: '2026-11-20' };
/** Objects every run rewrites: runs/data.parquet, views.sql, trino.sql, athena.sql, spark.sql, clickhouse.sql, the manifest. */
const EVERY_RUN = 7;
const GEX_KEY = 'gex_live_TESTKEY_never_to_the_store_0123456789';

let s3: LocalS3;
let client: S3Client;
let dir: string;
let dbPath: string;
const saved: Record<string, string | undefined> = {};

beforeAll(async () => {
  s3 = await startLocalS3([BUCKET]);
  for (const [name, value] of Object.entries({ ...S3_KEY, GEX_API_KEY: GEX_KEY })) {
    saved[name] = process.env[name];
    process.env[name] = value;
  }
  client = s3Client({ endpoint: s3.endpoint, forcePathStyle: true });
}, 60_000);

afterAll(async () => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  client?.destroy();
  await s3?.close();
});

// Every test starts from the same loaded warehouse, built once per file (each exports to its own prefix).
const loaded = restoredEachTest(async (folder) => {
  dir = folder;
  dbPath = join(dir, 'gex.duckdb');
  await load([...SESSIONS, SPY]);
});

beforeEach(() => {
  dir = loaded.path;
  dbPath = join(dir, 'gex.duckdb');
  s3.cutAfterPuts(null);
});

async function load(markets: Market[]): Promise<void> {
  const wh = await openWarehouse(dbPath);
  try {
    const report = await loadFiles(
      wh.connection,
      markets.flatMap((m) => FILE_KINDS.map((kind): LoadInput => writeFixture(dir, kind, m, { name: `${m.symbol}-${m.sessionDate}-${kind}.csv.gz` }))),
    );
    expect(report.failed).toEqual([]);
  } finally {
    wh.close();
  }
}

const exportTo = (prefix: string, extra: Partial<ExportOptions> = {}) =>
  exportWarehouse({ dbPath, outDir: `s3://${BUCKET}/${prefix}`, s3: { endpoint: s3.endpoint, forcePathStyle: true, maxAttempts: 2 }, ...extra });

async function objectText(key: string): Promise<string> {
  const object = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  return object.Body!.transformToString('utf8');
}

/** Downloads every object under the prefix into a local folder; returns the keys, relative. */
async function download(prefix: string, into: string): Promise<Map<string, Buffer>> {
  const objects = new Map<string, Buffer>();
  let token: string | undefined;
  do {
    const page = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `${prefix}/`, ContinuationToken: token }));
    for (const entry of page.Contents ?? []) {
      const object = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: entry.Key! }));
      const bytes = Buffer.from(await object.Body!.transformToByteArray());
      const relative = entry.Key!.slice(prefix.length + 1);
      objects.set(relative, bytes);
      mkdirSync(dirname(join(into, relative)), { recursive: true });
      writeFileSync(join(into, relative), bytes);
    }
    token = page.NextContinuationToken;
  } while (token);
  return objects;
}

interface Manifest {
  warehouse_version: number;
  exported_at: string;
  tables: Record<string, { objects: number; rows: number }>;
  objects: Array<{ table: string | null; path: string; rows: number | null; bytes: number | null; sha256: string | null }>;
}

/** Every object is in the manifest with its sha256, and every table reads back as the warehouse's rows. */
async function expectSameAsWarehouse(prefix: string): Promise<Manifest> {
  const local = join(dir, `download-${prefix.replaceAll('/', '_')}`);
  const objects = await download(prefix, local);
  const manifest = JSON.parse(objects.get(MANIFEST_FILE)!.toString('utf8')) as Manifest;
  expect(new Set(manifest.objects.map((o) => o.path))).toEqual(new Set([...objects.keys()].filter((key) => key !== MANIFEST_FILE)));
  for (const object of manifest.objects) {
    const bytes = objects.get(object.path)!;
    expect({ path: object.path, sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length }).toEqual({
      path: object.path,
      sha256: object.sha256,
      bytes: object.bytes,
    });
  }
  const wh = await openWarehouse(dbPath, { readOnly: true });
  try {
    for (const table of FILE_KINDS) {
      const source = `read_parquet('${join(local, table, '**', '*.parquet')}', hive_partitioning = true)`;
      const differing = await query(
        wh,
        `SELECT count(*)::INTEGER AS n FROM (
          (SELECT * FROM ${table} EXCEPT ALL SELECT * FROM ${source}) UNION ALL (SELECT * FROM ${source} EXCEPT ALL SELECT * FROM ${table}))`,
      );
      expect({ table, differing }).toEqual({ table, differing: [{ n: 0 }] });
      const [count] = await query(wh, `SELECT count(*)::INTEGER AS n FROM ${table}`);
      expect(manifest.tables[table]?.rows).toBe(count?.n);
    }
  } finally {
    wh.close();
  }
  return manifest;
}

describe('export to S3', () => {
  it('fresh: every partition, the runs, views.sql and the manifest; read back row for row; the GEX key never sent', async () => {
    const before = s3.seen.length;
    const result = await exportTo('fresh');
    expect(result.outDir).toBe(`s3://${BUCKET}/fresh`);
    expect(result.partitionsWritten).toBe(6 * 3);
    const manifest = await expectSameAsWarehouse('fresh');
    expect(manifest.objects.filter((o) => o.table === 'levels')).toHaveLength(6);
    expect(manifest.warehouse_version).toBeGreaterThanOrEqual(51);
    const views = await objectText('fresh/views.sql');
    expect(views).toContain(`read_parquet('s3://${BUCKET}/fresh/levels/*/*/*/*.parquet'`);
    // The manifest is the last object written.
    const puts = s3.seen.slice(before).filter((r) => r.method === 'PUT');
    expect(puts.at(-1)?.url).toContain(MANIFEST_FILE);
    const everything = JSON.stringify(s3.seen);
    expect(everything).not.toContain(GEX_KEY);
    expect(everything).not.toContain('TESTKEY');
  }, 120_000);

  it('incremental: a rerun uploads nothing but the runs, the SQL files and the manifest; a new session only its partitions', async () => {
    await exportTo('incr');
    let puts = s3.putsDone();
    const again = await exportTo('incr');
    expect(again.partitionsWritten).toBe(0);
    expect(again.partitionsSkipped).toBe(18);
    expect(s3.putsDone() - puts).toBe(EVERY_RUN);

    await load([{ ...BTC, sessionDate: '2026-11-21' }]);
    puts = s3.putsDone();
    const third = await exportTo('incr');
    expect(third.partitionsWritten).toBe(3);
    expect(s3.putsDone() - puts).toBe(3 + EVERY_RUN);
    await expectSameAsWarehouse('incr');
  }, 120_000);

  it('a network cut mid-upload fails with a clear error; the rerun sends only what was not verified there', async () => {
    const puts = s3.putsDone();
    s3.cutAfterPuts(5);
    const cut = await exportTo('resume').catch((error: unknown) => error);
    expect(cut).toBeInstanceOf(ObjectStoreError);
    expect(String((cut as Error).message)).toMatch(/a rerun resumes/);
    // The tables upload at once: a PUT of another table already on its way when the fifth lands
    // gets through too (as on a real link), so count what the server holds rather than assume 5.
    const landed = s3.putsDone() - puts;
    expect(landed).toBeGreaterThanOrEqual(5);
    expect(landed).toBeLessThan(18);
    // No manifest yet: a reader following it sees no half export.
    await expect(objectText(`resume/${MANIFEST_FILE}`)).rejects.toThrow();

    s3.cutAfterPuts(null);
    const before = s3.putsDone();
    const resumed = await exportTo('resume');
    // Every upload that landed was recorded: the rerun sends exactly the others.
    expect(resumed.partitionsWritten).toBe(18 - landed);
    expect(s3.putsDone() - before).toBe(18 - landed + EVERY_RUN);
    await expectSameAsWarehouse('resume');
  }, 120_000);

  it('an object changed behind its back is sent again (HEAD shows another sha256)', async () => {
    const puts = s3.putsDone();
    s3.cutAfterPuts(4);
    await expect(exportTo('tamper')).rejects.toBeInstanceOf(ObjectStoreError);
    s3.cutAfterPuts(null);
    const landed = s3.putsDone() - puts; // 4, or more when other tables' PUTs were on their way (the tables upload at once)
    expect(landed).toBeGreaterThanOrEqual(4);
    const manifestless = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'tamper/' }));
    const first = manifestless.Contents![0]!.Key!;
    const { PutObjectCommand } = await import('@aws-sdk/client-s3');
    await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: first, Body: 'not parquet' }));
    const before = s3.putsDone();
    await exportTo('tamper');
    expect(s3.putsDone() - before).toBe(18 - landed + 1 + EVERY_RUN);
    await expectSameAsWarehouse('tamper');
  }, 120_000);

  it('wrong credentials and a missing bucket are typed errors, before any file is written', async () => {
    // s3rver refuses an unknown access key id (it does not check SigV4 signatures, so a wrong secret alone would pass).
    process.env.AWS_ACCESS_KEY_ID = 'NOT-A-KEY';
    try {
      await expect(exportTo('denied')).rejects.toBeInstanceOf(ObjectStoreAuthError);
    } finally {
      process.env.AWS_ACCESS_KEY_ID = S3_KEY.AWS_ACCESS_KEY_ID;
    }
    await expect(exportWarehouse({ dbPath, outDir: 's3://no-such-bucket/x', s3: { endpoint: s3.endpoint, forcePathStyle: true } })).rejects.toBeInstanceOf(
      ObjectStoreBucketError,
    );
    const wh = await openWarehouse(dbPath, { readOnly: true });
    try {
      expect(await query(wh, `SELECT count(*)::INTEGER AS n FROM sync.exports WHERE out_dir LIKE 's3://%'`)).toEqual([{ n: 0 }]);
    } finally {
      wh.close();
    }
  }, 60_000);
});

describe('gexwh export --out s3:// (the CLI, in process)', () => {
  const cli = (out: string, env: Record<string, string>) =>
    runCliInProcess(['--db', dbPath, 'export', '--out', out, '--s3-endpoint', s3.endpoint, '--s3-force-path-style'], {
      env: { ...S3_KEY, AWS_PROFILE: undefined, ...env },
    });

  it('exports, then exits 3 on wrong credentials and 2 on a missing bucket, with what to fix', async () => {
    const ok = await cli(`s3://${BUCKET}/cli`, {});
    // Piped, a long stage says one line when it ends, and nothing else is said.
    for (const line of ok.stderr.split('\n').filter((l) => l !== '')) expect(line).toMatch(/^exporting files\s+\d+\/\d+/);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/export to s3:\/\/gex-share\/cli \(parquet\): 18 partition\(s\) written/);

    const denied = await cli(`s3://${BUCKET}/cli`, { AWS_ACCESS_KEY_ID: 'NOT-A-KEY' });
    expect(denied.code).toBe(3);
    expect(denied.stderr).toMatch(/refused the credentials \(HTTP 403\) while checking the bucket.*AWS chain/);
    expect(denied.stderr).not.toContain('S3RVER'); // the secret of the chain is never printed

    const missing = await cli('s3://not-there/cli', {});
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no bucket "not-there"/);

    const misuse = await runCliInProcess(['--db', dbPath, 'export', '--out', join(dir, 'local'), '--s3-endpoint', s3.endpoint]);
    expect(misuse.code).toBe(2);
    expect(misuse.stderr).toMatch(/apply to an s3:\/\/bucket\/prefix --out only/);
  }, 120_000);
});
