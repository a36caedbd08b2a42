// The judge of a journal's listing rows (pure): only the API's word stores a row; an unchecked row
// waits, or is trusted on request; the run's own listing answers its own claims without a request.
import { fc, test } from '../helpers/property.js';
import { describe, expect, it } from 'vitest';
import { claimWindows, judgeClaims, knownAnswers, rowKey, type PairAnswer } from '../../src/journal/claims.js';
import type { JournaledListing } from '../../src/journal/journal.js';

const sha = (c: string) => c.repeat(64);
const row = (date: string, s: string, file = 'levels') => ({ session_date: date, file, rows: 10, bytes: 100, sha256: sha(s), schema_version: 1 });
const listing = (rows: JournaledListing['rows'], symbol = 'BTC'): JournaledListing => ({
  exchange: 'deribit',
  symbol,
  listedAt: '2026-03-11T00:00:00.000Z',
  rows,
});
const answer = (...rows: JournaledListing['rows']): PairAnswer => new Map(rows.map((r) => [rowKey(r), { ...r, file: 'levels' as const }]));

describe('judgeClaims', () => {
  it("stores the API's row when the sha256 agrees, refuses any other claim, naming both sha256", () => {
    const claims = [listing([row('2026-03-10', 'a'), row('2026-03-09', 'b'), row('2026-03-08', 'c')])];
    const api = answer({ ...row('2026-03-10', 'a'), rows: 11 }, row('2026-03-09', 'e'));
    const verdicts = judgeClaims(claims, new Map([['deribit|BTC', api]]), false);
    expect(verdicts.confirmed).toEqual([{ ...claims[0], rows: [{ ...row('2026-03-10', 'a'), rows: 11 }] }]);
    expect(verdicts.refused.map((r) => r.reason)).toEqual([
      `claims sha256 ${sha('b')}, and the API's manifest lists sha256 ${sha('e')}: the claim is refused, only the API's version may load`,
      `claims sha256 ${sha('c')}, and the API's manifest lists no such file: the claim is refused, nothing of it is stored or loaded`,
    ]);
    expect(verdicts.waiting).toEqual([]);
  });

  it('a pair with no answer waits, or is trusted when asked', () => {
    const claims = [listing([row('2026-03-10', 'a')])];
    expect(judgeClaims(claims, new Map(), false)).toMatchObject({ waiting: claims, trusted: [], confirmed: [] });
    expect(judgeClaims(claims, new Map(), true)).toMatchObject({ waiting: [], trusted: claims, confirmed: [] });
  });

  test.prop([
    fc.array(
      fc.record({ date: fc.constantFrom('2026-03-08', '2026-03-09', '2026-03-10'), claim: fc.constantFrom('a', 'b'), api: fc.constantFrom('a', 'b', null) }),
      { maxLength: 6 },
    ),
  ])('whatever the claims, every stored row is one the API lists with that sha256', (cases) => {
    const claims = [listing(cases.map((c) => row(c.date, c.claim)))];
    const api = answer(...cases.filter((c) => c.api !== null).map((c) => row(c.date, c.api!)));
    const verdicts = judgeClaims(claims, new Map([['deribit|BTC', api]]), true);
    for (const stored of verdicts.confirmed.flatMap((l) => l.rows)) expect(api.get(rowKey(stored))?.sha256).toBe(stored.sha256);
    expect(verdicts.trusted).toEqual([]);
  });
});

describe('knownAnswers and claimWindows', () => {
  it("the run's own listing answers a pair only when it answers every claim of it", () => {
    const own = [listing([row('2026-03-10', 'a'), row('2026-03-09', 'b')])];
    expect(knownAnswers([listing([row('2026-03-10', 'a')])], own).has('deribit|BTC')).toBe(true);
    expect(knownAnswers([listing([row('2026-03-10', 'a'), row('2026-03-08', 'c')])], own).has('deribit|BTC')).toBe(false);
    expect(knownAnswers([listing([row('2026-03-10', 'f')])], own).has('deribit|BTC')).toBe(false);
  });

  it('asks each pair once, over the window of every date it claims', () => {
    const windows = claimWindows([
      listing([row('2026-03-09', 'a')]),
      listing([row('2026-03-02', 'b'), row('2026-03-05', 'c')]),
      listing([row('2026-03-01', 'd')], 'ETH'),
    ]);
    expect([...windows.values()]).toEqual([
      { exchange: 'deribit', symbol: 'BTC', start: '2026-03-02', end: '2026-03-10' },
      { exchange: 'deribit', symbol: 'ETH', start: '2026-03-01', end: '2026-03-02' },
    ]);
  });
});
