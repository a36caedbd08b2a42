import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  checkEntries,
  emptyJournal,
  inspectJournal,
  legacyJournalPath,
  readJournal,
  runOf,
  withFiles,
  withoutApplied,
  type JournaledFile,
} from '../../src/journal/journal.js';
import { applyJournal, heldMessage } from '../../src/journal/load-pending.js';
import { openSpendLog } from '../../src/journal/spend-log.js';
import { journalRun } from '../../src/journal/held.js';
import { writeJournalPackages } from '../../src/journal/package-write.js';
import { migrateLegacy } from '../../src/journal/migrate.js';
import { packagesFolder } from '../../src/journal/layout.js';
import { writeArchived, withDb } from '../warehouse/archive-fixtures.js';
import { BTC, makeTempDir, query } from '../warehouse/fixtures.js';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));
function tempDir(): string {
  const { dir, cleanup } = makeTempDir();
  cleanups.push(cleanup);
  return dir;
}

const fileA: JournaledFile = {
  exchange: 'bybit',
  symbol: 'BTC',
  sessionDate: '2026-11-20',
  file: 'levels',
  sha256: 'a'.repeat(64),
  bytes: 10,
  rows: 2,
  archivePath: 'bybit/BTC/2026-11-20_levels.csv.gz',
  downloadedAt: '2026-11-21T00:00:00.000Z',
};

describe('the journal as load packages', () => {
  it('is empty when absent, round-trips, and leaves no temp file behind', async () => {
    const archive = tempDir();
    expect(await readJournal(archive)).toEqual(emptyJournal());
    const journal = withFiles(emptyJournal(), [fileA]);
    await writeJournalPackages(archive, journal);
    expect(await readJournal(archive)).toEqual(journal);
    const [pkg] = readdirSync(packagesFolder(archive));
    expect(readdirSync(join(packagesFolder(archive), pkg!))).toEqual(['archived']);
    expect(readdirSync(join(packagesFolder(archive), pkg!, 'archived'))).toEqual([`2026-11-20_levels_bybit_BTC_${'a'.repeat(16)}.json`]);
  });

  it('an older journal that is not JSON reads as empty with the reason naming it, and the migration keeps it aside', async () => {
    const archive = tempDir();
    mkdirSync(join(archive, '_journal'));
    writeFileSync(legacyJournalPath(archive), '{"version":1,"files":[');
    const read = await inspectJournal(archive);
    expect(read.journal).toEqual(emptyJournal());
    expect(read.unreadable).toContain(legacyJournalPath(archive));
    expect(read.unreadable).toMatch(/is not valid JSON/);
    writeFileSync(legacyJournalPath(archive), 'x\u001b[31m'); // the parser quotes the text: escaped, never raw on a terminal
    expect((await inspectJournal(archive)).unreadable).not.toContain('\u001b');
    writeFileSync(legacyJournalPath(archive), '{"version":1,"files":[');
    expect((await migrateLegacy(archive)).join('\n')).toMatch(/is not valid JSON .*; it was set aside as \S+pending\.json\.unreadable-/);
    await writeJournalPackages(archive, withFiles(emptyJournal(), [fileA]));
    const kept = readdirSync(join(archive, '_journal')).filter((name) => name.startsWith('pending.json.unreadable-'));
    expect(kept).toHaveLength(1);
    expect(readFileSync(join(archive, '_journal', kept[0]!), 'utf8')).toBe('{"version":1,"files":[');
    expect((await readJournal(archive)).files).toEqual([fileA]);
  });

  it('keeps one entry per file version and removes what was applied', () => {
    const newer = { ...fileA, sha256: 'b'.repeat(64) };
    const journal = withFiles(withFiles(emptyJournal(), [fileA]), [fileA, newer]);
    expect(journal.files).toEqual([fileA, newer]);
    const run = runOf(
      { command: 'sync', options: { apiKey: 'secret', db: 'x' }, startedAt: new Date('2026-11-21T00:00:00Z') },
      { outcome: 'locked', creditsSpent: 3 },
    );
    expect(run.options).toEqual({ db: 'x' }); // the key never reaches the journal
    const rest = withoutApplied({ ...journal, runs: [run] }, { files: [fileA], listings: 0, runs: 1 });
    expect(rest).toEqual({ ...emptyJournal(), files: [newer] });
  });
});

describe('heldMessage', () => {
  it('names the holder, the wait, the files paid and waiting, and how they get loaded', () => {
    const text = heldMessage({ dbPath: '/w/gex.duckdb', archiveRoot: '/w/raw', pid: 4251, waitedSeconds: 300, filesWaiting: 5, filesPaid: 3 });
    expect(text).toBe(
      'the warehouse /w/gex.duckdb is held by process 4251 (waited 300 s): 3 file(s) paid by this run are verified and archived; ' +
        '5 file(s) wait in /w/raw/_journal/packages; the next gexwh sync, or gexwh load (no network), loads them for 0 credits',
    );
    expect(heldMessage({ dbPath: '/w/gex.duckdb', archiveRoot: '/w/raw', pid: undefined, waitedSeconds: 0, filesWaiting: 0 })).toBe(
      'the warehouse /w/gex.duckdb is held by another process: no paid file is waiting; nothing was lost',
    );
  });
});

describe('applyJournal', () => {
  it('is idempotent: applied again after a crash before its entries moved on, no row or run is doubled; then the packages go', async () => {
    const dir = tempDir();
    const archive = join(dir, 'raw');
    const db = join(dir, 'gex.duckdb');
    const input = writeArchived(archive, 'levels', BTC);
    const file: JournaledFile = {
      exchange: input.exchange,
      symbol: input.symbol,
      sessionDate: input.sessionDate,
      file: input.file,
      sha256: input.sha256,
      bytes: input.bytes,
      rows: input.rows,
      archivePath: input.archivePath,
      downloadedAt: '2026-11-21T00:00:00.000Z',
    };
    const listing = {
      exchange: 'bybit',
      symbol: 'BTC',
      completeFrom: null,
      listedAt: '2026-11-21T00:00:00.000Z',
      rows: [{ session_date: input.sessionDate, file: 'levels', rows: input.rows, bytes: input.bytes, sha256: input.sha256, schema_version: 1 }],
    };
    // The run's package: its credit and its record; the file and the listing in a package of their own.
    const start = { command: 'sync', options: {}, startedAt: new Date('2026-11-21T00:00:00Z') };
    const log = openSpendLog(archive, start);
    await log.credit(1);
    await journalRun(archive, start, undefined, { outcome: 'locked', creditsSpent: 1, finishedAt: new Date('2026-11-21T00:01:00Z') });
    await log.close({ journaled: true });
    await writeJournalPackages(archive, { ...withFiles(emptyJournal(), [file]), listings: [listing] });
    const saved = join(dir, 'saved');
    cpSync(packagesFolder(archive), saved, { recursive: true });

    const first = await withDb(db, (wh) => applyJournal(wh.connection, archive, { check: { known: [listing] } }));
    expect(first).toMatchObject({ filesLoaded: 1, rowsLoaded: input.rows, runsRecorded: 1, manifestsStored: 1, failed: [] });
    expect(await readJournal(archive)).toEqual(emptyJournal());

    // As if the process died after the commit, before any entry moved to its next state.
    rmSync(packagesFolder(archive), { recursive: true, force: true });
    cpSync(saved, packagesFolder(archive), { recursive: true });
    const second = await withDb(db, (wh) => applyJournal(wh.connection, archive, { check: { known: [listing] } }));
    expect(second).toMatchObject({ filesLoaded: 0, runsRecorded: 0 });
    await withDb(db, async (wh) => {
      expect(await query(wh, `SELECT count(*)::INT n FROM levels`)).toEqual([{ n: input.rows }]);
      expect(await query(wh, `SELECT outcome, credits_spent::INT c FROM sync.runs`)).toEqual([{ outcome: 'locked', c: 1 }]);
      expect(await query(wh, `SELECT count(*)::INT n FROM sync.manifest`)).toEqual([{ n: 1 }]);
    });
    // Everything settled: the packages went, and the journal's folder with them.
    expect(existsSync(join(archive, '_journal'))).toBe(false);
  });
});

describe('checkEntries: each entry on its own, by the name rules of coverage rows', () => {
  const good = { ...fileA, archivePath: 'bybit/BTC/2026-11-20_levels.csv.gz' };
  const listing = {
    exchange: 'bybit',
    symbol: 'BTC',
    listedAt: '2026-11-21T00:00:00.000Z',
    rows: [{ session_date: '2026-11-20', file: 'levels', rows: 2, bytes: 10, sha256: 'a'.repeat(64), schema_version: 1 }],
  };
  it.each([
    ['an unknown venue', { ...good, exchange: 'kraken' }, /^exchange: expected a history venue: bybit, deribit/],
    ['a venue that climbs out', { ...good, exchange: '../../x' }, /^exchange: /],
    ['a symbol with markup and ESC', { ...good, symbol: '<script>\u001b[31m' }, /^symbol: expected a symbol of 1 to 32 characters/],
    ['a lower-case symbol', { ...good, symbol: 'btc' }, /^symbol: /],
    ['a date that does not exist', { ...good, sessionDate: '2026-02-30' }, /^sessionDate: expected a date YYYY-MM-DD/],
    ['an unknown file kind', { ...good, file: 'quotes' }, /^file: /],
    ['a sha256 that is not 64 hex digits', { ...good, sha256: 'A'.repeat(64) }, /^sha256: expected 64 lower-case hex digits/],
    ['a negative size', { ...good, bytes: -1 }, /^bytes: /],
    ['a path outside the archive', { ...good, archivePath: '/etc/passwd' }, /^archivePath: "\/etc\/passwd" leaves the archive/],
    ["a path that is another file's", { ...good, archivePath: 'bybit/BTC/2026-11-19_levels.csv.gz' }, /^archivePath: .* is not the archive name of/],
  ])('refuses a file entry with %s, keeps the others', (_, bad, reason) => {
    const read = checkEntries({ version: 1, files: [good, bad], listings: [listing], runs: [] }, '/srv/raw', '2026-11-21T00:00:00.000Z');
    expect(read.journal.files).toEqual([good]);
    expect(read.journal.listings).toHaveLength(1);
    expect(read.journal.rejected).toEqual([{ kind: 'file', reason: expect.stringMatching(reason), rejectedAt: '2026-11-21T00:00:00.000Z', entry: bad }]);
    expect(read.warnings).toEqual([expect.stringMatching(/^journal file entry 2 \(.*\) refused: .*; kept in the journal's rejected list, never used$/)]);
    expect(read.warnings[0]).not.toContain('\u001b');
  });

  it('refuses listings and runs the same way, and keeps what an earlier read refused', () => {
    const earlier = { kind: 'run', reason: 'old', rejectedAt: '2026-11-20T00:00:00.000Z', entry: {} };
    const run = runOf({ command: 'sync', options: {}, startedAt: new Date('2026-11-21T00:00:00Z') }, { outcome: 'locked' });
    const read = checkEntries(
      {
        version: 1,
        files: [],
        listings: [listing, { ...listing, symbol: 'B/C' }, { ...listing, rows: [{ ...listing.rows[0], file: 'x' }] }],
        runs: [run, { ...run, command: 'rm -rf' }],
        rejected: [earlier],
      },
      '/srv/raw',
      '2026-11-21T00:00:00.000Z',
    );
    expect(read.journal.listings).toEqual([listing]);
    expect(read.journal.runs).toEqual([run]);
    expect(read.journal.rejected.map((r) => [r.kind, r.reason])).toEqual([
      ['run', 'old'],
      ['listing', expect.stringMatching(/^symbol: /)],
      ['listing', expect.stringMatching(/^rows\.0\.file: expected a file kind/)],
      ['run', expect.stringMatching(/^command: expected a command name/)],
    ]);
    expect(read.warnings).toHaveLength(3);
  });
});
