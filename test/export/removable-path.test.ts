// An export removes a partition whose rows left the table only when every one of three checks holds:
// its names pass the name rules, the ledger recorded it at the place this export makes, and the last
// manifest lists it. Each check alone must refuse: a ledger and a manifest that both name a hostile
// partition (a forged symbol with `..`, an unknown venue, a bad date) never get a file removed.
import { describe, expect, it } from 'vitest';
import { removablePath } from '../../src/export/export.js';
import { partitionRelativePath } from '../../src/export/options.js';
import type { ExportedPartition } from '../../src/export/copy-runs.js';

const ROOT = '/exports/gex';
const pathOf = (relative: string) => `${ROOT}/${relative}`;

/** A target whose manifest lists exactly `listed`, and a partition the ledger recorded at its made path. */
function recorded(exchange: string, symbol: string, sessionDate: string, listed = true) {
  const relative = partitionRelativePath('levels', 'parquet', exchange, symbol, sessionDate);
  const partition = { exchange, symbol, sessionDate, path: pathOf(relative), fingerprint: 'f', sha256: null, bytes: 1 } satisfies ExportedPartition;
  const target = { pathOf, listed: () => new Set(listed ? [relative] : []) };
  return { relative, partition, target };
}

describe('removablePath', () => {
  it('a partition the export made, recorded there and listed, may go', () => {
    const { relative, partition, target } = recorded('deribit', 'BTC', '2026-03-09');
    expect(removablePath('levels', 'parquet', partition, target)).toBe(relative);
  });

  it('is refused when the manifest does not list it, or the ledger recorded another place', () => {
    const unlisted = recorded('deribit', 'BTC', '2026-03-09', false);
    expect(removablePath('levels', 'parquet', unlisted.partition, unlisted.target)).toBeNull();
    const moved = recorded('deribit', 'BTC', '2026-03-09');
    expect(removablePath('levels', 'parquet', { ...moved.partition, path: '/home/user/notes.parquet' }, moved.target)).toBeNull();
  });

  it.each([
    ['a symbol that climbs out', 'deribit', '../../../home/user', '2026-03-09'],
    ['a symbol with a slash', 'deribit', 'BTC/../../x', '2026-03-09'],
    ['an unknown venue', 'exchange=../..', 'BTC', '2026-03-09'],
    ['a date that is not one', 'deribit', 'BTC', '../../2026'],
  ])('is refused for %s even when the ledger and the manifest both name it', (_, exchange, symbol, date) => {
    const { partition, target } = recorded(exchange, symbol, date);
    expect(removablePath('levels', 'parquet', partition, target)).toBeNull();
  });
});
