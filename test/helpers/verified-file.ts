import { join } from 'node:path';
import type { VerifiedFile } from '../../src/core/rows.js';

/** A paid, verified combined BTC levels file of `date` under `archiveRoot`, as a run journals it. */
export function verifiedLevelsFile(archiveRoot: string, date: string, shaDigit = 'a'): VerifiedFile {
  return {
    exchange: 'combined',
    symbol: 'BTC',
    sessionDate: date,
    file: 'levels',
    sha256: shaDigit.repeat(64),
    bytes: 100,
    rows: 10,
    schemaVersion: 1,
    archivePath: join(archiveRoot, 'combined', 'BTC', `${date}_levels.csv.gz`),
    downloadedAt: new Date('2026-03-11T00:31:00Z'),
    fromArchive: false,
  };
}
