// Accounts, API keys and Bearer tokens of the emulator.
//
// - Keys are a prefix (`gex_` unless told otherwise: the spec never names it) + 32 URL-safe characters, derived from the emulator's secret (so one seed gives
//   the same demo keys every run). Like the real service, only the SHA-256 of a key is kept.
// - The Bearer token is a JWT (HS256, signed with the emulator's secret through node:crypto) whose
//   `sub` names an account; it is checked against the emulator clock (`exp`). The token handed out
//   belongs to the pro account, so it shares the pro key's quota (quotas are per account).
// - Plans: trial 50 requests / 20 file credits, pro 500/200, premium has no api_access, admin is
//   unlimited (limit 0), cryptoOnly is a pro-like plan whose markets are crypto only, revoked is a
//   soft-deleted pro key (401).

import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Market } from '../market/types.js';
import { HttpError } from './http.js';

export type AccountName = 'trial' | 'pro' | 'premium' | 'admin' | 'cryptoOnly' | 'revoked';
export const ACCOUNT_NAMES: readonly AccountName[] = ['trial', 'pro', 'premium', 'admin', 'cryptoOnly', 'revoked'];

export interface Account {
  id: AccountName;
  tier: string;
  markets: readonly Market[];
  apiAccess: boolean;
  /** Daily request quota; 0 = unlimited. */
  requestLimit: number;
  /** Daily history file credits; 0 = unlimited. */
  creditLimit: number;
  revoked: boolean;
}

const BOTH: readonly Market[] = ['crypto', 'tradfi'];
const PLANS: Record<AccountName, Omit<Account, 'id'>> = {
  trial: { tier: 'trial', markets: BOTH, apiAccess: true, requestLimit: 50, creditLimit: 20, revoked: false },
  pro: { tier: 'pro', markets: BOTH, apiAccess: true, requestLimit: 500, creditLimit: 200, revoked: false },
  premium: { tier: 'premium', markets: BOTH, apiAccess: false, requestLimit: 0, creditLimit: 0, revoked: false },
  admin: { tier: 'admin', markets: BOTH, apiAccess: true, requestLimit: 0, creditLimit: 0, revoked: false },
  cryptoOnly: { tier: 'pro', markets: ['crypto'], apiAccess: true, requestLimit: 500, creditLimit: 200, revoked: false },
  revoked: { tier: 'pro', markets: BOTH, apiAccess: true, requestLimit: 500, creditLimit: 200, revoked: true },
};

export const DEFAULT_KEY_PREFIX = 'gex_';

/** The service's prefix followed by 32 URL-safe characters, as the spec describes a key. */
export function apiKeyPattern(prefix: string): RegExp {
  return new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[A-Za-z0-9_-]{32}$`);
}

/** What a key of each account may do, in a few words, for the banner of `gexwh emulate`. */
export function describeAccount(name: AccountName): string {
  const plan = PLANS[name];
  if (plan.revoked) return 'revoked: every call is refused (401)';
  if (!plan.apiAccess) return `${plan.tier}: no API access (its calls are refused, 403)`;
  const limit = (n: number, what: string) => (n === 0 ? `unlimited ${what}` : `${n} ${what}/day`);
  const markets = plan.markets.length === BOTH.length ? '' : `, ${plan.markets.join('+')} only`;
  return `API access: ${limit(plan.requestLimit, 'requests')}, ${limit(plan.creditLimit, 'file credits')}${markets}`;
}
const TOKEN_LIFETIME_SECONDS = 10 * 365 * 24 * 3600;

export interface AuthBook {
  readonly keys: Record<AccountName, string>;
  readonly bearerToken: string;
  account(id: AccountName): Account;
  /** The account behind an API key, or undefined (unknown key). */
  accountOfKey(key: string): Account | undefined;
  /** Authenticates a request: 401 unauthorized or 403 subscription_required, else the account. */
  authenticate(req: IncomingMessage, now: Date): Account;
  /** Like authenticate, but never throws (used to decorate fault answers). */
  tryAuthenticate(req: IncomingMessage, now: Date): Account | undefined;
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const base64url = (data: Buffer | string): string => Buffer.from(data).toString('base64url');

export function deriveKey(secret: Buffer, name: string, prefix = DEFAULT_KEY_PREFIX): string {
  return `${prefix}${createHmac('sha256', secret).update(`api-key:${name}`).digest('base64url').slice(0, 32)}`;
}

export function signJwt(secret: Buffer, payload: Record<string, unknown>): string {
  const head = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const body = base64url(JSON.stringify(payload));
  const signature = createHmac('sha256', secret).update(`${head}.${body}`).digest('base64url');
  return `${head}.${body}.${signature}`;
}

/** The payload of a valid HS256 token signed with `secret`, or undefined. */
export function verifyJwt(secret: Buffer, token: string): Record<string, unknown> | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const [head, body, signature] = parts as [string, string, string];
  const expected = createHmac('sha256', secret).update(`${head}.${body}`).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    const header: unknown = JSON.parse(Buffer.from(head, 'base64url').toString('utf8'));
    if (!isRecord(header) || header.alg !== 'HS256') return undefined;
    const payload: unknown = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    return isRecord(payload) ? payload : undefined;
  } catch {
    return undefined;
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function createAuthBook(secret: Buffer, issuedAt: Date, keyPrefix = DEFAULT_KEY_PREFIX): AuthBook {
  const keyPattern = apiKeyPattern(keyPrefix);
  const accounts = new Map<AccountName, Account>();
  const byKeyHash = new Map<string, Account>();
  const keys = {} as Record<AccountName, string>;
  for (const id of ACCOUNT_NAMES) {
    const account: Account = { id, ...PLANS[id] };
    accounts.set(id, account);
    keys[id] = deriveKey(secret, id, keyPrefix);
    byKeyHash.set(sha256(keys[id]), account);
  }
  const iat = Math.floor(issuedAt.getTime() / 1000);
  const bearerToken = signJwt(secret, { sub: 'pro', iat, exp: iat + TOKEN_LIFETIME_SECONDS });

  const unauthorized = (message: string): HttpError => new HttpError(401, 'unauthorized', message);

  function identify(req: IncomingMessage, now: Date): Account {
    const apiKey = req.headers['x-api-key'];
    if (typeof apiKey === 'string' && apiKey !== '') {
      if (!keyPattern.test(apiKey)) throw unauthorized('Invalid API key.');
      const account = byKeyHash.get(sha256(apiKey));
      if (!account) throw unauthorized('Invalid API key.');
      return account;
    }
    const authorization = req.headers.authorization;
    if (typeof authorization === 'string' && authorization !== '') {
      const match = /^Bearer\s+(\S+)$/i.exec(authorization);
      if (!match?.[1]) throw unauthorized('Invalid Authorization header.');
      const payload = verifyJwt(secret, match[1]);
      const sub = payload?.sub;
      const exp = payload?.exp;
      if (typeof sub !== 'string' || !accounts.has(sub as AccountName)) throw unauthorized('Invalid access token.');
      if (typeof exp === 'number' && exp * 1000 <= now.getTime()) throw unauthorized('Access token expired.');
      return accounts.get(sub as AccountName)!;
    }
    throw unauthorized('Missing API key: send it in the X-API-Key header.');
  }

  function authenticate(req: IncomingMessage, now: Date): Account {
    const account = identify(req, now);
    if (account.revoked) throw unauthorized('This API key has been revoked.');
    if (!account.apiAccess) {
      throw new HttpError(403, 'subscription_required', 'Your plan does not include API access.', {
        current_tier: account.tier,
      });
    }
    return account;
  }

  return {
    keys,
    bearerToken,
    account: (id) => accounts.get(id)!,
    accountOfKey: (key) => byKeyHash.get(sha256(key)),
    authenticate,
    tryAuthenticate(req, now) {
      try {
        return authenticate(req, now);
      } catch {
        return undefined;
      }
    },
  };
}
