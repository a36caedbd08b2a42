import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient } from '../../src/api/index.js';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import { journalSnapshot, listSnapshots, pruneLoadedSnapshots, readSnapshot, rowsOf, snapshotPath, type LiveSnapshot } from '../../src/journal/live-journal.js';
import { LiveJournalError } from '../../src/core/errors.js';

let emulator: Emulator;
let client: ApiClient;
let dir: string;
let snapshot: LiveSnapshot;

beforeAll(async () => {
  emulator = await startEmulator({ now: '2026-03-11T14:07:00Z', days: 2, expirations: 3, strikes: 8, seed: 3, symbols: ['BTC'] });
  client = createApiClient({ baseUrl: emulator.baseUrl, apiKey: emulator.keys.admin });
  dir = mkdtempSync(join(tmpdir(), 'gexwh-live-journal-'));
  const levels = await client.levels('deribit', 'BTC');
  const term = await client.termOi('deribit', 'BTC');
  snapshot = {
    version: 1,
    key: { exchange: levels.meta.exchange_resolved, symbol: 'BTC', market: 'crypto' },
    levels: { data: levels.data, meta: levels.meta },
    term: { data: term.data, meta: term.meta },
    strikes: [],
  };
});
afterAll(async () => {
  await client.close();
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the live journal', () => {
  it('round-trips a snapshot through its file, and derives the rows a capture would write', async () => {
    const archive = join(dir, 'a');
    const path = await journalSnapshot(archive, snapshot);
    expect(path).toBe(join(archive, '_live', 'pending', 'deribit', 'BTC', '2026-03-11T14-00-00.000Z.json'));
    expect(await listSnapshots(archive, 'pending')).toEqual([path]);
    const read = await readSnapshot(path);
    expect(rowsOf(read)).toEqual(rowsOf(snapshot));
    expect(rowsOf(read).live_levels).toHaveLength(1);
    expect(rowsOf(read).term_structure.length).toBeGreaterThan(0);
  });

  it('refuses a key that could leave the folder, and a file that is not a valid snapshot', async () => {
    for (const key of [
      { ...snapshot.key, symbol: '../x' },
      { ...snapshot.key, exchange: 'De/ribit' },
    ]) {
      expect(() => snapshotPath(dir, 'pending', { ...snapshot, key })).toThrow(LiveJournalError);
    }
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ ...snapshot, levels: { data: {}, meta: snapshot.levels.meta } }));
    await expect(readSnapshot(bad)).rejects.toThrow(/does not match the API's schemas/);
  });

  it('prunes loaded snapshots older than the kept days, and only those', async () => {
    const archive = join(dir, 'b');
    const older = { ...snapshot, levels: { ...snapshot.levels, meta: { ...snapshot.levels.meta, as_of: '2026-03-01T10:00:00Z' } } };
    const oldPath = snapshotPath(archive, 'loaded', older);
    const newPath = snapshotPath(archive, 'loaded', snapshot);
    for (const [path, s] of [
      [oldPath, older],
      [newPath, snapshot],
    ] as const) {
      const pending = await journalSnapshot(archive, s);
      const { mkdirSync, renameSync } = await import('node:fs');
      mkdirSync(join(path, '..'), { recursive: true });
      renameSync(pending, path);
    }
    expect(await pruneLoadedSnapshots(archive, 7, new Date('2026-03-11T15:00:00Z'))).toBe(1);
    expect(existsSync(oldPath)).toBe(false);
    expect(existsSync(newPath)).toBe(true);
  });
});
