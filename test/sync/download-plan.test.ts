import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { creditBudget, planSync, selectPairs, type PlanInput } from '../../src/sync/download-plan.js';
import type { FileKind } from '../../src/sync/selection.js';
import { fileVersionKey } from '../../src/core/pairs.js';
import type { LedgerEntry, StoredManifestRow, PlannedFile } from '../../src/core/rows.js';

const ALL_FILES: FileKind[] = ['levels', 'strikes_total', 'strikes_by_expiry'];

function sha(tag: string): string {
  return createHash('sha256').update(tag).digest('hex');
}

/** Three files a session for each date given. */
function manifestOf(exchange: string, symbol: string, dates: string[], version = 'a'): StoredManifestRow[] {
  return dates.flatMap((date) =>
    ALL_FILES.map((file) => ({
      exchange,
      symbol,
      session_date: date,
      file,
      rows: 10,
      bytes: 100,
      sha256: sha(`${version}|${exchange}|${symbol}|${date}|${file}`),
      schema_version: 1,
    })),
  );
}

function loaded(row: StoredManifestRow, status: LedgerEntry['status'] = 'loaded', sha256 = row.sha256): LedgerEntry {
  return { exchange: row.exchange, symbol: row.symbol, sessionDate: row.session_date, file: row.file, sha256, status, archivePath: 'x' };
}

const dates = ['2024-06-01', '2024-06-02', '2024-06-03'];
const btc = manifestOf('deribit', 'BTC', dates);
const eth = manifestOf('okx', 'ETH', dates);
const spy = manifestOf('tradfi', 'SPY', ['2024-05-31', '2024-06-03']);

function input(overrides: Partial<PlanInput> = {}): PlanInput {
  return {
    coverage: [
      { exchange: 'deribit', symbol: 'BTC' },
      { exchange: 'okx', symbol: 'ETH' },
      { exchange: 'tradfi', symbol: 'SPY' },
    ],
    manifest: [...btc, ...eth, ...spy],
    ledger: [],
    selection: { files: ALL_FILES },
    budget: { creditsRemaining: 200, creditsLimit: 200, reserve: 0 },
    order: 'newest',
    ...overrides,
  };
}

const label = (f: PlannedFile): string => `${f.sessionDate} ${f.exchange} ${f.symbol} ${f.file}`;

describe('planSync ordering and selection', () => {
  it('plans every missing file, newest first, tie-broken by exchange, symbol, file', () => {
    const plan = planSync(input());
    expect(plan.toDownload).toHaveLength(24);
    expect(plan.deferred).toEqual([]);
    expect(plan.toDownload.slice(0, 7).map(label)).toEqual([
      '2024-06-03 deribit BTC levels',
      '2024-06-03 deribit BTC strikes_total',
      '2024-06-03 deribit BTC strikes_by_expiry',
      '2024-06-03 okx ETH levels',
      '2024-06-03 okx ETH strikes_total',
      '2024-06-03 okx ETH strikes_by_expiry',
      '2024-06-03 tradfi SPY levels',
    ]);
    expect(plan.toDownload.at(-1) && label(plan.toDownload.at(-1)!)).toBe('2024-05-31 tradfi SPY strikes_by_expiry');
  });

  it('orders oldest first on request', () => {
    const plan = planSync(input({ order: 'oldest' }));
    expect(plan.toDownload.slice(0, 4).map(label)).toEqual([
      '2024-05-31 tradfi SPY levels',
      '2024-05-31 tradfi SPY strikes_total',
      '2024-05-31 tradfi SPY strikes_by_expiry',
      '2024-06-01 deribit BTC levels',
    ]);
  });

  it('does not depend on the order of its input', () => {
    const shuffled = [...btc, ...eth, ...spy].reverse();
    expect(planSync(input({ manifest: shuffled })).toDownload).toEqual(planSync(input()).toDownload);
  });

  it('filters by exchange, symbol and file kind', () => {
    const plan = planSync(input({ selection: { exchanges: ['okx', 'tradfi'], symbols: ['eth'], files: ['levels'] } }));
    expect(plan.toDownload.map(label)).toEqual(['2024-06-03 okx ETH levels', '2024-06-02 okx ETH levels', '2024-06-01 okx ETH levels']);
    expect(plan.pairs.map((p) => `${p.exchange}/${p.symbol}`)).toEqual(['okx/ETH']);
  });

  it('keeps since and until inclusive', () => {
    const plan = planSync(input({ selection: { files: ['levels'], since: '2024-06-02', until: '2024-06-03', symbols: ['BTC'] } }));
    expect(plan.toDownload.map((f) => f.sessionDate)).toEqual(['2024-06-03', '2024-06-02']);
  });

  it('plans only pairs of the coverage and of the key plan’s markets', () => {
    const onlyBtc = planSync(input({ coverage: [{ exchange: 'deribit', symbol: 'BTC' }] }));
    expect(new Set(onlyBtc.toDownload.map((f) => f.symbol))).toEqual(new Set(['BTC']));
    const cryptoOnly = planSync(input({ selection: { files: ALL_FILES, markets: ['crypto'] } }));
    expect(cryptoOnly.toDownload.some((f) => f.exchange === 'tradfi')).toBe(false);
    expect(cryptoOnly.toDownload).toHaveLength(18);
  });

  it('ignores manifest rows of unknown kinds or bad dates, and duplicates', () => {
    const odd: StoredManifestRow[] = [
      { ...btc[0]!, file: 'strikes_weird' as FileKind }, // a kind a newer server might add
      { ...btc[0]!, session_date: '2024-02-30' },
      { ...btc[0]! },
    ];
    const plan = planSync(input({ manifest: [...btc, ...odd] }));
    expect(plan.ignoredRows).toBe(2);
    expect(plan.toDownload).toHaveLength(9);
  });
});

describe('planSync and the ledger', () => {
  it('skips files loaded with the same sha256', () => {
    const plan = planSync(input({ ledger: btc.map((row) => loaded(row)) }));
    expect(plan.alreadyLoaded).toBe(9);
    expect(plan.toDownload.some((f) => f.symbol === 'BTC')).toBe(false);
    expect(plan.pairs.find((p) => p.symbol === 'BTC')).toMatchObject({ selected: 9, alreadyLoaded: 9, toDownload: 0 });
  });

  it('plans a rebuilt file (new sha256) with the version it replaces', () => {
    const rebuilt = manifestOf('deribit', 'BTC', ['2024-06-03'], 'b');
    const ledger = btc.map((row) => loaded(row));
    const old = btc.find((r) => r.session_date === '2024-06-03' && r.file === 'levels')!;
    const plan = planSync(
      input({ manifest: [...btc.filter((r) => r.session_date !== '2024-06-03'), ...rebuilt], ledger, selection: { files: ALL_FILES, symbols: ['BTC'] } }),
    );
    expect(plan.alreadyLoaded).toBe(6);
    expect(plan.toDownload.map(label)).toEqual([
      '2024-06-03 deribit BTC levels',
      '2024-06-03 deribit BTC strikes_total',
      '2024-06-03 deribit BTC strikes_by_expiry',
    ]);
    expect(plan.toDownload[0]).toMatchObject({ sha256: rebuilt[0]!.sha256, replaces: old.sha256 });
    expect(plan.pairs[0]).toMatchObject({ rebuilt: 3, toDownload: 3 });
  });

  it('counts as rebuilt only the new versions it buys: one whose copy is archived is a reload, not a rebuild', () => {
    const rebuilt = manifestOf('deribit', 'BTC', ['2024-06-03'], 'b');
    const ledger = btc.map((row) => loaded(row));
    const archivedRow = rebuilt[0]!;
    const archived = new Set([fileVersionKey({ ...archivedRow, sessionDate: archivedRow.session_date })]);
    const plan = planSync(
      input({
        manifest: [...btc.filter((r) => r.session_date !== '2024-06-03'), ...rebuilt],
        ledger,
        archived,
        selection: { files: ALL_FILES, symbols: ['BTC'] },
      }),
    );
    expect(plan.toReload.map(label)).toEqual(['2024-06-03 deribit BTC levels']);
    expect(plan.toReload[0]!.replaces).toBeDefined();
    expect(plan.pairs[0]).toMatchObject({ toDownload: 2, toReload: 1, rebuilt: 2 });
  });

  it('downloads a file that failed verification again and reloads one that failed loading from the archive', () => {
    const [verifyFailed, loadFailed, lost] = btc as [StoredManifestRow, StoredManifestRow, StoredManifestRow];
    const ledger: LedgerEntry[] = [
      loaded(verifyFailed, 'failed_verify'),
      loaded(loadFailed, 'failed_load'),
      { ...loaded(lost, 'failed_load'), archivePath: null },
    ];
    const plan = planSync(input({ ledger, selection: { files: ALL_FILES, symbols: ['BTC'] } }));
    expect(plan.toReload.map((f) => f.sha256)).toEqual([loadFailed.sha256]);
    expect(plan.toReload[0]).toMatchObject({ retryOf: 'failed_load', sha256: loadFailed.sha256 });
    expect(plan.toDownload).toHaveLength(8);
    expect(plan.toDownload.find((f) => f.sha256 === verifyFailed.sha256)).toMatchObject({ retryOf: 'failed_verify' });
    expect(plan.toDownload.find((f) => f.sha256 === lost.sha256)).toMatchObject({ retryOf: 'failed_load' });
    expect(plan.budget.used).toBe(8);
  });

  it('does not count a superseded version as loaded', () => {
    const row = btc[0]!;
    const plan = planSync(input({ ledger: [loaded(row, 'superseded')], selection: { files: ['levels'], symbols: ['BTC'] } }));
    expect(plan.toDownload.map((f) => f.sha256)).toContain(row.sha256);
    expect(plan.toDownload.every((f) => f.replaces === undefined)).toBe(true);
  });

  it('ignores ledger rows of another pair or session', () => {
    const other = { ...loaded(btc[0]!), exchange: 'okx' };
    const plan = planSync(input({ ledger: [other], selection: { files: ALL_FILES, symbols: ['BTC'] } }));
    expect(plan.alreadyLoaded).toBe(0);
  });
});

describe('planSync and the budget', () => {
  it('cuts to the remaining credits and defers the rest in order', () => {
    const plan = planSync(input({ budget: { creditsRemaining: 5, creditsLimit: 20, reserve: 0 } }));
    expect(plan.toDownload).toHaveLength(5);
    expect(plan.deferred).toHaveLength(19);
    expect([...plan.toDownload, ...plan.deferred]).toEqual(planSync(input()).toDownload);
    expect(plan.budget).toEqual({ available: 5, used: 5, limitedBy: 'quota', remainingUnknown: false, deferredBy: { quota: 19 } });
    const btcPair = plan.pairs.find((p) => p.symbol === 'BTC')!;
    expect(btcPair.toDownload + btcPair.deferred).toBe(9);
  });

  it('keeps the reserve unspent, and names it as what cut the budget', () => {
    const plan = planSync(input({ budget: { creditsRemaining: 10, creditsLimit: 20, reserve: 4 } }));
    expect(plan.toDownload).toHaveLength(6);
    expect(plan.budget.limitedBy).toBe('reserve-credits');
    // A reserve that leaves more than --max-credits: the cap is what cut.
    expect(planSync(input({ budget: { creditsRemaining: 10, creditsLimit: 20, reserve: 4, maxCredits: 3 } })).budget.limitedBy).toBe('max-credits');
  });

  it('spends nothing when the reserve exceeds what remains', () => {
    const plan = planSync(input({ budget: { creditsRemaining: 3, creditsLimit: 20, reserve: 5 } }));
    expect(plan.toDownload).toEqual([]);
    expect(plan.deferred).toHaveLength(24);
    expect(plan.budget.available).toBe(0);
  });

  it('applies --max-credits when it is the smaller bound', () => {
    const plan = planSync(input({ budget: { creditsRemaining: 100, creditsLimit: 200, reserve: 10, maxCredits: 7 } }));
    expect(plan.toDownload).toHaveLength(7);
    expect(plan.budget.limitedBy).toBe('max-credits');
  });

  it('treats a limit of 0 as unlimited: only --max-credits cuts, the reserve does not', () => {
    const unlimited = planSync(input({ budget: { creditsRemaining: 0, creditsLimit: 0, reserve: 50 } }));
    expect(unlimited.toDownload).toHaveLength(24);
    expect(unlimited.budget).toMatchObject({ available: null, limitedBy: 'unlimited' });
    const capped = planSync(input({ budget: { creditsRemaining: 0, creditsLimit: 0, reserve: 50, maxCredits: 2 } }));
    expect(capped.toDownload).toHaveLength(2);
    expect(capped.budget).toMatchObject({ available: 2, limitedBy: 'max-credits' });
  });

  it('assumes the daily limit when the remaining count is unknown', () => {
    expect(creditBudget({ creditsRemaining: null, creditsLimit: 20, reserve: 5 })).toEqual({
      available: 15,
      limitedBy: 'reserve-credits',
      remainingUnknown: true,
    });
    expect(creditBudget({ creditsRemaining: null, creditsLimit: 20, reserve: 0 })).toMatchObject({ available: 20, limitedBy: 'quota' });
  });

  it('never spends credits on reloads from the archive', () => {
    const plan = planSync(input({ ledger: btc.map((row) => loaded(row, 'failed_load')), budget: { creditsRemaining: 0, creditsLimit: 20, reserve: 0 } }));
    expect(plan.toReload).toHaveLength(9);
    expect(plan.toDownload).toEqual([]);
  });
});

describe('selectPairs', () => {
  it('deduplicates and sorts, matching case-insensitively', () => {
    const pairs = selectPairs(
      [
        { exchange: 'okx', symbol: 'ETH' },
        { exchange: 'deribit', symbol: 'BTC' },
        { exchange: 'okx', symbol: 'ETH' },
        { exchange: 'deribit', symbol: 'ETH' },
      ],
      { exchanges: ['DERIBIT', 'okx'], symbols: ['eth'] },
    );
    expect(pairs).toEqual([
      { exchange: 'deribit', symbol: 'ETH' },
      { exchange: 'okx', symbol: 'ETH' },
    ]);
  });
});
