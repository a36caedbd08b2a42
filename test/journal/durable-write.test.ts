// The journal's writes are durable: the temp file is fsynced before it is renamed over the journal
// (and the folder after), for pending.json and for every credit the spend log writes down, so a credit
// is on disk before the download it paid for starts. Spies on the file handle's fsync and on rename.
import { lstatSync, mkdtempSync, promises as fs, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { emptyJournal, writeJournal } from '../../src/journal/journal.js';
import { openSpendLog } from '../../src/journal/spend-log.js';
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

  it('pending.json is written durably', async () => {
    await writeJournal(root, emptyJournal());
    expect(events).toEqual(['fsync', 'rename pending.json', 'fsync']);
  });

  it('each credit of the spend log is fsynced before its promise resolves', async () => {
    const log = openSpendLog(root, { command: 'sync', options: {}, startedAt: new Date('2026-03-11T00:30:00Z') });
    await log.ready();
    events.length = 0;
    await log.credit(1);
    expect(events).toEqual(['fsync', 'rename inflight.json', 'fsync']);
    await log.close();
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
