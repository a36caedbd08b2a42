// Loads of archived bytes (warehouse/archived-load.ts): the bytes hashed are the bytes loaded, even
// when the file is swapped between the hash and the load; a mismatch is quarantined, never loaded.
import { mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { expectVersion, loadArchived, type ArchivedCandidate } from '../../src/warehouse/archived-load.js';
import type { PinMode } from '../../src/core/archive/pin.js';
import { writeArchived } from './archive-fixtures.js';
import { BTC, HEADERS, levelsRows, makeTempDir, query, toCsv, withWarehouse, type Market } from './fixtures.js';
import type { LoadInput } from '../../src/warehouse/loader.js';
import { openWriter } from '../../src/warehouse/open-writer.js';

const candidateOf = (input: LoadInput): ArchivedCandidate & { input: LoadInput } => ({
  exchange: input.exchange,
  symbol: input.symbol,
  sessionDate: input.sessionDate,
  file: input.file,
  relativePath: `${input.exchange}/${input.symbol}/${input.sessionDate}_${input.file}.csv.gz`,
  input,
});
const judge = (c: { input: LoadInput }, found: Parameters<typeof expectVersion>[1]) =>
  expectVersion({ sha256: c.input.sha256, bytes: c.input.bytes }, found, { rows: c.input.rows, downloadedAt: c.input.downloadedAt }, 'the manifest');

describe.each(['descriptor', 'copy'] as PinMode[])('loadArchived (%s)', (pinMode) => {
  it('loads the bytes it hashed although another file is renamed over the name before the load', async () => {
    await withWarehouse(async (wh, dir) => {
      const archive = join(dir, 'raw');
      const paid = writeArchived(archive, 'levels', BTC);
      const swapped = gzipSync(
        toCsv(
          HEADERS.levels,
          levelsRows(BTC, 3).map((row) => ({ ...row, spot: 1.5 })),
        ),
      );
      const report = await loadArchived(
        wh.connection,
        archive,
        [candidateOf(paid)],
        (c, found) => {
          // The attacker's moment: after the hash, before the load.
          writeFileSync(join(archive, 'evil'), swapped);
          renameSync(join(archive, 'evil'), paid.path);
          return judge(c, found);
        },
        { command: 'test', pinMode },
      );
      expect(report.notLoaded).toEqual([]);
      expect(report.loaded).toHaveLength(1);
      expect(await query(wh, `SELECT count(*)::INT n, count(*) FILTER (spot = 1.5)::INT swapped FROM levels`)).toEqual([{ n: paid.rows, swapped: 0 }]);
      expect(await query(wh, `SELECT sha256, archive_path FROM sync.files`)).toEqual([
        { sha256: paid.sha256, archive_path: 'bybit/BTC/2026-11-20_levels.csv.gz' },
      ]);
    });
  });

  it('a sparse file larger than the recorded size is quarantined on its size, unread, like any wrong file', async () => {
    await withWarehouse(async (wh, dir) => {
      const archive = join(dir, 'raw');
      const paid = writeArchived(archive, 'levels', BTC);
      truncateSync(paid.path, 2 * 1024 ** 3); // 2 GiB, no disk: hashing it took seconds (an hour a terabyte)
      const report = await loadArchived(wh.connection, archive, [{ ...candidateOf(paid), maxBytes: paid.bytes }], judge, { command: 'test', pinMode });
      expect(report.loaded).toEqual([]);
      expect(report.notLoaded).toEqual([
        expect.objectContaining({
          kind: 'mismatch',
          detail: expect.stringMatching(
            new RegExp(`: ${2 * 1024 ** 3} bytes, more than the ${paid.bytes} bytes recorded for it \\(not read\\); not loaded, moved to .*_quarantine`),
          ),
        }),
      ]);
      const note = JSON.parse(readFileSync(`${report.notLoaded[0]!.quarantinedAt!}.note.json`, 'utf8'));
      expect(note).toMatchObject({ found_sha256: null, found_bytes: 2 * 1024 ** 3, expected_sha256: null, command: 'test' });
    });
  });

  it('loads many files a chunk at a time; a wrong one is quarantined, a missing one named, the rest loaded', async () => {
    await withWarehouse(async (wh, dir) => {
      const archive = join(dir, 'raw');
      const markets: Market[] = ['2026-11-16', '2026-11-17', '2026-11-18', '2026-11-19', '2026-11-20'].map((sessionDate) => ({ ...BTC, sessionDate }));
      const inputs = markets.map((market) => writeArchived(archive, 'levels', market));
      writeFileSync(inputs[1]!.path, gzipSync('schema_version\n1\n'));
      const candidates = inputs.map(candidateOf);
      candidates[3] = { ...candidates[3]!, relativePath: 'bybit/BTC/2026-11-19_levels.gone.csv.gz' };
      const report = await loadArchived(wh.connection, archive, candidates, judge, { command: 'test', pinMode, chunkSize: 2 });
      expect(report.loaded.map((input) => input.sessionDate)).toEqual(['2026-11-16', '2026-11-18', '2026-11-20']);
      expect(report.notLoaded.map((n) => [n.candidate.sessionDate, n.kind])).toEqual([
        ['2026-11-17', 'mismatch'],
        ['2026-11-19', 'missing'],
      ]);
      expect(report.notLoaded[0]!.detail).toMatch(/the manifest says [0-9a-f]{64} \(\d+ bytes\); not loaded, moved to .*_quarantine/);
      expect(readdirSync(join(archive, '_quarantine', 'bybit', 'BTC')).sort()).toEqual([
        expect.stringMatching(/^2026-11-17_levels\.csv\.gz\.\d{8}T\d{6}Z$/),
        expect.stringMatching(/^2026-11-17_levels\.csv\.gz\.\d{8}T\d{6}Z\.note\.json$/),
      ]);
      expect(await query(wh, `SELECT count(*)::INT n FROM sync.files WHERE status = 'loaded'`)).toEqual([{ n: 3 }]);
    });
  });

  it("loads through the writers' sandbox, the archive named through a link (DuckDB reads only its real folder)", async () => {
    const { dir, cleanup } = makeTempDir();
    try {
      const archive = join(dir, 'real-raw');
      const paid = writeArchived(archive, 'levels', BTC);
      mkdirSync(join(dir, 'links'));
      symlinkSync(archive, join(dir, 'links', 'raw'));
      const wh = await openWriter(join(dir, 'gex.duckdb'), join(dir, 'links', 'raw'));
      try {
        const report = await loadArchived(wh.connection, join(dir, 'links', 'raw'), [candidateOf(paid)], judge, {
          command: 'test',
          pinMode,
          onProgress: () => undefined,
        });
        expect(report.notLoaded).toEqual([]);
        expect(report.failed).toEqual([]);
        expect(await query(wh, `SELECT count(*)::INT n FROM levels`)).toEqual([{ n: paid.rows }]);
      } finally {
        wh.close();
      }
    } finally {
      cleanup();
    }
  });
});
