// Current-data endpoints: /levels, /gex/by-strike-enhanced, /gex/term-oi (one request each).

import type { ExpirationChain, TermMetrics } from '../../market/types.js';
import type { Route, RouteContext } from '../context.js';
import { HttpError } from '../http.js';
import { invalidParam, queryValue } from '../params.js';
import { isoZ, levelsOf } from '../timeline.js';
import { resolveLivePair } from '../venues.js';
import { compareBlock, parseCompare } from './compare.js';
import { chooseExpiration, liveMeta, liveState } from './live.js';
import { strikeMarkers } from './strike-markers.js';

/** The chain of a listed expiration in the capture; 404 no_data when the capture lacks it. */
function chainOf(chains: readonly ExpirationChain[], iso: string, value: string): ExpirationChain {
  const chain = chains.find((c) => c.iso === iso);
  if (!chain) throw new HttpError(404, 'no_data', `No data for expiration '${value}'.`);
  return chain;
}

const levels: Route = {
  path: ['levels', ':exchange', ':coin'],
  cost: 'request',
  rateLimit: true,
  query: ['expiration', 'compare'],
  handle: ({ state, account, params, query, now }: RouteContext) => {
    const { model } = state;
    const pair = resolveLivePair(model, account, params.exchange!, params.coin!);
    const expirationParam = queryValue(query, 'expiration') ?? 'TOTAL';
    const choice = chooseExpiration(expirationParam, model.expirationsAt(pair.symbol, now), {
      acceptIso: true,
      unlistedIsNoData: false,
    });
    const compareParam = queryValue(query, 'compare');
    const periods = compareParam === undefined ? undefined : parseCompare(compareParam, choice.kind === 'total', pair, model);
    const live = liveState(model, pair, now);
    const expiration = choice.kind === 'total' ? 'TOTAL' : choice.info.code;
    const expirationIso = choice.kind === 'total' ? null : choice.info.iso;
    const fields =
      choice.kind === 'total'
        ? levelsOf(live.capture.total.levels, false)
        : levelsOf(chainOf(live.capture.expirations, choice.info.iso, expirationParam).levels, true);
    const data: Record<string, unknown> = { ...fields, expiration, expiration_iso: expirationIso };
    if (periods) data.compare = compareBlock(model, pair, periods, fields, now);
    return {
      kind: 'json',
      data,
      meta: { ...liveMeta(pair, live), expiration, expiration_iso: expirationIso },
    };
  },
};

const RANGE_PCT_MAX = 100;

function parseRangePct(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const pct = Number(value);
  if (value.trim() === '' || !Number.isFinite(pct) || pct <= 0 || pct > RANGE_PCT_MAX) {
    throw invalidParam(`range_pct must be a number above 0 and at most ${RANGE_PCT_MAX}.`, { max_value: RANGE_PCT_MAX });
  }
  return pct;
}

const byStrike: Route = {
  path: ['gex', 'by-strike-enhanced', ':exchange', ':coin', ':expiration'],
  cost: 'request',
  rateLimit: true,
  query: ['range_pct'],
  handle: ({ state, account, params, query, now }) => {
    const { model } = state;
    const pair = resolveLivePair(model, account, params.exchange!, params.coin!);
    const rangePct = parseRangePct(queryValue(query, 'range_pct'));
    const choice = chooseExpiration(params.expiration!, model.expirationsAt(pair.symbol, now), {
      acceptIso: false,
      unlistedIsNoData: true,
    });
    const live = liveState(model, pair, now);
    const { capture } = live;
    const chain = choice.kind === 'total' ? capture.total : chainOf(capture.expirations, choice.info.iso, params.expiration!);
    const rows = rangePct === undefined ? chain.strikes : chain.strikes.filter((r) => Math.abs(r.strike - capture.spot) <= (capture.spot * rangePct) / 100);
    const expiration = choice.kind === 'total' ? 'TOTAL' : choice.info.code;
    const profile = model.profile(pair.symbol, pair.venues, capture.timestampUtc, choice.kind === 'total' ? 'TOTAL' : choice.info.iso);
    const strikes = rows.map((r) => r.strike);
    return {
      kind: 'json',
      data: {
        gex_data: {
          strikes,
          call_gex: rows.map((r) => r.call_gex),
          put_gex: rows.map((r) => r.put_gex),
          net_gex: rows.map((r) => r.net_gex),
          total_gex: rows.map((r) => r.call_gex + r.put_gex),
        },
        markers: strikeMarkers(rows, chain.levels, capture.spot, choice.kind === 'total', profile.crossings),
        metadata: {
          basecoin: pair.symbol,
          exchange: pair.resolved,
          expiration_date: expiration,
          current_price: capture.spot,
          data_points: rows.length,
          strike_range: { min: strikes.length ? Math.min(...strikes) : null, max: strikes.length ? Math.max(...strikes) : null },
          enhanced: true,
          gamma_profile_source: true,
          timestamp: isoZ(capture.timestampUtc),
          timestamp_ms: capture.timestampUtc.getTime(),
        },
      },
      meta: { exchange: pair.exchange, coin: pair.symbol, expiration },
    };
  },
};

const METRIC_NAMES: readonly (keyof TermMetrics)[] = ['oi_usd', 'call_oi_usd', 'put_oi_usd', 'contracts', 'total_gex', 'abs_gex', 'upside_gex', 'downside_gex'];

function sumMetrics(sets: readonly TermMetrics[]): TermMetrics {
  const total = {} as TermMetrics;
  for (const name of METRIC_NAMES) total[name] = sets.reduce((acc, s) => acc + s[name], 0);
  return total;
}

const termOi: Route = {
  path: ['gex', 'term-oi', ':exchange', ':coin'],
  cost: 'request',
  rateLimit: true,
  query: [],
  handle: ({ state, account, params, now }) => {
    const { model } = state;
    const pair = resolveLivePair(model, account, params.exchange!, params.coin!);
    const live = liveState(model, pair, now);
    const { capture } = live;
    const listed = new Set(model.expirationsAt(pair.symbol, now).map((e) => e.iso));
    const chains = capture.expirations.filter((c) => listed.has(c.iso));
    if (chains.length === 0) throw new HttpError(404, 'no_data', `No expirations for ${pair.symbol} on ${pair.exchange}.`);
    const timestamp = isoZ(capture.timestampUtc);
    const expirations = chains.map((chain) => {
      const exchanges: Record<string, TermMetrics> = {};
      for (const venue of capture.venues) {
        const metrics = chain.byVenue[venue];
        if (metrics) exchanges[venue] = metrics;
      }
      return { date: chain.code, days_to_expiry: chain.dte, timestamp, exchanges, total: sumMetrics(Object.values(exchanges)) };
    });
    return {
      kind: 'json',
      data: {
        expirations,
        metadata: {
          basecoin: pair.symbol,
          exchanges_used: [...capture.venues],
          current_price: capture.spot,
          expiration_count: expirations.length,
          timestamp,
          timestamp_ms: capture.timestampUtc.getTime(),
        },
      },
      meta: { ...liveMeta(pair, live), expiration: 'TOTAL', expiration_iso: null },
    };
  },
};

export const currentRoutes: readonly Route[] = [levels, byStrike, termOi];
