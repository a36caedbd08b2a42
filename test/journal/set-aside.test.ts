// What the journal keeps of a hostile or broken file: a link or a FIFO planted in a package is set
// aside unread as `.unreadable-<name>` and kept with its package (status names it) after the
// package's files are loaded; a package file that is not JSON leaves a note in `quarantined/` and
// its bytes beside it as `<name>.bytes`, never read again as an entry.
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inspectJournal } from '../../src/journal/journal.js';
import { writePackage } from '../../src/journal/package-write.js';
import { dropDonePackages, moveFile, quarantine, setAsideRefused } from '../../src/journal/settle.js';
import { readOnRecord } from '../../src/journal/on-record.js';
import { jobName, packagesFolder } from '../../src/journal/layout.js';
import type { JournaledFile } from '../../src/journal/entries.js';

let root: string;
let outside: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'gexwh-aside-'));
  outside = mkdtempSync(join(tmpdir(), 'gexwh-aside-out-'));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

const ID = '20260311T003000.000Z-held-abcdef';
const pkg = () => join(packagesFolder(root), ID);

function waiting(date: string): JournaledFile {
  const sha256 = 'd'.repeat(64);
  return {
    exchange: 'bybit',
    symbol: 'BTC',
    sessionDate: date,
    file: 'levels',
    sha256,
    bytes: 10,
    rows: 1,
    archivePath: `bybit/BTC/${date}_levels.csv.gz`,
    downloadedAt: '2026-03-11T00:31:00.000Z',
  };
}

/** What a load does with the journal around its warehouse work: set aside, quarantine, settle. */
async function load(): Promise<void> {
  const read = await inspectJournal(root);
  await setAsideRefused(read.refusedNames);
  for (const refused of read.journal.rejected) await quarantine(root, refused, refused, true);
  for (const file of read.journal.files) await moveFile(root, file, 'loaded');
  await dropDonePackages(root);
}

describe('a link and a FIFO planted in a package', () => {
  it('are set aside unread and kept with their package once its files are loaded; status names them', async () => {
    await writePackage(root, ID, { files: [waiting('2026-03-10')] });
    writeFileSync(join(outside, 'secret'), 'TOPSECRET');
    symlinkSync(join(outside, 'secret'), join(pkg(), 'archived', 'evil.json'));
    execFileSync('mkfifo', [join(pkg(), 'archived', 'pipe.json')]);
    const before = await inspectJournal(root);
    expect(before.refusedNames.map((name) => name.path).sort()).toEqual([join(pkg(), 'archived', 'evil.json'), join(pkg(), 'archived', 'pipe.json')]);
    await load();
    // The package's file was loaded, and the package stays for what it holds set aside.
    expect(readdirSync(join(pkg(), 'loaded'))).toEqual([jobName(waiting('2026-03-10'))]);
    const link = join(pkg(), 'archived', '.unreadable-evil.json');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(join(outside, 'secret'));
    expect(lstatSync(join(pkg(), 'archived', '.unreadable-pipe.json')).isFIFO()).toBe(true);
    const record = await readOnRecord(root);
    expect(record.setAside.sort()).toEqual([link, join(pkg(), 'archived', '.unreadable-pipe.json')]);
    // Read again, nothing is refused twice, and the package is still kept.
    expect((await inspectJournal(root)).refusedNames).toEqual([]);
    await dropDonePackages(root);
    expect(existsSync(link)).toBe(true);
    expect(readFileSync(join(outside, 'secret'), 'utf8')).toBe('TOPSECRET');
  });

  it('a name planted beside the packages is set aside there and named', async () => {
    await writePackage(root, ID, { files: [waiting('2026-03-10')] });
    symlinkSync(join(outside, 'secret'), join(packagesFolder(root), 'notes'));
    await load();
    expect((await readOnRecord(root)).setAside).toEqual([join(packagesFolder(root), '.unreadable-notes')]);
  });
});

describe('a package file that is not JSON', () => {
  it('leaves a note in quarantined/ naming where its bytes are kept, and the bytes beside it, never read again', async () => {
    await writePackage(root, ID, { files: [waiting('2026-03-10')] });
    const bad = join(pkg(), 'archived', '2026-03-09_levels_bybit_BTC_dddddddddddddddd.json');
    writeFileSync(bad, 'not json \u001b[31m at all');
    await load();
    const kept = join(pkg(), 'quarantined', '2026-03-09_levels_bybit_BTC_dddddddddddddddd.json.bytes');
    expect(readFileSync(kept, 'utf8')).toBe('not json \u001b[31m at all');
    expect(existsSync(bad)).toBe(false);
    const state = await inspectJournal(root);
    expect(state.journal.rejected).toEqual([
      expect.objectContaining({ kind: 'file', entry: null, reason: expect.stringContaining(`its bytes are kept as ${kept}`) }),
    ]);
    expect(state.warnings).toEqual([]); // not refused a second time
    expect((await readOnRecord(root)).waiting.rejected).toBe(1);
  });
});
