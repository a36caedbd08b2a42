// The journal's writes are durable: each new file of a package (a credit, a paid file) is fsynced
// before it is linked to its name and the folder after, so a credit is on disk before the download it
// paid for starts; each state change is a rename with both folders fsynced after. Spies on the file
// handle's fsync, on rename and on link.
import { lstatSync, mkdtempSync, promises as fs, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openSpendLog } from '../../src/journal/spend-log.js';
import { journalFiles } from '../../src/journal/held.js';
import { writeDurably } from '../../src/journal/durable-write.js';

let root: string;
let events: string[];
beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'gexwh-durable-'));
  events = [];
  // FileHandle is not exported: its prototype is reached through a handle.
  const probe = await fs.open(join(root, 'probe'), 'w');
  const proto = Object.getPrototypeOf(probe) as { sync: () => Promise<void> };
  await probe.close();
  await fs.rm(join(root, 'probe'));
  const sync = proto.sync;
  vi.spyOn(proto, 'sync').mockImplementation(async function (this: { fd: number }) {
    events.push('fsync');
    return sync.call(this);
  });
  const rename = fs.rename;
  vi.spyOn(fs, 'rename').mockImplementation(async (from, to) => {
    events.push(`rename ${basename(String(to))}`);
    return rename(from, to);
  });
  const link = fs.link;
  vi.spyOn(fs, 'link').mockImplementation(async (from, to) => {
    events.push(`link ${basename(String(to))}`);
    return link(from, to);
  });
});
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(root, { recursive: true, force: true });
});

describe('the durable write of a journal file', () => {
  it('fsyncs the file before the rename and the folder after it', async () => {
    await writeDurably(join(root, 'x.json'), '{}');
    expect(events).toEqual(['fsync', 'rename x.json', 'fsync']);
    expect(readdirSync(root)).toEqual(['x.json']);
  });

  it('each credit is one new file, fsynced before it is linked to its name, the folder after, before its promise resolves', async () => {
    const log = openSpendLog(root, { command: 'sync', options: {}, startedAt: new Date('2026-03-11T00:30:00Z') });
    await log.ready();
    events.length = 0;
    await log.credit(1);
    expect(events).toEqual(['fsync', 'link 00000000.json', 'fsync']);
    events.length = 0;
    await log.credit(1);
    expect(events).toEqual(['fsync', 'link 00000001.json', 'fsync']);
    await log.close();
  });

  it('a paid file is one new file; its move to loaded/ is one rename, both folders fsynced', async () => {
    const start = { command: 'sync', options: {}, startedAt: new Date('2026-03-11T00:30:00Z') };
    const log = openSpendLog(root, start);
    const file = (date: string) => ({
      exchange: 'bybit',
      symbol: 'BTC',
      sessionDate: date,
      file: 'levels' as const,
      sha256: 'a'.repeat(64),
      bytes: 1,
      rows: 1,
      schemaVersion: 1,
      archivePath: join(root, 'bybit', 'BTC', `${date}_levels.csv.gz`),
      downloadedAt: new Date(),
      fromArchive: false,
    });
    await log.ready();
    events.length = 0;
    await log.archived(file('2026-03-10'));
    expect(events).toEqual(['fsync', `link 2026-03-10_levels_bybit_BTC_${'a'.repeat(16)}.json`, 'fsync']);
    await log.archived(file('2026-03-09'));
    await journalFiles(root, [file('2026-03-09')], { listings: [], stored: true });
    events.length = 0;
    await log.close();
    const renamed = events.findIndex((e) => e.startsWith('rename'));
    expect(events.slice(renamed, renamed + 3)).toEqual([`rename 2026-03-10_levels_bybit_BTC_${'a'.repeat(16)}.json`, 'fsync', 'fsync']);
  });

  it("a file's paid/ record is one new file written before its link is asked for; its move to archived/ is one rename, both folders fsynced", async () => {
    const log = openSpendLog(root, { command: 'sync', options: {}, startedAt: new Date('2026-03-11T00:30:00Z') });
    const file = {
      exchange: 'bybit',
      symbol: 'BTC',
      sessionDate: '2026-03-10',
      file: 'levels' as const,
      sha256: 'b'.repeat(64),
      bytes: 1,
      rows: 1,
      schemaVersion: 1,
    };
    const name = `2026-03-10_levels_bybit_BTC_${'b'.repeat(16)}.json`;
    await log.ready();
    events.length = 0;
    await log.paying(file);
    expect(events).toEqual(['fsync', `link ${name}`, 'fsync']);
    events.length = 0;
    await log.archived({ ...file, archivePath: join(root, 'bybit', 'BTC', '2026-03-10_levels.csv.gz'), downloadedAt: new Date(), fromArchive: false });
    expect(events).toEqual([`rename ${name}`, 'fsync', 'fsync']);
    await log.close({ journaled: true });
  });

  it('goes through the one write path of the archive: a link planted at the name is replaced, its target untouched', async () => {
    const outside = join(mkdtempSync(join(tmpdir(), 'gexwh-outside-')), 'victim.txt');
    writeFileSync(outside, 'keep me');
    symlinkSync(outside, join(root, 'inflight.json'));
    await writeDurably(join(root, 'inflight.json'), '{"version":1}');
    expect(readFileSync(outside, 'utf8')).toBe('keep me');
    expect(lstatSync(join(root, 'inflight.json')).isSymbolicLink()).toBe(false);
    expect(readFileSync(join(root, 'inflight.json'), 'utf8')).toBe('{"version":1}');
    expect(events).toEqual(['fsync', 'rename inflight.json', 'fsync']);
    rmSync(dirname(outside), { recursive: true, force: true });
  });
});
