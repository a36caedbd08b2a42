// Verified loads, confined paths (issue 28): nothing enters the warehouse that is not the paid file,
// nothing outside the archive is touched. Each case is an attack the issue reproduced through the
// CLI; here gexwh runs in-process (src/cli/run.ts, the code path of the binary) on a fresh copy of one
// prepared workspace: files paid and archived, manifests stored, nothing loaded, and the journal a
// held-out sync of an earlier version left (paths relative to the folder that sync ran in, which is
// where each command runs unless the case says otherwise: each case then fails, before the change, at
// its own attack, not at a load that could not find the files).
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/index.js';
import { PartialFailureError } from '../../src/core/errors.js';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import { syncApiFrom } from '../../src/sync/api-port.js';
import { runSync } from '../../src/sync/run.js';
import { parseSyncSelection } from '../../src/sync/selection.js';
import { duckdb } from '../../src/warehouse/duckdb.js';
import { openWarehouse } from '../../src/warehouse/index.js';
import { runCliInProcess, type CliResult } from '../helpers/cli.js';
import { tableChecksums } from '../helpers/invariants.js';
import { ONE_PAIR_ARGS } from '../helpers/workspace.js';
import { journalState } from '../helpers/journal-state.js';
import { readAttached as rows } from '../helpers/attached-warehouse.js';

let emulator: Emulator;
let dir: string;
/** The tables of a clean sync of the same files: what every load here must end with. */
let clean: Record<string, string>;
/** The prepared workspace, copied for each test. */
let template: string;
let manifest: { session_date: string; file: string; sha256: string; bytes: number; rows: number }[];

const SESSIONS = ['2026-03-08', '2026-03-09', '2026-03-10'];
const KINDS = ['levels', 'strikes_total', 'strikes_by_expiry'];

interface Ws {
  root: string;
  db: string;
  archive: string;
  args: string[];
}

let count = 0;
function fresh(): Ws {
  const root = join(dir, `ws${++count}`);
  cpSync(template, root, { recursive: true });
  const db = join(root, 'data', 'gex.duckdb');
  const archive = join(root, 'data', 'raw');
  return { root, db, archive, args: ['--db', db, '--archive', archive] };
}

const admin = () => ({ GEX_BASE_URL: emulator.baseUrl, GEX_API_KEY: emulator.keys.admin });
const cli = (args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<CliResult> => runCliInProcess(args, options);

function name(session: string, kind: string): string {
  return `${session}_${kind}.csv.gz`;
}

/** A valid daily file of the same session and row count whose numbers are not the paid file's. */
function tampered(original: string): Buffer {
  const text = gunzipSync(readFileSync(original)).toString('utf8');
  const [header, ...lines] = text.trimEnd().split('\n');
  const spot = header!.split(',').indexOf('spot');
  const changed = lines.map((line) =>
    line
      .split(',')
      .map((v, i) => (i === spot ? '1.5' : v))
      .join(','),
  );
  return gzipSync(`${[header, ...changed].join('\n')}\n`);
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

function journalFile(ws: Ws): string {
  return join(ws.archive, '_journal', 'pending.json');
}

/** The journal's state whatever its layout, as the older journal file's envelope (which writeJournalJson plants). */
async function readJournalJson(ws: Ws): Promise<{
  version: 1;
  files: Record<string, unknown>[];
  listings: Record<string, unknown>[];
  runs: unknown[];
  rejected?: { kind: string; reason: string }[];
}> {
  const { files, listings, runs, rejected } = await journalState(ws.archive);
  return { version: 1, files, listings, runs, rejected };
}

function writeJournalJson(ws: Ws, journal: object): void {
  mkdirSync(join(ws.archive, '_journal'), { recursive: true }); // a load that emptied the journal removed its folder
  writeFileSync(journalFile(ws), JSON.stringify(journal));
}

/** A journal entry as an earlier version wrote it (the path relative to the folder the sync ran in). */
function entry(session: string, kind: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const row = manifest.find((m) => m.session_date === session && m.file === kind)!;
  return {
    exchange: 'deribit',
    symbol: 'BTC',
    sessionDate: session,
    file: kind,
    sha256: row.sha256,
    bytes: row.bytes,
    rows: row.rows,
    archivePath: `data/raw/deribit/BTC/${name(session, kind)}`,
    downloadedAt: '2026-03-11T14:10:00.000Z',
    ...overrides,
  };
}

function journalOf(files: Record<string, unknown>[], extra: object = {}): object {
  return { version: 1, files, listings: [], runs: [], ...extra };
}

beforeAll(async () => {
  emulator = await startEmulator({ now: '2026-03-11T14:07:00Z', days: 3, expirations: 1, strikes: 4, seed: 11, symbols: ['BTC'] });
  dir = mkdtempSync(join(tmpdir(), 'gexwh-trust-'));
  const source = join(dir, 'source');
  const synced = await cli(['sync', '--db', join(source, 'gex.duckdb'), '--archive', join(source, 'raw'), ...ONE_PAIR_ARGS], { env: admin() });
  expect(synced.code, synced.stderr).toBe(0);
  clean = await tableChecksums(join(source, 'gex.duckdb'));
  manifest = await rows(
    join(source, 'gex.duckdb'),
    `SELECT session_date::VARCHAR session_date, file, sha256, bytes::INT AS bytes, "rows"::INT AS "rows" FROM sync.manifest`,
  );
  expect(manifest).toHaveLength(9);
  template = join(dir, 'template');
  // A plan never creates a warehouse: an empty one first, which the plan then records the listing into.
  mkdirSync(join(template, 'data'), { recursive: true });
  (await openWarehouse(join(template, 'data', 'gex.duckdb'))).close();
  const planned = await cli(['plan', '--db', join(template, 'data', 'gex.duckdb'), '--archive', join(template, 'data', 'raw'), ...ONE_PAIR_ARGS], {
    env: admin(),
  });
  expect(planned.code, planned.stderr).toBe(0);
  cpSync(join(source, 'raw'), join(template, 'data', 'raw'), { recursive: true });
  mkdirSync(join(template, 'data', 'raw', '_journal'), { recursive: true });
  const files = SESSIONS.flatMap((session) => KINDS.map((kind) => entry(session, kind)));
  writeFileSync(join(template, 'data', 'raw', '_journal', 'pending.json'), JSON.stringify(journalOf(files)));
}, 120_000);

afterAll(async () => {
  await emulator?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('paths are resolved against the archive, never the working folder', () => {
  it("load run from another folder that holds files at the same relative paths loads the archive's bytes", async () => {
    const ws = fresh();
    const other = join(dir, `other${count}`);
    const decoys = join(other, 'data', 'raw', 'deribit', 'BTC');
    mkdirSync(decoys, { recursive: true });
    for (const session of SESSIONS)
      for (const kind of KINDS) writeFileSync(join(decoys, name(session, kind)), tampered(join(ws.archive, 'deribit', 'BTC', name(session, kind))));

    const loaded = await cli(['load', ...ws.args, '--json'], { cwd: other });
    expect(loaded.code, loaded.stderr).toBe(0);
    expect(JSON.parse(loaded.stdout)).toMatchObject({ files_loaded: 9, files_failed: [] });
    expect(await tableChecksums(ws.db)).toEqual(clean);
    expect(await rows(ws.db, `SELECT count(*)::INT n FROM levels WHERE spot = 1.5`)).toEqual([{ n: 0 }]);
    const paths = await rows<{ archive_path: string }>(ws.db, `SELECT archive_path FROM sync.files ORDER BY 1`);
    expect(paths.map((p) => p.archive_path)).toEqual(SESSIONS.flatMap((s) => KINDS.map((k) => `deribit/BTC/${name(s, k)}`)).sort());
    expect((await cli(['verify', ...ws.args], { cwd: other })).code).toBe(0);
  });
});

describe('a journal entry is a claim, checked before anything is opened or loaded', () => {
  it('a path outside the archive (a file elsewhere, /etc/passwd) is refused with a warning naming it and never recorded', async () => {
    const ws = fresh();
    expect((await cli(['load', ...ws.args], { cwd: ws.root })).code).toBe(0);
    const evil = join(dir, `evil${count}.csv.gz`);
    writeFileSync(evil, tampered(join(ws.archive, 'deribit', 'BTC', name('2026-03-10', 'levels'))));
    writeJournalJson(
      ws,
      journalOf([
        entry('2026-03-10', 'levels', { sha256: 'e'.repeat(64), archivePath: evil }),
        entry('2026-03-09', 'levels', { sha256: 'f'.repeat(64), archivePath: '/etc/passwd' }),
      ]),
    );

    const loaded = await cli(['load', ...ws.args], { cwd: ws.root });
    expect(loaded.code, loaded.stderr).toBe(0);
    expect(loaded.stdout).toContain(`${JSON.stringify(evil)} leaves the archive`);
    expect(loaded.stdout).toContain('"/etc/passwd" leaves the archive');
    expect(await tableChecksums(ws.db)).toEqual(clean);
    expect(await rows(ws.db, `SELECT status, count(*)::INT n FROM sync.files GROUP BY 1`)).toEqual([{ status: 'loaded', n: 9 }]);
    expect(
      await rows(ws.db, `SELECT count(*)::INT n FROM sync.files WHERE archive_path LIKE '/%' OR sha256 IN ('${'e'.repeat(64)}', '${'f'.repeat(64)}')`),
    ).toEqual([{ n: 0 }]);
    const journal = await readJournalJson(ws);
    expect(journal.files).toEqual([]);
    expect(journal.rejected?.map((r) => r.kind)).toEqual(['file', 'file']);
  });

  it("a made-up sha256 loads the real file as the manifest's version; the next sync pays nothing", async () => {
    const ws = fresh();
    const journal = await readJournalJson(ws);
    const madeUp = 'd'.repeat(64);
    journal.files = journal.files.map((f) => (f.sessionDate === '2026-03-10' && f.file === 'levels' ? { ...f, sha256: madeUp } : f));
    writeJournalJson(ws, journal);

    const loaded = await cli(['load', ...ws.args], { cwd: ws.root });
    expect(loaded.code, loaded.stderr).toBe(0);
    const real = manifest.find((m) => m.session_date === '2026-03-10' && m.file === 'levels')!.sha256;
    expect(await rows(ws.db, `SELECT sha256 FROM sync.files WHERE session_date = '2026-03-10' AND file = 'levels'`)).toEqual([{ sha256: real }]);
    expect(loaded.stdout).toContain(`says sha256 ${madeUp}; the manifest's version ${real} is what may load`);
    const credits = emulator.counters.credits(emulator.keys.admin);
    const next = await cli(['sync', ...ws.args, ...ONE_PAIR_ARGS, '--json'], { env: admin(), cwd: ws.root });
    expect(next.code, next.stderr).toBe(0);
    expect(JSON.parse(next.stdout)).toMatchObject({ credits_spent: 0, files_loaded: 0 });
    expect(emulator.counters.credits(emulator.keys.admin)).toBe(credits);
  });

  it('an outside path named like a pending version is refused; every later load and sync completes', async () => {
    const ws = fresh();
    expect((await cli(['load', ...ws.args], { cwd: ws.root })).code).toBe(0);
    const outside = join(dir, `out${count}`);
    mkdirSync(outside);
    const fake = join(outside, `2026-03-10_levels.${'e'.repeat(12)}.csv.gz`);
    writeFileSync(fake, tampered(join(ws.archive, 'deribit', 'BTC', name('2026-03-10', 'levels'))));
    writeJournalJson(ws, journalOf([entry('2026-03-10', 'levels', { sha256: 'e'.repeat(64), archivePath: fake })]));

    for (const attempt of [1, 2]) expect((await cli(['load', ...ws.args], { cwd: ws.root })).code, `load ${attempt}`).toBe(0);
    const sync = await cli(['sync', ...ws.args, ...ONE_PAIR_ARGS, '--json'], { env: admin(), cwd: ws.root });
    expect(sync.code, sync.stderr).toBe(0);
    expect(JSON.parse(sync.stdout)).toMatchObject({ credits_spent: 0 });
    expect(await tableChecksums(ws.db)).toEqual(clean);
    expect(await rows(ws.db, `SELECT count(*)::INT n FROM sync.runs WHERE outcome IS NULL`)).toEqual([{ n: 0 }]);
    expect(existsSync(fake)).toBe(true); // not moved into the archive, not renamed
  });

  it('listings are checked with the name rules of coverage rows: a bad venue or symbol never reaches sync.manifest', async () => {
    const ws = fresh();
    const row = { session_date: '2026-03-10', file: 'levels', rows: 1, bytes: 1, sha256: 'a'.repeat(64), schema_version: 1 };
    const listing = (exchange: string, symbol: string) => ({ exchange, symbol, completeFrom: null, listedAt: '2026-03-11T14:10:00.000Z', rows: [row] });
    const journal = await readJournalJson(ws);
    writeJournalJson(ws, { ...journal, listings: [listing('../../x', 'BTC'), listing('deribit', '<script>\u001b[31mX'), listing('deribit', 'ETH')] });

    // No key here: --trust-journal stores the rows that pass the name rules, unchecked (marked unconfirmed).
    const loaded = await cli(['load', ...ws.args, '--trust-journal', '--json'], { cwd: ws.root });
    expect(loaded.code, loaded.stderr).toBe(0);
    expect(JSON.parse(loaded.stdout)).toMatchObject({ files_loaded: 9, manifests_stored: 1 });
    expect(loaded.stderr + loaded.stdout).not.toContain('\u001b[31m');
    expect(await rows(ws.db, `SELECT DISTINCT exchange, symbol FROM sync.manifest ORDER BY 2`)).toEqual([
      { exchange: 'deribit', symbol: 'BTC' },
      { exchange: 'deribit', symbol: 'ETH' },
    ]);
    expect((await readJournalJson(ws)).rejected?.map((r) => r.reason)).toEqual([
      expect.stringMatching(/^exchange: expected a history venue/),
      expect.stringMatching(/^symbol: expected a symbol of 1 to 32 characters/),
    ]);
  });

  it('a journal that is not JSON: status works and says so, load sets it aside and the archived files still load for 0 credits', async () => {
    const ws = fresh();
    writeFileSync(journalFile(ws), '{"version":1,"files":[{"exch');
    const status = await cli(['status', ...ws.args], { cwd: ws.root });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/journal: the journal \S+pending\.json is not valid JSON/);

    const loaded = await cli(['load', ...ws.args], { cwd: ws.root });
    expect(loaded.code, loaded.stderr).toBe(0);
    expect(readdirSync(join(ws.archive, '_journal')).filter((n) => n.startsWith('pending.json.unreadable-'))).toHaveLength(1);
    const credits = emulator.counters.credits(emulator.keys.admin);
    const sync = await cli(['sync', ...ws.args, ...ONE_PAIR_ARGS, '--json'], { env: admin(), cwd: ws.root });
    expect(sync.code, sync.stderr).toBe(0);
    expect(JSON.parse(sync.stdout)).toMatchObject({ credits_spent: 0, files_loaded: 9 });
    expect(emulator.counters.credits(emulator.keys.admin)).toBe(credits);
    expect(await tableChecksums(ws.db)).toEqual(clean);
  });
});

describe('bytes that are not the paid file never load: they are quarantined and planned again', () => {
  it('a journaled file whose bytes were changed moves to _quarantine with a note; the next sync buys it again', async () => {
    const ws = fresh();
    const path = join(ws.archive, 'deribit', 'BTC', name('2026-03-09', 'strikes_total'));
    const bad = tampered(path);
    writeFileSync(path, bad);

    const loaded = await cli(['load', ...ws.args, '--json'], { cwd: ws.root });
    expect(loaded.code).toBe(4);
    const result = JSON.parse(loaded.stdout) as { files_loaded: number; files_failed: { session_date: string; file: string; error: string }[] };
    expect(result.files_loaded).toBe(8);
    expect(result.files_failed).toEqual([expect.objectContaining({ session_date: '2026-03-09', file: 'strikes_total' })]);
    expect(result.files_failed[0]!.error).toMatch(/sha256 [0-9a-f]{64} \(\d+ bytes\), the manifest says [0-9a-f]{64}.*not loaded, moved to \S+_quarantine/);
    const folder = join(ws.archive, '_quarantine', 'deribit', 'BTC');
    const moved = readdirSync(folder).filter((n) => !n.endsWith('.note.json'));
    expect(moved).toEqual([expect.stringMatching(/^2026-03-09_strikes_total\.csv\.gz\.\d{8}T\d{6}Z$/)]);
    expect(readFileSync(join(folder, moved[0]!)).equals(bad)).toBe(true);
    const note = JSON.parse(readFileSync(join(folder, `${moved[0]}.note.json`), 'utf8'));
    const expected = manifest.find((m) => m.session_date === '2026-03-09' && m.file === 'strikes_total')!;
    expect(note).toMatchObject({
      file: 'deribit/BTC/2026-03-09_strikes_total.csv.gz',
      expected_sha256: expected.sha256,
      found_sha256: sha256(bad),
      found_bytes: bad.length,
    });
    expect(existsSync(path)).toBe(false);
    expect(await rows(ws.db, `SELECT status, archive_path FROM sync.files WHERE session_date = '2026-03-09' AND file = 'strikes_total'`)).toEqual([
      { status: 'failed_verify', archive_path: null },
    ]);

    const credits = emulator.counters.credits(emulator.keys.admin);
    const sync = await cli(['sync', ...ws.args, ...ONE_PAIR_ARGS, '--json'], { env: admin(), cwd: ws.root });
    expect(sync.code, sync.stderr).toBe(0);
    expect(JSON.parse(sync.stdout)).toMatchObject({ credits_spent: 1, files_loaded: 1 });
    expect(emulator.counters.credits(emulator.keys.admin)).toBe(credits + 1);
    expect(await tableChecksums(ws.db)).toEqual(clean);
  });

  it('a copy the planner reused is hashed again as it loads: one changed after the plan is quarantined, never loaded', async () => {
    const ws = fresh();
    rmSync(journalFile(ws)); // no journal: the plan finds the paid files in the archive and reuses them
    const path = join(ws.archive, 'deribit', 'BTC', name('2026-03-10', 'levels'));
    const bad = tampered(path);
    const client = createApiClient({ baseUrl: emulator.baseUrl, apiKey: emulator.keys.admin, retry: { baseDelayMs: 1, maxDelayMs: 5 } });
    const selection = parseSyncSelection({ exchange: 'deribit', symbol: 'BTC' });
    const options = {
      command: 'sync' as const,
      dbPath: ws.db,
      archiveRoot: ws.archive,
      selection,
      dryRun: false,
      fullRescan: false,
      fillLevels: false,
      recordedOptions: {},
    };
    let planned: number | undefined;
    const events = {
      phase(phase: string, detail?: string) {
        // After the plan judged the copy intact, before its load: the window a swap would use.
        if (phase === 'download') {
          planned = Number(detail?.split(' ')[0]);
          writeFileSync(path, bad);
        }
      },
    };
    try {
      const failed = await runSync(options, syncApiFrom(client), new AbortController().signal, events).catch((e: unknown) => e);
      expect(planned).toBe(0); // every file reused: nothing to download
      expect(failed).toBeInstanceOf(PartialFailureError);
      const summary = (failed as PartialFailureError).cause as { filesLoaded: number; creditsSpent: number; filesFailed: { error: string }[] };
      expect(summary).toMatchObject({ filesLoaded: 8, creditsSpent: 0 });
      expect(summary.filesFailed[0]!.error).toMatch(/the manifest says [0-9a-f]{64}.*moved to \S+_quarantine.*the next sync downloads it again/);
    } finally {
      await client.close();
    }
    expect(await rows(ws.db, `SELECT count(*)::INT n FROM levels WHERE spot = 1.5`)).toEqual([{ n: 0 }]);
    expect(existsSync(path)).toBe(false);
    const next = await cli(['sync', ...ws.args, ...ONE_PAIR_ARGS, '--json'], { env: admin(), cwd: ws.root });
    expect(next.code, next.stderr).toBe(0);
    expect(JSON.parse(next.stdout)).toMatchObject({ credits_spent: 1, files_loaded: 1 });
    expect(await tableChecksums(ws.db)).toEqual(clean);
  });
});

describe('symbolic links: followed inside the archive only, each one leading out named', () => {
  const passwd = existsSync('/etc/passwd') ? sha256(readFileSync('/etc/passwd')) : undefined;

  it('verify and rebuild refuse a link to /etc/passwd and never hash it', async () => {
    const ws = fresh();
    expect((await cli(['load', ...ws.args], { cwd: ws.root })).code).toBe(0);
    const link = join(ws.archive, 'deribit', 'BTC', name('2026-03-08', 'levels'));
    rmSync(link);
    symlinkSync('/etc/passwd', link);

    const verify = await cli(['verify', ...ws.args], { cwd: ws.root });
    expect(verify.code).toBe(4);
    expect(verify.stdout).toMatch(
      /outside_archive: deribit\/BTC 2026-03-08 levels: \S+2026-03-08_levels\.csv\.gz is a symbolic link \(or lies under one\) to \/etc\/passwd, outside the archive/,
    );
    if (passwd) expect(verify.stdout).not.toContain(passwd);
    const rebuild = await cli(['rebuild', ...ws.args], { cwd: ws.root });
    expect(rebuild.code).toBe(4);
    expect(rebuild.stdout).toMatch(
      /outside_archive: deribit\/BTC 2026-03-08 levels: .*to \/etc\/passwd, outside the archive .*not followed; its rows are kept as they are/,
    );
    if (passwd) expect(rebuild.stdout).not.toContain(passwd);
    expect(await tableChecksums(ws.db)).toEqual(clean);
    expect(readlinkSync(link)).toBe('/etc/passwd'); // not moved: nothing was read through it
  });

  it('rebuild from the archive alone names a link out of it (exit 4) instead of leaving its session silently empty', async () => {
    const ws = fresh();
    rmSync(ws.db);
    const moved = join(dir, `moved${count}.csv.gz`);
    const link = join(ws.archive, 'deribit', 'BTC', name('2026-03-09', 'levels'));
    cpSync(link, moved);
    rmSync(link);
    symlinkSync(moved, link);

    const rebuild = await cli(['rebuild', ...ws.args], { cwd: ws.root });
    expect(rebuild.code).toBe(4);
    expect(rebuild.stdout).toContain('8 file(s) loaded');
    expect(rebuild.stdout).toMatch(
      /outside_archive: deribit\/BTC 2026-03-09 levels: .* is a symbolic link .* outside the archive .*not followed; the file is not in the warehouse/,
    );
    expect(rebuild.stderr).toMatch(/1 archived file\(s\) could not be rebuilt/);
  });

  it('load refuses a journaled file that is a link out of the archive; the sync after it buys the file again', async () => {
    const ws = fresh();
    const link = join(ws.archive, 'deribit', 'BTC', name('2026-03-10', 'strikes_by_expiry'));
    const outside = join(dir, `far${count}.csv.gz`);
    writeFileSync(outside, readFileSync(link)); // the genuine bytes, but outside the archive
    rmSync(link);
    symlinkSync(outside, link);

    const loaded = await cli(['load', ...ws.args, '--json'], { cwd: ws.root });
    expect(loaded.code).toBe(4);
    expect(JSON.parse(loaded.stdout)).toMatchObject({
      files_loaded: 8,
      files_failed: [expect.objectContaining({ file: 'strikes_by_expiry', error: expect.stringMatching(/outside the archive .*not followed/) })],
    });
    const sync = await cli(['sync', ...ws.args, ...ONE_PAIR_ARGS, '--json'], { env: admin(), cwd: ws.root });
    expect(sync.code, sync.stderr).toBe(0);
    expect(JSON.parse(sync.stdout)).toMatchObject({ credits_spent: 1, files_loaded: 1 });
    expect(await tableChecksums(ws.db)).toEqual(clean);
    expect(readFileSync(outside).equals(readFileSync(join(ws.archive, 'deribit', 'BTC', name('2026-03-10', 'strikes_by_expiry'))))).toBe(true);
  });

  it('sync never writes through a folder that is a link out of the archive, and pays for no link there', async () => {
    const ws = fresh();
    rmSync(journalFile(ws));
    const far = join(dir, `far-folder${count}`);
    mkdirSync(far);
    rmSync(join(ws.archive, 'deribit', 'BTC'), { recursive: true });
    symlinkSync(far, join(ws.archive, 'deribit', 'BTC'));
    const credits = emulator.counters.credits(emulator.keys.admin);

    const sync = await cli(['sync', ...ws.args, ...ONE_PAIR_ARGS, '--json'], { env: admin(), cwd: ws.root });
    expect(sync.code).toBe(4);
    expect(JSON.parse(sync.stdout)).toMatchObject({ credits_spent: 0, files_loaded: 0 });
    expect(sync.stdout).toMatch(/deribit\/BTC is a symbolic link \(or lies under one\) to \S+far-folder\d+, outside the archive .*not followed; no link paid/);
    expect(emulator.counters.credits(emulator.keys.admin)).toBe(credits);
    expect(readdirSync(far)).toEqual([]);
  });
});

describe("the journal's folders are the archive's own", () => {
  it('a _journal that is a link out of the archive is never read or written through: load and sync stop (exit 2) naming it, before a credit', async () => {
    const ws = fresh();
    const journalFolder = join(ws.archive, '_journal');
    const far = join(dir, `far-journal${count}`);
    cpSync(journalFolder, far, { recursive: true });
    rmSync(journalFolder, { recursive: true });
    symlinkSync(far, journalFolder);
    const before = readFileSync(join(far, 'pending.json'));
    const credits = emulator.counters.credits(emulator.keys.admin);

    for (const args of [
      ['load', ...ws.args],
      ['sync', ...ws.args, ...ONE_PAIR_ARGS],
    ]) {
      const run = await cli(args, { env: admin(), cwd: ws.root });
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(
        /_journal is a symbolic link \(or lies under one\) to \S+far-journal\d+, outside the archive .*replace the link with a folder/,
      );
    }
    expect(emulator.counters.credits(emulator.keys.admin)).toBe(credits);
    expect(readdirSync(far)).toEqual(['pending.json']);
    expect(readFileSync(join(far, 'pending.json')).equals(before)).toBe(true);
  });
});

describe('rebuild --db must name a warehouse of gexwh', () => {
  it('a text file: every command says it is not a DuckDB database (no rebuild hint); rebuild refuses (exit 2, untouched) unless --force', async () => {
    const ws = fresh();
    const conf = join(ws.root, 'important.conf');
    writeFileSync(conf, 'user=me\nsecret_setting=42\n');
    const args = ['--db', conf, '--archive', ws.archive];

    const status = await cli(['status', ...args], { cwd: ws.root });
    expect(status.code).toBe(2);
    expect(status.stderr).toContain(`${conf} is not a DuckDB database`);
    expect(status.stderr).not.toMatch(/gexwh rebuild/);
    const rebuild = await cli(['rebuild', ...args], { cwd: ws.root });
    expect(rebuild.code).toBe(2);
    expect(rebuild.stderr).toMatch(/refusing to replace \S+important\.conf: it is not a DuckDB database; nothing was changed\. Check --db, or pass --force/);
    expect(readFileSync(conf, 'utf8')).toBe('user=me\nsecret_setting=42\n');
    expect(readdirSync(ws.root).filter((n) => n.startsWith('important.conf'))).toEqual(['important.conf']);

    const forced = await cli(['rebuild', ...args, '--force'], { cwd: ws.root });
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toMatch(/important\.conf was not a warehouse of gexwh; kept as \S+important\.conf\.replaced-\d{8}T\d{6}Z \(--force\)/);
    const kept = readdirSync(ws.root).find((n) => n.startsWith('important.conf.replaced-'))!;
    expect(readFileSync(join(ws.root, kept), 'utf8')).toBe('user=me\nsecret_setting=42\n');
    expect(await tableChecksums(conf)).toEqual(clean);
  });

  it("another program's DuckDB database is refused too (exit 2, untouched)", async () => {
    const ws = fresh();
    const other = join(ws.root, 'notes.duckdb');
    const instance = await duckdb.DuckDBInstance.create(other);
    const connection = await instance.connect();
    await connection.run("CREATE TABLE notes (t VARCHAR); INSERT INTO notes VALUES ('mine')");
    connection.closeSync();
    instance.closeSync();
    const before = readFileSync(other);

    const rebuild = await cli(['rebuild', '--db', other, '--archive', ws.archive], { cwd: ws.root });
    expect(rebuild.code).toBe(2);
    expect(rebuild.stderr).toMatch(/it is a DuckDB database of another program \(no sync\.migrations table\)/);
    expect(readFileSync(other).equals(before)).toBe(true);
  });
});
