// One capture's chains: strike rows (GEX at the capture's spot and time to cutoff), profile legs,
// per-venue metrics, and the levels of each expiration and of TOTAL.

import { DAY_MS } from './calendar.js';
import type { SymbolSpec } from './catalog.js';
import { atmVolatility, maxPain, smileVolatility, sumOpenInterest, type ExpirationBook, type OpenInterest, type SessionFrame } from './book.js';
import { gexPerContract, MIN_YEARS, YEAR_MS } from './greeks.js';
import { computeLevels } from './levels.js';
import { roundIv, roundTo, roundUsd } from './numbers.js';
import { ProfileAccumulator, type GammaProfile } from './profile.js';
import type { StrikeColumns } from './strike-columns.js';
import type { LevelsFields, TermMetrics } from './types.js';

export interface ChainState {
  book: ExpirationBook;
  years: number;
  /** Calendar days to the cutoff, two decimals. */
  dte: number;
  oi: OpenInterest; // summed over the capture's venues
  /** Profile leg inputs per strike, fixed for the session: net open interest and ln(strike). */
  netOi: Float64Array;
  lnStrikes: Float64Array;
  /** GEX of one contract at each strike. */
  gexPerContract: Float64Array;
  columns: StrikeColumns;
}

interface SummedBook {
  oi: OpenInterest;
  maxPain: number | null;
  /** Call minus put open interest per strike: the profile's leg weights. */
  netOi: Float64Array;
  /** ln of each strike, for the profile. */
  lnStrikes: Float64Array;
}

/** Summed open interest and what follows from it per (book, venue set): fixed for the session. */
const venueSums = new WeakMap<ExpirationBook, Map<string, SummedBook>>();

function summedBook(book: ExpirationBook, venues: readonly string[], spec: SymbolSpec): SummedBook {
  let byVenues = venueSums.get(book);
  if (byVenues === undefined) {
    byVenues = new Map();
    venueSums.set(book, byVenues);
  }
  const key = venues.join('+');
  let entry = byVenues.get(key);
  if (entry === undefined) {
    const oi = sumOpenInterest(book, venues, spec.oiDecimals);
    const netOi = oi.call.map((call, i) => call - (oi.put[i] as number));
    entry = { oi, maxPain: maxPain(book.strikes, oi), netOi, lnStrikes: book.strikes.map(Math.log) };
    byVenues.set(key, entry);
  }
  return entry;
}

export function chainState(spec: SymbolSpec, book: ExpirationBook, venues: readonly string[], timestampMs: number, spot: number): ChainState {
  const remainingMs = book.info.cutoffUtc.getTime() - timestampMs;
  const years = remainingMs / YEAR_MS;
  const { oi, netOi, lnStrikes } = summedBook(book, venues, spec);
  const count = book.strikes.length;
  const perContract = new Float64Array(count);
  const callGex = new Float64Array(count);
  const putGex = new Float64Array(count);
  const netGex = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const gex = gexPerContract(spot, book.strikes[i] as number, book.iv[i] as number, years, spec.multiplier);
    perContract[i] = gex;
    const call = roundUsd(gex * (oi.call[i] as number));
    const put = roundUsd(gex * (oi.put[i] as number));
    callGex[i] = call;
    putGex[i] = put;
    netGex[i] = roundUsd(call - put);
  }
  const columns = { strike: book.strikes, callGex, putGex, netGex, callOi: oi.call, putOi: oi.put };
  return { book, years, dte: roundTo(remainingMs / DAY_MS, 2), oi, netOi, lnStrikes, gexPerContract: perContract, columns };
}

/** Adds a chain's legs to `accumulator` (and to `also`, see ProfileAccumulator.addLeg). */
function addChainLegs(accumulator: ProfileAccumulator, chain: ChainState, also?: ProfileAccumulator): void {
  const { iv } = chain.book;
  const { netOi, lnStrikes } = chain;
  const rootYears = Math.sqrt(Math.max(chain.years, MIN_YEARS));
  for (let i = 0; i < netOi.length; i++) accumulator.addLeg(lnStrikes[i] as number, (iv[i] as number) * rootYears, netOi[i] as number, also);
}

export function chainProfile(chains: readonly ChainState[], spot: number, spec: SymbolSpec): GammaProfile {
  const accumulator = new ProfileAccumulator(spot);
  for (const chain of chains) addChainLegs(accumulator, chain);
  return accumulator.result(spec.multiplier);
}

export interface CaptureProfiles {
  total: GammaProfile;
  /** One per chain, in the chains' order. */
  byChain: GammaProfile[];
}

/** TOTAL's profile and each expiration's, each leg's terms computed once for both. */
export function captureProfiles(chains: readonly ChainState[], spot: number, spec: SymbolSpec): CaptureProfiles {
  const total = new ProfileAccumulator(spot);
  const byChain = chains.map((chain) => {
    const accumulator = new ProfileAccumulator(spot);
    addChainLegs(accumulator, chain, total);
    return accumulator.result(spec.multiplier);
  });
  return { total: total.result(spec.multiplier), byChain };
}

const oiRounder =
  (spec: SymbolSpec) =>
  (value: number): number =>
    roundTo(value, spec.oiDecimals);

/** `profile` is chainProfile([chain]) when the caller already has it. */
export function expirationLevels(
  chain: ChainState,
  venues: readonly string[],
  spot: number,
  spec: SymbolSpec,
  profile = chainProfile([chain], spot, spec),
): LevelsFields {
  return computeLevels({
    spot,
    strikes: chain.columns,
    profile,
    maxPain: summedBook(chain.book, venues, spec).maxPain,
    atmIv: roundIv(chain.book.ivAt(spot)),
    oiRound: oiRounder(spec),
  });
}

/** Where each chain's strikes sit among TOTAL's: the ascending union of the chains' strikes. */
interface TotalLayout {
  strike: Float64Array;
  /** Per chain, the TOTAL index of each of its strikes. */
  at: Int32Array[];
}

function buildLayout(chains: readonly ChainState[]): TotalLayout {
  const seen = new Set<number>();
  for (const chain of chains) for (const strike of chain.book.strikes) seen.add(strike);
  const strike = Float64Array.from(seen).sort();
  const indexOf = new Map<number, number>();
  strike.forEach((value, i) => indexOf.set(value, i));
  const at = chains.map((chain) => Int32Array.from(chain.book.strikes, (value) => indexOf.get(value) as number));
  return { strike, at };
}

/**
 * Layouts per session (keyed by the first chain's book, which belongs to one session) and listed
 * expirations: the same for every capture of a session until an expiration drops out.
 */
const totalLayouts = new WeakMap<ExpirationBook, Map<string, TotalLayout>>();

function totalLayout(chains: readonly ChainState[]): TotalLayout {
  const first = chains[0]?.book;
  if (first === undefined) return buildLayout(chains);
  let bySet = totalLayouts.get(first);
  if (bySet === undefined) {
    bySet = new Map();
    totalLayouts.set(first, bySet);
  }
  const key = chains.map((chain) => chain.book.info.iso).join('|');
  let layout = bySet.get(key);
  if (layout === undefined) {
    layout = buildLayout(chains);
    bySet.set(key, layout);
  }
  return layout;
}

/** Adds `values` into `sums` at the positions `at` gives: each chain in turn, as the sums were always made. */
function addAt(sums: Float64Array, at: Int32Array, values: Float64Array): void {
  for (let i = 0; i < values.length; i++) {
    const j = at[i] as number;
    sums[j] = (sums[j] as number) + (values[i] as number);
  }
}

/** TOTAL columns: per strike sums over the expirations (of the already rounded values). */
export function totalStrikes(chains: readonly ChainState[], spec: SymbolSpec): StrikeColumns {
  const { strike, at } = totalLayout(chains);
  const sums = {
    callGex: new Float64Array(strike.length),
    putGex: new Float64Array(strike.length),
    callOi: new Float64Array(strike.length),
    putOi: new Float64Array(strike.length),
  };
  chains.forEach((chain, c) => {
    const positions = at[c] as Int32Array;
    addAt(sums.callGex, positions, chain.columns.callGex);
    addAt(sums.putGex, positions, chain.columns.putGex);
    addAt(sums.callOi, positions, chain.columns.callOi);
    addAt(sums.putOi, positions, chain.columns.putOi);
  });
  const netGex = new Float64Array(strike.length);
  for (let i = 0; i < strike.length; i++) {
    const callGex = roundUsd(sums.callGex[i] as number);
    const putGex = roundUsd(sums.putGex[i] as number);
    sums.callGex[i] = callGex;
    sums.putGex[i] = putGex;
    netGex[i] = roundUsd(callGex - putGex);
    sums.callOi[i] = roundTo(sums.callOi[i] as number, spec.oiDecimals);
    sums.putOi[i] = roundTo(sums.putOi[i] as number, spec.oiDecimals);
  }
  return { strike, callGex: sums.callGex, putGex: sums.putGex, netGex, callOi: sums.callOi, putOi: sums.putOi };
}

/** TOTAL at-the-money IV: the 30-day constant-maturity level with the smile at spot. */
export function totalAtmIv(frame: SessionFrame, spot: number): number {
  const years = 30 / 365;
  return roundIv(smileVolatility(frame, atmVolatility(frame, years), years, spot));
}

/** `profile` is chainProfile(chains) when the caller already has it. */
export function totalLevels(
  chains: readonly ChainState[],
  rows: StrikeColumns,
  frame: SessionFrame,
  spot: number,
  profile = chainProfile(chains, spot, frame.spec),
): LevelsFields {
  return computeLevels({
    spot,
    strikes: rows,
    profile,
    maxPain: null,
    atmIv: totalAtmIv(frame, spot),
    oiRound: oiRounder(frame.spec),
  });
}

/** /gex/term-oi metrics of one venue on one expiration. Upside counts strikes at or above spot. */
export function termMetrics(chain: ChainState, venue: string, spot: number, spec: SymbolSpec): TermMetrics {
  const oi = chain.book.openInterest(venue);
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
