import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { Emulator } from '../../../emulator/index.js';
import { call, fetchLink, parseCsvGz, smallEmulator } from './helpers.js';

let em: Emulator;
beforeEach(async () => {
  em = await smallEmulator();
});
afterEach(() => em.close());

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

async function linkOf(path: string, key?: string): Promise<string> {
  const answer = await call(em, path, key === undefined ? {} : { key });
  expect(answer.status).toBe(302);
  return answer.headers.get('location')!;
}

describe('manifest', () => {
  test('lists completed sessions within history, newest first, three files each, schema_version 1', async () => {
    const answer = await call(em, '/history/files/combined/BTC');
    expect(answer.status).toBe(200);
    const rows = answer.body.data as { session_date: string; file: string; schema_version: number }[];
    // history starts 5 days before 2026-03-11; today's session is not complete
    const dates = [...new Set(rows.map((r) => r.session_date))];
    expect(dates).toEqual(['2026-03-10', '2026-03-09', '2026-03-08', '2026-03-07', '2026-03-06']);
    expect(rows.slice(0, 3).map((r) => r.file)).toEqual(['levels', 'strikes_total', 'strikes_by_expiry']);
    expect(rows.every((r) => r.schema_version === 1)).toBe(true);
    expect(answer.body.meta).toMatchObject({ exchange: 'combined', coin: 'BTC', symbol: 'BTC', exchange_resolved: 'combined', market: 'crypto' });
  });

  test('start is inclusive, end exclusive; start on or after end is invalid_param', async () => {
    const answer = await call(em, '/history/files/combined/BTC?start=2026-03-07&end=2026-03-09');
    expect([...new Set(answer.body.data.map((r: { session_date: string }) => r.session_date))]).toEqual(['2026-03-08', '2026-03-07']);
    for (const query of ['start=2026-03-09&end=2026-03-09', 'start=2026-03-10&end=2026-03-09', 'start=2019-12-31', 'end=2026-3-1']) {
      const bad = await call(em, `/history/files/combined/BTC?${query}`);
      expect(bad.status).toBe(400);
      expect(bad.body.error).toBe('invalid_param');
    }
  });

  test('a venue subset is history_not_available with valid_exchanges', async () => {
    const answer = await call(em, '/history/files/deribit+okx/BTC');
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: 'history_not_available' });
    expect(answer.body.valid_exchanges).toEqual(expect.arrayContaining(['deribit', 'okx', 'combined']));
    expect((await call(em, '/history/files/deribit+okx/BTC/2026-03-10/levels')).body.error).toBe('history_not_available');
  });

  test('the manifest sha256 and bytes equal the bytes served through the link', async () => {
    const rows = (await call(em, '/history/files/deribit/ETH?start=2026-03-10')).body.data as {
      session_date: string;
      file: string;
      bytes: number;
      sha256: string;
      rows: number;
    }[];
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      const served = await fetchLink(await linkOf(`/history/files/deribit/ETH/${row.session_date}/${row.file}`));
      expect(served.status).toBe(200);
      expect(served.bytes.length).toBe(row.bytes);
      expect(sha256(served.bytes)).toBe(row.sha256);
      expect(parseCsvGz(served.bytes)).toHaveLength(row.rows);
    }
  });

  test('at most 400 rows a page, and a page can end in the middle of a session', async () => {
    const big = await smallEmulator({ days: 200, symbols: ['SPY'], expirations: 1, strikes: 2 });
    try {
      const answer = await call(big, '/history/files/tradfi/SPY');
      expect(answer.body.data).toHaveLength(400);
      const last = answer.body.data[399];
      expect(last.file).toBe('levels'); // 400 = 133 sessions × 3 + 1
      const next = await call(big, `/history/files/tradfi/SPY?end=${last.session_date}`);
      const nextDates = next.body.data.map((r: { session_date: string }) => r.session_date);
      expect(nextDates.every((d: string) => d < last.session_date)).toBe(true);
    } finally {
      await big.close();
    }
  });
});

describe('download', () => {
  test('the link serves application/gzip with the download name and Content-Length', async () => {
    const served = await fetchLink(await linkOf('/history/files/combined/BTC/2026-03-09/strikes_total'));
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('application/gzip');
    expect(served.headers.get('content-disposition')).toContain('2026-03-09_strikes_total.csv.gz');
    expect(Number(served.headers.get('content-length'))).toBe(served.bytes.length);
    expect(em.counters.storageHits).toBe(1);
  });

  test('the link points to another origin than the API', async () => {
    const link = new URL(await linkOf('/history/files/combined/BTC/2026-03-09/levels'));
    expect(link.origin).toBe(em.storageUrl);
    expect(link.origin).not.toBe(new URL(em.baseUrl).origin);
  });

  test('the storage origin refuses and counts any request carrying a key (tripwire)', async () => {
    const link = await linkOf('/history/files/combined/BTC/2026-03-09/levels');
    const withKey = await fetchLink(link, { 'X-API-Key': em.keys.pro });
    expect(withKey.status).toBe(403);
    const withBearer = await fetchLink(link, { Authorization: `Bearer ${em.bearerToken}` });
    expect(withBearer.status).toBe(403);
    expect(em.counters.storageTripwire).toBe(2);
    expect((await fetchLink(link)).status).toBe(200);
    expect(em.counters.storageTripwire).toBe(2);
  });

  test('a link expires after linkTtlSeconds of emulator clock with 403 saying expired', async () => {
    const link = await linkOf('/history/files/combined/BTC/2026-03-09/levels');
    em.clock.advance(14 * 60_000);
    expect((await fetchLink(link)).status).toBe(200);
    em.clock.advance(60_000);
    const expired = await fetchLink(link);
    expect(expired.status).toBe(403);
    expect(JSON.parse(expired.bytes.toString('utf8'))).toMatchObject({ error: 'link_expired' });
    expect(expired.bytes.toString('utf8')).toContain('expired');
  });

  test('a forged link is 403 invalid_signature', async () => {
    const link = await linkOf('/history/files/combined/BTC/2026-03-09/levels');
    const forged = link.replace('2026-03-09', '2026-03-08');
    expect((await fetchLink(forged)).status).toBe(403);
  });

  test('no_file for a date outside history or a session not complete yet; invalid_param for bad date/file', async () => {
    expect((await call(em, '/history/files/combined/BTC/2026-03-01/levels')).body.error).toBe('no_file');
    expect((await call(em, '/history/files/combined/BTC/2026-03-11/levels')).status).toBe(404);
    expect((await call(em, '/history/files/tradfi/SPY/2026-03-07/levels')).body.error).toBe('no_file'); // Saturday
    const badFile = await call(em, '/history/files/combined/BTC/2026-03-10/csv');
    expect(badFile.body).toMatchObject({ error: 'invalid_param', valid_values: ['levels', 'strikes_total', 'strikes_by_expiry'] });
    expect((await call(em, '/history/files/combined/BTC/10-03-2026/levels')).body.error).toBe('invalid_param');
  });

  test('a session becomes downloadable once complete at the clock', async () => {
    expect((await call(em, '/history/files/combined/BTC/2026-03-11/levels')).status).toBe(404);
    em.clock.set('2026-03-11T23:45:00Z');
    expect((await call(em, '/history/files/combined/BTC/2026-03-11/levels')).status).toBe(302);
  });

  test('rebuildFile gives new bytes and sha256 with the same rows', async () => {
    const path = '/history/files/okx/BTC?start=2026-03-10';
    const before = (await call(em, path)).body.data[0];
    em.rebuildFile('okx', 'BTC', '2026-03-10', 'levels');
    const after = (await call(em, path)).body.data[0];
    expect(after.sha256).not.toBe(before.sha256);
    expect(after.rows).toBe(before.rows);
    const served = await fetchLink(await linkOf('/history/files/okx/BTC/2026-03-10/levels'));
    expect(sha256(served.bytes)).toBe(after.sha256);
  });
});

describe('storage faults', () => {
  const path = '/history/files/combined/BTC/2026-03-09/levels';

  test('truncate: full Content-Length, body cut, connection closed', async () => {
    em.faults.add({ where: 'storage', action: { kind: 'truncate', atByte: 100 } });
    await expect(fetchLink(await linkOf(path))).rejects.toThrow();
    expect((await fetchLink(await linkOf(path))).status).toBe(200); // times: 1
  });

  test('corrupt: same length, different sha256', async () => {
    const manifest = (await call(em, '/history/files/combined/BTC?start=2026-03-09&end=2026-03-10')).body.data[0];
    em.faults.add({ where: 'storage', action: { kind: 'corrupt' } });
    const served = await fetchLink(await linkOf(path));
    expect(served.bytes.length).toBe(manifest.bytes);
    expect(sha256(served.bytes)).not.toBe(manifest.sha256);
  });

  test('status on storage and drop on the API', async () => {
    em.faults.add({ where: 'storage', action: { kind: 'status', status: 500 } });
    expect((await fetchLink(await linkOf(path))).status).toBe(500);
    em.faults.add({ match: /\/history\/files\//, action: { kind: 'drop' } });
    await expect(call(em, path)).rejects.toThrow();
  });

  test('drop_after_charge: the link request is charged, then the connection is destroyed unanswered', async () => {
    em.faults.add({ match: /\/history\/files\/.*\/levels$/, action: { kind: 'drop_after_charge' } });
    await expect(call(em, path)).rejects.toThrow();
    expect(em.counters.credits(em.keys.pro)).toBe(1);
    expect((await call(em, path)).status).toBe(302); // one time only
    expect(em.counters.credits(em.keys.pro)).toBe(2);
  });

  test('expire_link: the 302 points to an expired link (credit charged)', async () => {
    em.faults.add({ action: { kind: 'expire_link' } });
    const served = await fetchLink(await linkOf(path));
    expect(served.status).toBe(403);
    expect(em.counters.credits(em.keys.pro)).toBe(1);
  });

  test('redirect: the 302 carries the given Location or none', async () => {
    em.faults.add({ action: { kind: 'redirect', location: 'file:///etc/passwd' } });
    expect((await call(em, path)).headers.get('location')).toBe('file:///etc/passwd');
    em.faults.add({ action: { kind: 'redirect', location: null } });
    const none = await call(em, path);
    expect(none.status).toBe(302);
    expect(none.headers.get('location')).toBeNull();
  });

  test('slow: the body arrives complete, paced', async () => {
    em.faults.add({ where: 'storage', action: { kind: 'slow', bytesPerSecond: 200_000 } });
    const served = await fetchLink(await linkOf(path));
    expect(served.status).toBe(200);
    const manifest = (await call(em, '/history/files/combined/BTC?start=2026-03-09&end=2026-03-10')).body.data[0];
    expect(sha256(served.bytes)).toBe(manifest.sha256);
  });

  test('wrong_length: a Content-Length larger than the body fails the read', async () => {
    em.faults.add({ where: 'storage', action: { kind: 'wrong_length', contentLength: 10_000_000 } });
    await expect(fetchLink(await linkOf(path))).rejects.toThrow();
  });

  test('body fault on the API: a malformed JSON answer', async () => {
    em.faults.add({ match: /\/me$/, action: { kind: 'body', status: 200, body: '{"data": ' } });
    const answer = await call(em, '/me');
    expect(answer.status).toBe(200);
    expect(answer.text).toBe('{"data": ');
  });

  test('times and match: a rule fires only on matching paths, as many times as asked', async () => {
    em.faults.add({ match: /\/levels\//, times: 2, action: { kind: 'status', status: 503 } });
    expect((await call(em, '/me')).status).toBe(200);
    expect((await call(em, '/levels/all/BTC')).body.error).toBe('market_unavailable');
    expect((await call(em, '/levels/all/BTC')).status).toBe(503);
    expect((await call(em, '/levels/all/BTC')).status).toBe(200);
    expect(em.counters.requests(em.keys.pro)).toBe(1);
    em.faults.add({ times: Infinity, action: { kind: 'status', status: 503 } });
    em.faults.clear();
    expect((await call(em, '/me')).status).toBe(200);
  });
});

describe('file index', () => {
  test('a listed file is built once: its facts stay indexed, a second listing builds nothing and agrees', async () => {
    expect(em.filesIndexed).toBe(0);
    const first = await call(em, '/history/files/deribit/BTC');
    const rows = first.body.data as { session_date: string; file: string; sha256: string }[];
    expect(em.filesIndexed).toBe(rows.length);
    const second = await call(em, '/history/files/deribit/BTC');
    expect(second.body.data).toEqual(rows);
    expect(em.filesIndexed).toBe(rows.length);
    const row = rows[0]!;
    const download = await fetchLink(await linkOf(`/history/files/deribit/BTC/${row.session_date}/${row.file}`));
    expect(sha256(download.bytes)).toBe(row.sha256);
  });
});
