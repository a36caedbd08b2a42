// `export --out s3://bucket/prefix` into a prefix that holds objects and is not a gexwh export is
// refused without --force (exit 2, naming what is there), as a local folder is: an export there would
// replace objects of its names (views.sql, runs/data.parquet ...). An empty prefix, a gexwh export's
// own prefix, a neighbour prefix that only starts with the same letters, and --force are written.
import { join } from 'node:path';
import { ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MANIFEST_FILE } from '../../src/export/manifest.js';
import { s3Client } from '../../src/export/s3.js';
import { loadFiles } from '../../src/warehouse/loader.js';
import { openWarehouse } from '../../src/warehouse/open.js';
import { runCliInProcess } from '../helpers/cli.js';
import { S3_KEY, startLocalS3, type LocalS3 } from '../helpers/s3.js';
import { BTC, makeTempDir, writeFixture } from '../warehouse/fixtures.js';

const BUCKET = 'shared-bucket';
const { dir, cleanup } = makeTempDir();
const db = join(dir, 'gex.duckdb');
let s3: LocalS3;
let client: S3Client;
const saved: Record<string, string | undefined> = {};

beforeAll(async () => {
  s3 = await startLocalS3([BUCKET]);
  for (const [name, value] of Object.entries(S3_KEY)) {
    saved[name] = process.env[name];
    process.env[name] = value;
  }
  client = s3Client({ endpoint: s3.endpoint, forcePathStyle: true });
  const wh = await openWarehouse(db);
  try {
    expect((await loadFiles(wh.connection, [writeFixture(dir, 'levels', BTC)])).failed).toEqual([]);
  } finally {
    wh.close();
  }
}, 60_000);
afterAll(async () => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  client?.destroy();
  await s3?.close();
  cleanup();
});

const put = (key: string) => client.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: 'mine' }));
const keys = async (prefix: string) =>
  ((await client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }))).Contents ?? []).map((o) => o.Key!).sort();
const exportTo = (prefix: string, ...extra: string[]) =>
  runCliInProcess(['--db', db, 'export', '--out', `s3://${BUCKET}/${prefix}`, '--s3-endpoint', s3.endpoint, '--s3-force-path-style', ...extra], {
    env: { ...S3_KEY },
  });

it('a prefix holding someone else objects: exit 2 naming them, nothing written; --force writes there', async () => {
  await put('team/views.sql');
  await put('team/notes/plan.txt');
  const refused = await exportTo('team');
  expect(refused.code, refused.stderr).toBe(2);
  expect(refused.stderr).toContain('s3://shared-bucket/team/');
  expect(refused.stderr).toMatch(/s3:\/\/shared-bucket\/team\/(views\.sql|notes\/plan\.txt)/);
  expect(refused.stderr).toContain('--force');
  expect(await keys('team/')).toEqual(['team/notes/plan.txt', 'team/views.sql']);

  const forced = await exportTo('team', '--force');
  expect(forced.code, forced.stderr).toBe(0);
  expect(await keys('team/')).toContain(`team/${MANIFEST_FILE}`);
  // Now a gexwh export: a rerun needs no --force.
  const again = await exportTo('team');
  expect(again.code, again.stderr).toBe(0);
}, 60_000);

it('an empty prefix, and one beside a neighbour that only shares its first letters, are written', async () => {
  await put('teammates/own.csv');
  const fresh = await exportTo('team2');
  expect(fresh.code, fresh.stderr).toBe(0);
  const beside = await exportTo('teammate');
  expect(beside.code, beside.stderr).toBe(0);
}, 60_000);
