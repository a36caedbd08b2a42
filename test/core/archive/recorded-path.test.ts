// A recorded archive path (ledger, journal) is read by the row's own names under the root, never as written.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRecordedPath } from '../../../src/core/archive/recorded-path.js';

const ROOT = '/srv/gex/raw';
const KEY = { exchange: 'deribit', symbol: 'BTC', sessionDate: '2026-03-10', file: 'levels', sha256: 'ab'.repeat(32) };
const PLAIN = 'deribit/BTC/2026-03-10_levels.csv.gz';
const PENDING = `deribit/BTC/2026-03-10_levels.${'ab'.repeat(6)}.csv.gz`;

describe('readRecordedPath', () => {
  it.each([
    ['the relative form', PLAIN, PLAIN],
    ['a pending name of its own sha256', PENDING, PENDING],
    ['an absolute path inside the root (older versions)', join(ROOT, PLAIN), PLAIN],
    ['a path relative to the folder an older sync ran in', `data/raw/${PLAIN}`, PLAIN],
    ['Windows separators', `data\\raw\\${PLAIN.replaceAll('/', '\\')}`, PLAIN],
  ])('accepts %s', (_, recorded, relative) => {
    expect(readRecordedPath(recorded, KEY, ROOT)).toMatchObject({ relative });
  });

  it.each([
    ['a file outside the root', '/tmp/x/evil.csv.gz', /leaves the archive \/srv\/gex\/raw/],
    ['/etc/passwd', '/etc/passwd', /leaves the archive/],
    ['an outside path named like its pending version', `/tmp/x/2026-03-10_levels.${'ab'.repeat(6)}.csv.gz`, /leaves the archive/],
    ['a path climbing out with ..', `../../${PLAIN}`, /leaves the archive/],
    ["another file's name", 'deribit/BTC/2026-03-09_levels.csv.gz', /is not the archive name of deribit\/BTC\/2026-03-10_levels\.csv\.gz/],
    ["another version's pending name", `deribit/BTC/2026-03-10_levels.${'cd'.repeat(6)}.csv.gz`, /is not the archive name/],
    ['an absolute path inside the root but not a daily file', join(ROOT, 'x', PLAIN), /is not a daily file of the archive/],
  ])('refuses %s', (_, recorded, reason) => {
    const read = readRecordedPath(recorded, KEY, ROOT);
    expect(read).toEqual({ refused: expect.stringMatching(reason) });
  });

  it('refuses a row whose own parts are not valid names', () => {
    expect(readRecordedPath(PLAIN, { ...KEY, exchange: '../../x' }, ROOT)).toEqual({ refused: expect.stringMatching(/refusing exchange/) });
    expect(readRecordedPath(PLAIN, { ...KEY, sha256: 'zz' }, ROOT)).toEqual({ refused: expect.stringMatching(/refusing sha256/) });
  });
});
