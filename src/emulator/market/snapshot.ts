// One capture's chains: strike rows (GEX at the capture's spot and time to cutoff), profile legs,
// per-venue metrics, and the levels of each expiration and of TOTAL.

import { DAY_MS } from './calendar.js';
import type { SymbolSpec } from './catalog.js';
import { atmVolatility, maxPain, smileVolatility, sumOpenInterest, type ExpirationBook, type OpenInterest, type SessionFrame } from './book.js';
import { gexPerContract, YEAR_MS } from './greeks.js';
import { computeLevels } from './levels.js';
import { roundIv, roundTo, roundUsd } from './numbers.js';
import { ProfileAccumulator, type GammaProfile } from './profile.js';
import type { LevelsFields, StrikeRow, TermMetrics } from './types.js';

export interface ChainState {
  book: ExpirationBook;
  years: number;
  /** Calendar days to the cutoff, two decimals. */
  dte: number;
  oi: OpenInterest; // summed over the capture's venues
  /** GEX of one contract at each strike. */
  gexPerContract: Float64Array;
  rows: StrikeRow[];
}

/** Summed open interest and max pain per (book, venue set): both are fixed for the session. */
const venueSums = new WeakMap<ExpirationBook, Map<string, { oi: OpenInterest; maxPain: number | null }>>();

function summedBook(book: ExpirationBook, venues: readonly string[], spec: SymbolSpec): { oi: OpenInterest; maxPain: number | null } {
  let byVenues = venueSums.get(book);
  if (byVenues === undefined) {
    byVenues = new Map();
    venueSums.set(book, byVenues);
  }
  const key = venues.join('+');
  let entry = byVenues.get(key);
  if (entry === undefined) {
    const oi = sumOpenInterest(book, venues, spec.oiDecimals);
    entry = { oi, maxPain: maxPain(book.strikes, oi) };
    byVenues.set(key, entry);
  }
  return entry;
}

export function chainState(spec: SymbolSpec, book: ExpirationBook, venues: readonly string[], timestampMs: number, spot: number): ChainState {
  const remainingMs = book.info.cutoffUtc.getTime() - timestampMs;
  const years = remainingMs / YEAR_MS;
  const { oi } = summedBook(book, venues, spec);
  const perContract = new Float64Array(book.strikes.length);
  const rows: StrikeRow[] = [];
  for (let i = 0; i < book.strikes.length; i++) {
    const strike = book.strikes[i] as number;
    const gex = gexPerContract(spot, strike, book.iv[i] as number, years, spec.multiplier);
    perContract[i] = gex;
    const callGex = roundUsd(gex * (oi.call[i] as number));
    const putGex = roundUsd(gex * (oi.put[i] as number));
    rows.push({
      strike,
      call_gex: callGex,
      put_gex: putGex,
      net_gex: roundUsd(callGex - putGex),
      call_oi: oi.call[i] as number,
      put_oi: oi.put[i] as number,
    });
  }
  return { book, years, dte: roundTo(remainingMs / DAY_MS, 2), oi, gexPerContract: perContract, rows };
}

export function chainProfile(chains: readonly ChainState[], spot: number, spec: SymbolSpec): GammaProfile {
  const accumulator = new ProfileAccumulator(spot);
  for (const chain of chains) {
    const { strikes, iv } = chain.book;
    for (let i = 0; i < strikes.length; i++) {
      accumulator.add(strikes[i] as number, iv[i] as number, chain.years, (chain.oi.call[i] as number) - (chain.oi.put[i] as number));
    }
  }
  return accumulator.result(spec.multiplier);
}

const oiRounder = (spec: SymbolSpec) => (value: number): number => roundTo(value, spec.oiDecimals);

export function expirationLevels(chain: ChainState, venues: readonly string[], spot: number, spec: SymbolSpec): LevelsFields {
  return computeLevels({
    spot,
    strikes: chain.rows,
    profile: chainProfile([chain], spot, spec),
    maxPain: summedBook(chain.book, venues, spec).maxPain,
    atmIv: roundIv(chain.book.ivAt(spot)),
    oiRound: oiRounder(spec),
  });
}

/** TOTAL rows: per strike sums over the expirations (of the already rounded values). */
export function totalStrikes(chains: readonly ChainState[], spec: SymbolSpec): StrikeRow[] {
  const byStrike = new Map<number, StrikeRow>();
  for (const chain of chains) {
    for (const row of chain.rows) {
      const acc = byStrike.get(row.strike);
      if (acc === undefined) {
        byStrike.set(row.strike, { ...row });
      } else {
        acc.call_gex += row.call_gex;
        acc.put_gex += row.put_gex;
        acc.call_oi += row.call_oi;
        acc.put_oi += row.put_oi;
      }
    }
  }
  const roundOi = oiRounder(spec);
  return [...byStrike.values()]
    .sort((a, b) => a.strike - b.strike)
    .map((row) => {
      const callGex = roundUsd(row.call_gex);
      const putGex = roundUsd(row.put_gex);
      return {
        strike: row.strike,
        call_gex: callGex,
        put_gex: putGex,
        net_gex: roundUsd(callGex - putGex),
        call_oi: roundOi(row.call_oi),
        put_oi: roundOi(row.put_oi),
      };
    });
}

/** TOTAL at-the-money IV: the 30-day constant-maturity level with the smile at spot. */
export function totalAtmIv(frame: SessionFrame, spot: number): number {
  const years = 30 / 365;
  return roundIv(smileVolatility(frame, atmVolatility(frame, years), years, spot));
}

export function totalLevels(chains: readonly ChainState[], rows: readonly StrikeRow[], frame: SessionFrame, spot: number): LevelsFields {
  return computeLevels({
    spot,
    strikes: rows,
    profile: chainProfile(chains, spot, frame.spec),
    maxPain: null,
    atmIv: totalAtmIv(frame, spot),
    oiRound: oiRounder(frame.spec),
  });
}

/** /gex/term-oi metrics of one venue on one expiration. Upside counts strikes at or above spot. */
export function termMetrics(chain: ChainState, venue: string, spot: number, spec: SymbolSpec): TermMetrics {
  const oi = chain.book.oiByVenue.get(venue);
  if (oi === undefined) throw new RangeError(`venue ${venue} does not list ${spec.symbol}`);
  let callOi = 0;
  let putOi = 0;
  let callGex = 0;
  let putGex = 0;
  let upside = 0;
  let downside = 0;
  for (let i = 0; i < chain.book.strikes.length; i++) {
    const perContract = chain.gexPerContract[i] as number;
    const call = oi.call[i] as number;
    const put = oi.put[i] as number;
    callOi += call;
    putOi += put;
    callGex += perContract * call;
    putGex += perContract * put;
    const net = perContract * (call - put);
    if ((chain.book.strikes[i] as number) >= spot) upside += net;
    else downside += net;
  }
  const notional = spot * spec.multiplier;
  return {
    oi_usd: roundUsd((callOi + putOi) * notional),
    call_oi_usd: roundUsd(callOi * notional),
    put_oi_usd: roundUsd(putOi * notional),
    contracts: roundTo(callOi + putOi, spec.oiDecimals),
    total_gex: roundUsd(callGex - putGex),
    abs_gex: roundUsd(callGex + putGex),
    upside_gex: roundUsd(upside),
    downside_gex: roundUsd(downside),
  };
}
