// Discovery endpoints: /exchanges, /coins, /expirations/{exchange}/{coin}, /me. All free.

import { CRYPTO_LIVE_VENUES, type ExpirationInfo, type Market, type MarketModel } from '../../market/types.js';
import type { Route, RouteContext } from '../context.js';
import { meQuota } from '../quota.js';
import { isoZ } from '../timeline.js';
import { resolveLivePair } from '../venues.js';

const DAY_MS = 86_400_000;

export function expirationDetail(model: MarketModel, market: Market, info: ExpirationInfo, now: Date) {
  return {
    code: info.code,
    iso: info.iso,
    dte: Math.round(((info.cutoffUtc.getTime() - now.getTime()) / DAY_MS) * 100) / 100,
    cutoff_utc: isoZ(info.cutoffUtc),
    is_0dte: info.iso === model.sessionDateOf(market, now),
  };
}

const exchanges: Route = {
  path: ['exchanges'],
  cost: 'free',
  rateLimit: false,
  query: [],
  handle: () => ({
    kind: 'json',
    data: {
      available: [...CRYPTO_LIVE_VENUES, 'tradfi'],
      virtual: ['all'],
      markets: { crypto: [...CRYPTO_LIVE_VENUES], tradfi: ['tradfi'] },
    },
    meta: {},
  }),
};

const coins: Route = {
  path: ['coins'],
  cost: 'free',
  rateLimit: false,
  query: [],
  handle: ({ state }) => {
    const symbols = state.model.symbols;
    const of = (m: Market): string[] =>
      symbols
        .filter((s) => s.market === m)
        .map((s) => s.symbol)
        .sort();
    return {
      kind: 'json',
      data: { coins: symbols.map((s) => s.symbol).sort(), markets: { crypto: of('crypto'), tradfi: of('tradfi') } },
      meta: {},
    };
  },
};

const expirations: Route = {
  path: ['expirations', ':exchange', ':coin'],
  cost: 'free',
  rateLimit: true,
  query: [],
  handle: ({ state, account, params, now }: RouteContext) => {
    const pair = resolveLivePair(state.model, account, params.exchange!, params.coin!);
    const listed = state.model.expirationsAt(pair.symbol, now);
    return {
      kind: 'json',
      data: {
        expirations: listed.map((e) => e.code),
        expirations_detail: listed.map((e) => expirationDetail(state.model, pair.market, e, now)),
      },
      meta: { exchange: pair.exchange, coin: pair.coin, exchange_resolved: pair.resolved, market: pair.market },
    };
  },
};

const me: Route = {
  path: ['me'],
  cost: 'free',
  rateLimit: true,
  query: [],
  handle: ({ state, account, now }) => ({
    kind: 'json',
    data: {
      tier: account.tier,
      markets: [...account.markets],
      api_access: true,
      quota: {
        requests: meQuota(state.quota.status(account, 'requests', now)),
        history_files: meQuota(state.quota.status(account, 'credits', now)),
      },
    },
    meta: {},
  }),
};

export const discoveryRoutes: readonly Route[] = [exchanges, coins, expirations, me];
