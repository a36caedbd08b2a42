// The manifest facts cache: a later emulator with the same market lists files from the facts an
// earlier one computed, without building them, and the sha256 and size it lists are those of the
// bytes its storage serves. Another market never reuses them; a cache that disagrees with the bytes
// built is refused loudly and deleted.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../../emulator/index.js';
import { defaultFactsCacheDir } from '../../../emulator/index.js';
import { call, fetchLink, smallEmulator } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'gexwh-facts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Row {
  session_date: string;
  file: string;
  rows: number;
  bytes: number;
  sha256: string;
}

async function manifest(em: Emulator): Promise<Row[]> {
  const answer = await call(em, '/history/files/deribit/BTC', { key: em.keys.admin });
  expect(answer.status).toBe(200);
  return answer.body.data as Row[];
}

/** The manifest, then the emulator closed, whether the manifest answered or not. */
async function manifestThenClose(em: Emulator): Promise<Row[]> {
  try {
    return await manifest(em);
  } finally {
    await em.close();
  }
}

async function download(em: Emulator, row: Row): Promise<Buffer> {
  const link = await call(em, `/history/files/deribit/BTC/${row.session_date}/${row.file}`, { key: em.keys.admin });
  expect(link.status).toBe(302);
  const file = await fetchLink(link.headers.get('location')!);
  expect(file.status).toBe(200);
  return file.bytes;
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const options = (cache: string, now: string, days: number) => ({ factsCache: cache, now, days, symbols: ['BTC'] });

describe('the manifest facts cache', () => {
  it('a later emulator (another clock, a longer history) lists known files without building them; every listed sha256 and size is that of the bytes served', async () => {
    const cache = join(dir, 'shared');
    const first = await smallEmulator(options(cache, '2026-03-11T14:07:00Z', 3));
    let listedFirst: Row[];
    try {
      listedFirst = await manifest(first);
      expect(listedFirst).toHaveLength(9);
      expect(first.filesBuilt).toBe(9); // cold: every listed file built once for its facts
    } finally {
      await first.close();
    }

    // A day later, four days of history: 12 files listed, 9 of them known to the cache.
    const later = await smallEmulator(options(cache, '2026-03-12T14:07:00Z', 4));
    try {
      expect(later.filesIndexed).toBe(9);
      const listed = await manifest(later);
      expect(listed).toHaveLength(12);
      expect(later.filesBuilt).toBe(3); // only the new session's files
      for (const row of listedFirst) expect(listed).toContainEqual(row);
      for (const row of listed) {
        const bytes = await download(later, row);
        expect(sha256(bytes), `${row.session_date} ${row.file}`).toBe(row.sha256);
        expect(bytes.length).toBe(row.bytes);
      }
    } finally {
      await later.close();
    }
  });

  it('another seed or chain size does not reuse the facts', async () => {
    const cache = join(dir, 'keyed');
    const first = await smallEmulator(options(cache, '2026-03-11T14:07:00Z', 2));
    await manifestThenClose(first);
    for (const other of [{ seed: 8 }, { strikes: 16 }, { expirations: 4 }]) {
      const em = await smallEmulator({ ...options(cache, '2026-03-11T14:07:00Z', 2), ...other });
      try {
        expect(em.filesIndexed, JSON.stringify(other)).toBe(0);
      } finally {
        await em.close();
      }
    }
    const same = await smallEmulator(options(cache, '2026-03-11T14:07:00Z', 2));
    await same.close();
    expect(same.filesIndexed).toBe(6);
  });

  it('facts that disagree with the bytes built: the download fails, the cache file is deleted, nothing is listed from it again', async () => {
    const cache = join(dir, 'tampered');
    const first = await smallEmulator(options(cache, '2026-03-11T14:07:00Z', 2));
    const [row] = await manifestThenClose(first);
    const path = join(cache, readdirOne(cache));
    const wrong = '0'.repeat(64);
    writeFileSync(path, readFileSync(path, 'utf8').replace(row!.sha256, wrong));

    const trusting = await smallEmulator(options(cache, '2026-03-11T14:07:00Z', 2));
    try {
      const listed = await manifest(trusting);
      expect(listed.find((r) => r.session_date === row!.session_date && r.file === row!.file)?.sha256).toBe(wrong);
      const link = await call(trusting, `/history/files/deribit/BTC/${row!.session_date}/${row!.file}`, { key: trusting.keys.admin });
      const served = await fetchLink(link.headers.get('location')!);
      expect(served.status).toBe(500);
      expect(existsSync(path)).toBe(false);
    } finally {
      await trusting.close();
    }
    const fresh = await smallEmulator(options(cache, '2026-03-11T14:07:00Z', 2));
    await fresh.close();
    expect(fresh.filesIndexed).toBe(0);
  });

  it('is off without workers unless asked for; GEXWH_EMULATOR_CACHE picks the folder or turns it off', async () => {
    expect(defaultFactsCacheDir({ GEXWH_EMULATOR_CACHE: '/x/y' })).toBe('/x/y');
    expect(defaultFactsCacheDir({ GEXWH_EMULATOR_CACHE: 'off' })).toBeUndefined();
    expect(defaultFactsCacheDir({ XDG_CACHE_HOME: '/c' })).toBe(join('/c', 'gexwh', 'emulator'));
    const cache = join(dir, 'unasked');
    const filled = await smallEmulator(options(cache, '2026-03-11T14:07:00Z', 2));
    await manifestThenClose(filled);
    const withCache = await smallEmulator(options(cache, '2026-03-11T14:07:00Z', 2));
    await withCache.close();
    expect(withCache.filesIndexed).toBe(6);
    const without = await smallEmulator({ now: '2026-03-11T14:07:00Z', days: 2, symbols: ['BTC'] });
    await without.close();
    expect(without.filesIndexed).toBe(0);
  });
});

function readdirOne(folder: string): string {
  const names = readdirSync(folder);
  expect(names).toHaveLength(1);
  return names[0]!;
}
