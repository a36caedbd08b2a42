// A property over random journals, archives and working folders (issue 28): whatever the journal
// claims (paths relative to any folder, absolute, outside the archive, /etc/passwd, made-up sha256,
// bad names), whatever the archive holds (changed bytes, missing files, links inside and out of it)
// and wherever `gexwh load` runs from, after the load:
// - every loaded file's archived bytes have the sha256 of its ledger row and of the manifest, and no
//   row of a bait file (changed bytes, a copy outside the archive) is in the tables;
// - nothing outside the archive, the warehouse's folder and the package was opened;
// - no paid file is lost: every byte sequence the archive held is still in it (in place, or in
//   _quarantine), every genuine journaled file the archive holds is loaded, and the next load runs.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { fc, test } from '../helpers/property.js';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { loadWaiting } from '../../src/journal/load-pending.js';
import { openWarehouse, upsertManifest } from '../../src/warehouse/index.js';
import { buildMigratedWarehouse, seedWarehouse } from '../helpers/migrated-warehouse.js';
import { HEADERS, rowsFor, toCsv, type Row } from '../warehouse/fixtures.js';

const SESSIONS = ['2026-11-16', '2026-11-17', '2026-11-18', '2026-11-19'];
const KINDS = ['levels', 'strikes_total'] as const;
const MARKER = -777.25;
const PACKAGE = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const RUNS = Number(process.env.GEXWH_PROPERTY_RUNS ?? 10);

interface DailyFile {
  session: string;
  kind: (typeof KINDS)[number];
  name: string;
  genuine: Buffer;
  bait: Buffer;
  sha256: string;
  rows: number;
}

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
let dir: string;
let template: string;
let files: DailyFile[];
let count = 0;

/** The bait: a valid file of the same session and row count, every stored number a marker. */
function baitRows(kind: (typeof KINDS)[number], rows: Row[]): Row[] {
  const column = kind === 'levels' ? 'spot' : 'strike_net_gex';
  return rows.map((row) => ({ ...row, [column]: MARKER }));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gexwh-trust-prop-'));
  template = await buildMigratedWarehouse(dir);
  files = SESSIONS.flatMap((session) =>
    KINDS.map((kind) => {
      const market = { exchange: 'bybit', symbol: 'BTC', sessionDate: session };
      const rows = rowsFor(kind, market);
      const genuine = gzipSync(toCsv(HEADERS[kind], rows));
      return {
        session,
        kind,
        name: `${session}_${kind}.csv.gz`,
        genuine,
        bait: gzipSync(toCsv(HEADERS[kind], baitRows(kind, rows))),
        sha256: sha(genuine),
        rows: rows.length,
      };
    }),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CONDITIONS = ['intact', 'changed', 'missing', 'link_inside', 'link_outside', 'link_outside_bait'] as const;
const PATH_FORMS = ['relative', 'cwd_relative', 'absolute_inside', 'absolute_outside', 'etc_passwd', 'pending_outside'] as const;
const JUNK = [
  { exchange: '../../x' },
  { symbol: '<script>\u001b[31m' },
  { sessionDate: '2026-02-30' },
  { file: 'quotes' },
  { sha256: 'zz' },
  { archivePath: '../../../etc/passwd' },
];

const fileState = fc.record({
  condition: fc.constantFrom(...CONDITIONS),
  journaled: fc.boolean(),
  pathForm: fc.constantFrom(...PATH_FORMS),
  madeUpSha: fc.boolean(),
});
const scenario = fc.record({
  states: fc.array(fileState, { minLength: SESSIONS.length * KINDS.length, maxLength: SESSIONS.length * KINDS.length }),
  junk: fc.subarray(JUNK, { maxLength: 2 }),
  cwd: fc.constantFrom('root', 'other', 'outside'),
});
type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

interface Place {
  root: string;
  archive: string;
  db: string;
  outside: string;
  other: string;
}

/** Builds the random archive, journal and working folders; returns where everything is. */
async function build(s: Scenario): Promise<Place> {
  const root = join(dir, `case${++count}`);
  const place = { root, archive: join(root, 'data', 'raw'), db: join(root, 'data', 'gex.duckdb'), outside: join(root, 'outside'), other: join(root, 'other') };
  const folder = join(place.archive, 'bybit', 'BTC');
  for (const path of [folder, join(place.archive, '_spare'), join(place.archive, '_journal'), place.outside, join(place.other, 'data', 'raw', 'bybit', 'BTC')])
    mkdirSync(path, { recursive: true });
  seedWarehouse(template, place.db);
  const warehouse = await openWarehouse(place.db);
  try {
    const manifest = files.map((f) => ({ session_date: f.session, file: f.kind, rows: f.rows, bytes: f.genuine.length, sha256: f.sha256, schema_version: 1 }));
    await upsertManifest(warehouse.connection, 'bybit', 'BTC', manifest, new Date());
  } finally {
    warehouse.close();
  }
  const entries: object[] = [];
  files.forEach((f, i) => {
    const state = s.states[i]!;
    placeFile(place, f, state.condition);
    writeFileSync(join(place.other, 'data', 'raw', 'bybit', 'BTC', f.name), f.bait); // same relative path, another folder
    if (state.journaled) entries.push(entryOf(place, f, state));
  });
  for (const junk of s.junk) entries.push({ ...entryOf(place, files[0]!, { pathForm: 'relative', madeUpSha: false }), ...junk });
  writeFileSync(join(place.archive, '_journal', 'pending.json'), JSON.stringify({ version: 1, files: entries, listings: [], runs: [] }));
  return place;
}

function placeFile(place: Place, f: DailyFile, condition: (typeof CONDITIONS)[number]): void {
  const path = join(place.archive, 'bybit', 'BTC', f.name);
  if (condition === 'intact') writeFileSync(path, f.genuine);
  if (condition === 'changed') writeFileSync(path, f.bait);
  if (condition === 'link_inside') {
    writeFileSync(join(place.archive, '_spare', f.name), f.genuine);
    symlinkSync(join(place.archive, '_spare', f.name), path);
  }
  if (condition === 'link_outside' || condition === 'link_outside_bait') {
    writeFileSync(join(place.outside, `linked-${f.name}`), condition === 'link_outside' ? f.genuine : f.bait);
    symlinkSync(join(place.outside, `linked-${f.name}`), path);
  }
}

function entryOf(place: Place, f: DailyFile, state: { pathForm: (typeof PATH_FORMS)[number]; madeUpSha: boolean }): object {
  const claimed = state.madeUpSha ? 'e'.repeat(64) : f.sha256;
  const paths: Record<(typeof PATH_FORMS)[number], string> = {
    relative: `bybit/BTC/${f.name}`,
    cwd_relative: `data/raw/bybit/BTC/${f.name}`,
    absolute_inside: join(place.archive, 'bybit', 'BTC', f.name),
    absolute_outside: join(place.outside, f.name),
    etc_passwd: '/etc/passwd',
    pending_outside: join(place.outside, `${f.session}_${f.kind}.${claimed.slice(0, 12)}.csv.gz`),
  };
  if (state.pathForm === 'absolute_outside' || state.pathForm === 'pending_outside') writeFileSync(paths[state.pathForm], f.bait);
  return {
    exchange: 'bybit',
    symbol: 'BTC',
    sessionDate: f.session,
    file: f.kind,
    sha256: claimed,
    bytes: f.genuine.length,
    rows: f.rows,
    archivePath: paths[state.pathForm],
    downloadedAt: '2026-11-20T01:00:00.000Z',
  };
}

/** Every path given to an open of node:fs while `work` runs (gexwh's reads go through these; DuckDB reads only descriptors opened here). */
async function recordingOpens<T>(work: () => Promise<T>): Promise<{ result: T; opened: string[] }> {
  const opened: string[] = [];
  // Resolved when opened: a relative path against the folder of that moment, /proc/self/fd/N to its file.
  const note = (path: unknown) => {
    if (typeof path === 'string' || path instanceof URL || Buffer.isBuffer(path))
      opened.push(resolveOpened(path instanceof URL ? fileURLToPath(path) : String(path)));
  };
  const target = fs as unknown as Record<string, (...args: unknown[]) => unknown>;
  const promises = fs.promises as unknown as Record<string, (...args: unknown[]) => unknown>;
  const saved = { open: target.open!, openSync: target.openSync!, readFileSync: target.readFileSync!, pOpen: promises.open!, pReadFile: promises.readFile! };
  target.open = (...args) => (note(args[0]), saved.open.apply(fs, args));
  target.openSync = (...args) => (note(args[0]), saved.openSync.apply(fs, args));
  target.readFileSync = (...args) => (note(args[0]), saved.readFileSync.apply(fs, args));
  promises.open = (...args) => (note(args[0]), saved.pOpen.apply(fs.promises, args));
  promises.readFile = (...args) => (note(args[0]), saved.pReadFile.apply(fs.promises, args));
  try {
    return { result: await work(), opened };
  } finally {
    Object.assign(target, { open: saved.open, openSync: saved.openSync, readFileSync: saved.readFileSync });
    Object.assign(promises, { open: saved.pOpen, readFile: saved.pReadFile });
  }
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !rel.startsWith(sep));
}

/** The sha256 of every regular file under the archive but the journal (links are not files). */
function archivedShas(archive: string): string[] {
  const shas: string[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory() && entry.name !== '_journal') walk(path);
      else if (entry.isFile() && !entry.name.endsWith('.note.json')) shas.push(sha(readFileSync(path)));
    }
  };
  walk(archive);
  return shas.sort();
}

interface LoadedRow {
  archive_path: string;
  sha256: string;
  manifest: string;
  session_date: string;
  file: string;
}

/** The loaded ledger rows with their manifest sha256, and how many bait rows reached the tables (one open). */
async function readBack(db: string): Promise<{ loaded: LoadedRow[]; bait: number }> {
  const warehouse = await openWarehouse(db, { readOnly: true });
  try {
    const loaded = (
      await warehouse.connection.runAndReadAll(
        `SELECT f.archive_path, f.sha256, m.sha256 manifest, f.session_date::VARCHAR session_date, f.file FROM sync.files f
         LEFT JOIN sync.manifest m USING (exchange, symbol, session_date, file) WHERE f.status = 'loaded'`,
      )
    ).getRowObjectsJson() as unknown as LoadedRow[];
    const bait = await warehouse.connection.runAndReadAll(
      `SELECT ((SELECT count(*) FROM levels WHERE spot = ${MARKER}) + (SELECT count(*) FROM strikes_total WHERE net_gex = ${MARKER}))::INT AS n`,
    );
    return { loaded, bait: Number(bait.getRowObjectsJson()[0]?.n) };
  } finally {
    warehouse.close();
  }
}

const ACCEPTED_FORMS = new Set(['relative', 'cwd_relative', 'absolute_inside']);

describe('load, whatever the journal, the archive and the working folder', () => {
  test.prop([scenario], { numRuns: RUNS })(
    'loads only the paid bytes, opens nothing outside its roots, loses no paid file',
    async (s) => {
      const place = await build(s);
      const before = archivedShas(place.archive);
      const cwd = { root: place.root, other: place.other, outside: place.outside }[s.cwd]!;
      const home = process.cwd();
      process.chdir(cwd);
      let run: Awaited<ReturnType<typeof recordingOpens<unknown>>>;
      try {
        run = await recordingOpens(() => loadWaiting({ dbPath: place.db, archiveRoot: place.archive, waitSeconds: 0 }));
      } finally {
        process.chdir(home);
      }

      // Every loaded file: its archived bytes are the ledger's and the manifest's sha256; no bait row.
      const { loaded, bait } = await readBack(place.db);
      for (const row of loaded) {
        expect(row.archive_path).toBe(`bybit/BTC/${row.session_date}_${row.file}.csv.gz`);
        expect(sha(readFileSync(join(place.archive, row.archive_path)))).toBe(row.sha256);
        expect(row.sha256).toBe(row.manifest);
      }
      expect(bait).toBe(0);

      // Nothing outside the archive, the warehouse's folder and the package was opened.
      const roots = [realpathSync(place.archive), realpathSync(dirname(place.db)), PACKAGE, '/proc'];
      const outside = run.opened.filter((path) => !roots.some((root) => inside(root, path)));
      expect(outside).toEqual([]);

      // No paid file lost: every byte sequence is still under the archive; every genuine journaled file the archive holds is loaded.
      const after = archivedShas(place.archive);
      for (const bytes of new Set(before)) expect(after.filter((x) => x === bytes).length).toBeGreaterThanOrEqual(before.filter((x) => x === bytes).length);
      files.forEach((f, i) => {
        const state = s.states[i]!;
        const genuine = state.condition === 'intact' || state.condition === 'link_inside';
        if (state.journaled && genuine && ACCEPTED_FORMS.has(state.pathForm)) {
          expect(
            loaded.some((row) => row.session_date === f.session && row.file === f.kind),
            `${f.name} (${JSON.stringify(state)})`,
          ).toBe(true);
        }
      });
      // No state makes the next run fail.
      await expect(loadWaiting({ dbPath: place.db, archiveRoot: place.archive, waitSeconds: 0 })).resolves.toBeDefined();
      rmSync(place.root, { recursive: true, force: true });
    },
    120_000,
  );
});

/** Where an opened path leads (/proc/self/fd/N: the file it is; a relative path: from the current folder). */
function resolveOpened(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return resolve(path);
  }
}
