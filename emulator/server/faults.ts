// Fault injection for tests: a rule matches requests of one listener (API or storage) by path, fires
// `times` times (default 1, Infinity allowed) and tells the listener to misbehave in one way.
//
// A status fault without `error` gets the slug the spec gives that status: 503 is files_unavailable
// on a download path and market_unavailable elsewhere (the emulator's only trigger of
// market_unavailable: its market data never fails on its own), 429 rate_limit_exceeded or
// history_files_limit_exceeded (with the rate_limit hint and headers when the key is valid). The
// spec's API sends no Retry-After, but a proxy in front of it may: `retryAfter` adds one.
//
// Who acts on what:
// - at the start of a request: drop (socket destroyed), delay (then normal), hold (then normal, once
//   the test's promise settles: a slow answer the test releases when it has seen what it waits for,
//   instead of a fixed sleep), status and body (a canned answer; these never cost a request or a
//   credit, like the real 503/5xx they imitate);
// - when the body is written (API or storage): slow, truncate, corrupt, wrong_length;
// - inside the API routes: missing_quota_headers (quota service "down": no X-RateLimit-* or
//   X-History-Files-* headers and nothing is charged), expire_link (the download's 302 points to an
//   already expired link; the credit is charged, as for any 302), redirect (the 302 carries this
//   Location, or none when null; the credit is charged), drop_after_charge (the request is served
//   and charged, a credit for a download, then the connection is destroyed before any answer: the
//   client lost an answer it paid for), hold_after_charge (the request is served and charged, `charged`
//   is called, and the answer waits for the test's promise: a process killed meanwhile never reads
//   an answer it paid for).

export type FaultAction =
  | { kind: 'status'; status: number; error?: string; message?: string; retryAfter?: string }
  | { kind: 'drop' }
  | { kind: 'truncate'; atByte?: number }
  | { kind: 'corrupt' }
  | { kind: 'slow'; bytesPerSecond: number }
  | { kind: 'delay'; ms: number }
  | { kind: 'hold'; until: Promise<unknown> }
  | { kind: 'missing_quota_headers' }
  | { kind: 'expire_link' }
  | { kind: 'redirect'; location: string | null }
  | { kind: 'drop_after_charge' }
  | { kind: 'hold_after_charge'; until: Promise<unknown>; charged?: () => void }
  | { kind: 'body'; status: number; body: string; contentType?: string }
  | { kind: 'wrong_length'; contentLength: number };

export type FaultSide = 'api' | 'storage';

export interface FaultRule {
  where?: FaultSide; // default: api
  match?: RegExp; // tested on pathname + search
  times?: number; // default 1
  action: FaultAction;
}

export interface FaultBook {
  add(rule: FaultRule): void;
  clear(): void;
  /** The action of the first live rule matching this request, consuming one of its `times`. */
  take(side: FaultSide, pathAndSearch: string): FaultAction | undefined;
}

interface LiveRule {
  rule: FaultRule;
  left: number;
}

export function createFaultBook(): FaultBook {
  let rules: LiveRule[] = [];
  return {
    add(rule) {
      const left = rule.times ?? 1;
      if (!(left > 0)) throw new RangeError('fault times must be > 0');
      rules.push({ rule, left });
    },
    clear() {
      rules = [];
    },
    take(side, pathAndSearch) {
      for (const live of rules) {
        if ((live.rule.where ?? 'api') !== side) continue;
        const pattern = live.rule.match;
        if (pattern) {
          pattern.lastIndex = 0; // a /g or /y pattern must not remember the previous request
          if (!pattern.test(pathAndSearch)) continue;
        }
        live.left -= 1;
        if (live.left <= 0) rules = rules.filter((r) => r !== live);
        return live.rule.action;
      }
      return undefined;
    },
  };
}
