// Journal files are read safely: regular files only, never through a link, never waiting on a FIFO,
// never more than a journal can hold; a refused journal reads as empty with the reason naming it.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { emptyJournal, inspectJournal, legacyJournalPath as journalPath } from '../../src/journal/journal.js';
import { readJournalFile, JOURNAL_MAX_BYTES } from '../../src/journal/safe-read.js';
import { legacyInflightPath as inflightPath, readLegacyInflight as inspectInflight } from '../../src/journal/legacy-read.js';
import { migrateLegacy } from '../../src/journal/migrate.js';
import { makeTempDir } from '../warehouse/fixtures.js';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));
function tempDir(): string {
  const { dir, cleanup } = makeTempDir();
  cleanups.push(cleanup);
  return dir;
}

function archiveWithJournalFolder(): string {
  const archive = join(tempDir(), 'raw');
  mkdirSync(join(archive, '_journal'), { recursive: true });
  return archive;
}

describe('readJournalFile', () => {
  it('reads a regular file and says when there is none', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a.json'), '{"a":1}');
    expect(await readJournalFile(join(dir, 'a.json'))).toEqual({ text: '{"a":1}' });
    expect(await readJournalFile(join(dir, 'none.json'))).toEqual({ missing: true });
  });

  it('reads an empty file, and a file of several megabytes whole (read in chunks, every byte once)', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'empty.json'), '');
    expect(await readJournalFile(join(dir, 'empty.json'))).toEqual({ text: '' });
    // 2.5 MB of distinct lines: a chunk lost, repeated or cut shows in the text.
    const text = Array.from({ length: 125_000 }, (_, i) => `${String(i).padStart(18, '0')}\n`).join('');
    writeFileSync(join(dir, 'big.json'), text);
    const read = await readJournalFile(join(dir, 'big.json'));
    expect('text' in read && read.text.length).toBe(text.length);
    expect(read).toEqual({ text });
  });

  it('refuses a FIFO at once (never waits for a writer)', async () => {
    const dir = tempDir();
    const fifo = join(dir, 'pending.json');
    execFileSync('mkfifo', [fifo]);
    const read = await readJournalFile(fifo);
    expect(read).toEqual({ refused: expect.stringContaining(`${fifo} is a FIFO (named pipe), not a regular file`) as unknown });
  });

  it('never follows a link: not to a device, not to a file outside, not even to a file beside it', async () => {
    const dir = tempDir();
    const secret = join(dir, 'secret.txt');
    writeFileSync(secret, 'root:x:0:0:secret');
    for (const [name, target] of [
      ['zero.json', '/dev/zero'],
      ['out.json', secret],
    ] as const) {
      const link = join(dir, name);
      symlinkSync(target, link);
      const read = await readJournalFile(link);
      expect(read).toEqual({ refused: `${link} is a symbolic link, not a file gexwh wrote: it is not followed` });
    }
  });

  it('refuses a file bigger than the cap without reading it, and names the file and the cap', async () => {
    const dir = tempDir();
    const big = join(dir, 'big.json');
    writeFileSync(big, '');
    truncateSync(big, JOURNAL_MAX_BYTES + 1); // sparse: no disk used
    const read = await readJournalFile(big);
    expect(read).toEqual({ refused: `${big} holds ${JOURNAL_MAX_BYTES + 1} bytes, more than a journal can (at most ${JOURNAL_MAX_BYTES}): it is not read` });
    writeFileSync(join(dir, 'small.json'), '12345');
    expect(await readJournalFile(join(dir, 'small.json'), 4)).toEqual({ refused: expect.stringMatching(/holds 5 bytes/) as unknown });
    expect(await readJournalFile(join(dir, 'small.json'), 5)).toEqual({ text: '12345' });
  });

  it('refuses a folder and a device named as a journal', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'pending.json'));
    expect(await readJournalFile(join(dir, 'pending.json'))).toEqual({ refused: expect.stringMatching(/is a folder, not a regular file/) as unknown });
    expect(await readJournalFile('/dev/null')).toEqual({ refused: '/dev/null is a device, not a regular file: it is not read' });
  });
});

describe('a journal of the older layout gexwh does not read', () => {
  it('reads as empty with the reason, shows no byte of a link target, and its migration sets the link aside (never writing through it)', async () => {
    const archive = archiveWithJournalFolder();
    const outside = join(archive, '..', 'outside.txt');
    writeFileSync(outside, 'TOPSECRET-CONTENT');
    symlinkSync(outside, journalPath(archive));
    const read = await inspectJournal(archive);
    expect(read.journal).toEqual(emptyJournal());
    expect(read.refused).toContain(journalPath(archive));
    expect(read.unreadable).toMatch(/symbolic link/);
    expect(JSON.stringify(read)).not.toContain('TOPSECRET');
    await migrateLegacy(archive);
    expect(readFileSync(outside, 'utf8')).toBe('TOPSECRET-CONTENT');
    expect(readdirSync(join(archive, '_journal')).filter((name) => name.startsWith('pending.json.unreadable-'))).toHaveLength(1);
    expect((await inspectJournal(archive)).refused).toBeUndefined();
  });

  it('a FIFO journal and a FIFO run log are named, not waited on', async () => {
    const archive = archiveWithJournalFolder();
    execFileSync('mkfifo', [journalPath(archive)]);
    execFileSync('mkfifo', [inflightPath(archive)]);
    expect((await inspectJournal(archive)).refused).toMatch(/is a FIFO/);
    expect(await inspectInflight(archive)).toEqual({ problem: expect.stringMatching(/inflight\.json is a FIFO/) as unknown });
  });
});
