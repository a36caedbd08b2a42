import { describe, expect, it } from 'vitest';
import { usageMessage } from '../helpers/errors.js';
import {
  parseConcurrency,
  parseCount,
  parseDate,
  parseDateRange,
  parseExchanges,
  parseFiles,
  parseOrder,
  parseSymbols,
  parseSyncSelection,
  parseSyncVenues,
} from '../../src/sync/selection.js';
import { splitList } from '../../src/core/lists.js';

describe('splitList', () => {
  it.each([
    [undefined, []],
    ['a,b', ['a', 'b']],
    [
      ['a,b', 'c'],
      ['a', 'b', 'c'],
    ],
    [' a , ,b,', ['a', 'b']],
    [
      ['a', 'a,b'],
      ['a', 'b'],
    ],
  ] as const)('%j → %j', (input, expected) => {
    expect(splitList(input)).toEqual(expected);
  });
});

describe('parseExchanges', () => {
  it.each([
    [undefined, undefined],
    ['bybit', ['bybit']],
    ['Deribit,OKX', ['deribit', 'okx']],
    [
      ['tradfi', 'combined,derive'],
      ['tradfi', 'combined', 'derive'],
    ],
    ['bybit,BYBIT', ['bybit']],
  ] as const)('%j → %j', (input, expected) => {
    expect(parseExchanges(input)).toEqual(expected);
  });

  it.each([
    ['binance', /--exchange: unknown history venue "binance"; allowed: bybit, deribit, okx, derive, combined, tradfi$/],
    ['all', /allowed: bybit, deribit, okx, derive, combined, tradfi \(omit the option/],
    ['deribit+derive', /unknown history venue "deribit\+derive"/],
    ['', /--exchange: empty list/],
    [',', /--exchange: empty list/],
  ])('rejects %j', (input, message) => {
    expect(usageMessage(() => parseExchanges(input))).toMatch(message);
  });
});

describe('parseSyncVenues', () => {
  it.each([
    [undefined, {}],
    ['Deribit,okx', { exchanges: ['deribit', 'okx'] }],
    ['all-venues', { allVenues: true }],
    [['ALL-VENUES'], { allVenues: true }],
  ] as const)('%j → %j', (input, expected) => {
    expect(parseSyncVenues(input)).toEqual(expected);
  });

  it.each([
    ['all-venues,deribit', /^--exchange: all-venues buys every venue and takes no other name; got all-venues, deribit$/],
    ['all', /allowed: bybit, deribit, okx, derive, combined, tradfi or all-venues \(without --exchange each symbol takes the venue the API's "all" gives/],
    ['all-venue', /did you mean all-venues\?$/],
    ['', /--exchange: empty list; allowed: .* or all-venues$/],
  ])('rejects %j', (input, message) => {
    expect(usageMessage(() => parseSyncVenues(input))).toMatch(message);
  });
});

describe('parseSymbols', () => {
  it.each([
    [undefined, undefined],
    ['btc', ['BTC']],
    ['btc,Eth', ['BTC', 'ETH']],
    [
      ['spy', 'BRK.B', 'X_1-2'],
      ['SPY', 'BRK.B', 'X_1-2'],
    ],
    ['a'.repeat(32), ['A'.repeat(32)]],
  ] as const)('%j → %j', (input, expected) => {
    expect(parseSymbols(input)).toEqual(expected);
  });

  it.each(['../x', 'a/b', 'x;y', '"q"', 'a b', '.', '..', '._', 'a'.repeat(33), 'ÄÖ', ''])('rejects %j', (input) => {
    expect(usageMessage(() => parseSymbols(input))).toMatch(/^--symbol: /);
  });
});

describe('parseFiles', () => {
  it.each([
    [undefined, ['levels', 'strikes_total', 'strikes_by_expiry']],
    ['levels', ['levels']],
    ['strikes_by_expiry,LEVELS', ['levels', 'strikes_by_expiry']],
    [
      ['strikes_total', 'levels'],
      ['levels', 'strikes_total'],
    ],
  ] as const)('%j → %j', (input, expected) => {
    expect(parseFiles(input)).toEqual(expected);
  });

  it('names the bad kind and the allowed ones', () => {
    expect(usageMessage(() => parseFiles('levels,x'))).toBe('--files: unknown file kind "x"; allowed: levels, strikes_total, strikes_by_expiry');
  });
});

describe('dates', () => {
  it.each(['2020-01-01', '2024-02-29', '2100-12-31', ' 2024-05-01 '])('accepts %j', (value) => {
    expect(parseDate(value, '--since')).toBe(value.trim());
  });

  it.each(['2023-02-29', '2024-1-01', '20240101', 'yesterday', '2024-05-01T00:00:00Z'])('rejects %j', (value) => {
    expect(usageMessage(() => parseDate(value, '--until'))).toBe(`--until: ${JSON.stringify(value)} is not a real date YYYY-MM-DD in 2020–2100`);
  });

  it.each(['2019-12-31', '2101-01-01'])('a real date in a year the API refuses (%j) says the years, not "bad date"', (value) => {
    expect(usageMessage(() => parseDate(value, '--since'))).toBe(
      `--since: ${value} is outside the years the API accepts (2020–2100); give a date YYYY-MM-DD from 2020-01-01 to 2100-12-31`,
    );
  });

  it('checks since ≤ until', () => {
    expect(parseDateRange('2024-01-01', '2024-01-01')).toEqual({ since: '2024-01-01', until: '2024-01-01' });
    expect(parseDateRange(undefined, '2024-01-01')).toEqual({ until: '2024-01-01' });
    expect(parseDateRange(undefined, undefined)).toEqual({});
    expect(usageMessage(() => parseDateRange('2024-01-02', '2024-01-01'))).toMatch(/--since 2024-01-02 is after --until 2024-01-01/);
  });
});

describe('order and counts', () => {
  it.each([
    [undefined, 'newest'],
    ['oldest', 'oldest'],
    ['NEWEST', 'newest'],
  ] as const)('order %j → %s', (input, expected) => {
    expect(parseOrder(input)).toBe(expected);
  });

  it('rejects an unknown order', () => {
    expect(usageMessage(() => parseOrder('random'))).toBe('--order: unknown order "random"; allowed: newest, oldest');
  });

  it.each([
    [undefined, undefined],
    ['0', 0],
    ['250', 250],
    [12, 12],
    [0, 0],
  ] as const)('count %j → %j', (input, expected) => {
    expect(parseCount(input, '--max-credits')).toBe(expected);
  });

  it.each(['-1', '1.5', '1e3', 'ten', '', '0x10', '99999999999999999999', -1, 2.5, Number.NaN])('rejects count %j', (input) => {
    expect(usageMessage(() => parseCount(input, '--max-requests'))).toMatch(/^--max-requests: bad count/);
  });

  it.each([
    [undefined, 4],
    ['1', 1],
    [32, 32],
  ] as const)('concurrency %j → %d', (input, expected) => {
    expect(parseConcurrency(input)).toBe(expected);
  });

  it.each(['0', '33', 100])('rejects concurrency %j', (input) => {
    expect(usageMessage(() => parseConcurrency(input))).toMatch(/^--concurrency: .*allowed: 1 to 32$/);
  });
});

describe('parseSyncSelection', () => {
  it('applies the defaults', () => {
    expect(parseSyncSelection({})).toEqual({
      files: ['levels', 'strikes_total', 'strikes_by_expiry'],
      order: 'newest',
      reserveCredits: 0,
      concurrency: 4,
    });
  });

  it('parses every field', () => {
    expect(
      parseSyncSelection({
        exchange: ['deribit', 'tradfi'],
        symbol: 'btc,spy',
        files: 'levels',
        since: '2024-01-01',
        until: '2024-03-31',
        order: 'oldest',
        maxCredits: '50',
        reserveCredits: 5,
        maxRequests: '20',
        concurrency: '8',
      }),
    ).toEqual({
      exchanges: ['deribit', 'tradfi'],
      symbols: ['BTC', 'SPY'],
      files: ['levels'],
      since: '2024-01-01',
      until: '2024-03-31',
      order: 'oldest',
      maxCredits: 50,
      reserveCredits: 5,
      maxRequests: 20,
      concurrency: 8,
    });
  });

  it('fails on the first bad field with a usage error', () => {
    expect(usageMessage(() => parseSyncSelection({ reserveCredits: '-3' }))).toMatch(/^--reserve-credits: /);
  });
});
