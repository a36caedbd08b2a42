// The alert rules, pure: a pair's captures in time order go in, the events they fire come out. Each
// event is a function of one capture and the capture before it, so a replay over a window equals the
// replays over its parts laid end to end, when each part starts from the capture before it. The same
// events are sent after a sync or capture and listed by `gexwh alerts`.
import { UsageError } from '../core/errors.js';

/** The rules a user may choose. */
export const ALERT_RULES = ['regime_change', 'flip_cross', 'api_wall_cross', 'nearest_wall_cross'] as const;
export type AlertRule = (typeof ALERT_RULES)[number];

/** Where a capture comes from: the history's TOTAL levels (files and fills) or `gexwh capture`'s snapshots. */
export type AlertSource = 'levels' | 'live_levels';

/**
 * The levels a crossing is measured against. api_* are the API's walls (p1_strike, n1_strike: the
 * chain's largest positive and most negative net-GEX strikes, wherever they sit); nearest_* are
 * nearest_walls' (the largest positive net GEX above spot, the most negative below, within range_pct).
 */
export type AlertLevel = 'flip' | 'api_call_wall' | 'api_put_wall' | 'nearest_call_wall' | 'nearest_put_wall';

/** One capture of one pair, as the rules see it. */
export interface Observation {
  exchange: string;
  symbol: string;
  source: AlertSource;
  session_date: string;
  /** ISO 8601 UTC instant. */
  timestamp_utc: string;
  /** 'close' or 'intraday' for history captures, 'live' for a live snapshot. */
  capture_type: string | null;
  spot: number | null;
  flip: number | null;
  regime: string | null;
  api_call_wall: number | null;
  api_put_wall: number | null;
  nearest_call_wall: number | null;
  nearest_put_wall: number | null;
  /** The nearest walls' range, percent of spot; null when the source has none. */
  range_pct: number | null;
}

/** What is sent (one JSON object per event) and what a replay lists. */
export interface AlertEvent {
  rule: AlertRule;
  exchange: string;
  symbol: string;
  source: AlertSource;
  session_date: string;
  timestamp_utc: string;
  capture_type: string | null;
  /** The level crossed (null for a regime change) and its value. */
  level_name: AlertLevel | null;
  level: number | null;
  /** up: spot went from below the level to at or above it; down: the reverse. Null for a regime change. */
  direction: 'up' | 'down' | null;
  spot: number | null;
  flip: number | null;
  regime: string | null;
  previous_timestamp_utc: string;
  previous_spot: number | null;
  previous_regime: string | null;
  /** For a nearest wall: the range it was found in. */
  range_pct: number | null;
  message: string;
}

type Crossing = Pick<AlertEvent, 'rule' | 'level_name' | 'level' | 'direction'>;

/** Spot at or above the level is above it: every move from one side to the other is counted once. */
function sideOf(spot: number, level: number): 'above' | 'below' {
  return spot >= level ? 'above' : 'below';
}

/**
 * The flip moves with the market, so its crossing compares each capture's spot with that capture's
 * own flip: spot is now on the other side of the flip than it was.
 */
function flipCross(before: Observation, now: Observation): Crossing[] {
  if (before.spot === null || before.flip === null || now.spot === null || now.flip === null) return [];
  const was = sideOf(before.spot, before.flip);
  const is = sideOf(now.spot, now.flip);
  if (was === is) return [];
  return [{ rule: 'flip_cross', level_name: 'flip', level: now.flip, direction: is === 'above' ? 'up' : 'down' }];
}

/**
 * A wall is measured where it stood at the capture before: spot crossed it when it went from one side
 * of that strike to the other. (Measured against each capture's own wall, the nearest call wall,
 * always above spot by its definition, could never be crossed.)
 */
function wallCross(rule: AlertRule, name: AlertLevel, before: Observation, now: Observation): Crossing[] {
  const level = before[name as keyof Observation] as number | null;
  if (level === null || before.spot === null || now.spot === null) return [];
  const was = sideOf(before.spot, level);
  const is = sideOf(now.spot, level);
  if (was === is) return [];
  return [{ rule, level_name: name, level, direction: is === 'above' ? 'up' : 'down' }];
}

function regimeChange(before: Observation, now: Observation): Crossing[] {
  if (before.regime === null || now.regime === null || before.regime === now.regime) return [];
  return [{ rule: 'regime_change', level_name: null, level: null, direction: null }];
}

const CHECKS: Record<AlertRule, (before: Observation, now: Observation) => Crossing[]> = {
  regime_change: regimeChange,
  flip_cross: flipCross,
  api_wall_cross: (b, n) => [...wallCross('api_wall_cross', 'api_call_wall', b, n), ...wallCross('api_wall_cross', 'api_put_wall', b, n)],
  nearest_wall_cross: (b, n) => [...wallCross('nearest_wall_cross', 'nearest_call_wall', b, n), ...wallCross('nearest_wall_cross', 'nearest_put_wall', b, n)],
};

const LEVEL_WORDS: Record<AlertLevel, string> = {
  flip: 'the gamma flip',
  api_call_wall: 'the API call wall (p1)',
  api_put_wall: 'the API put wall (n1)',
  nearest_call_wall: 'the nearest call wall',
  nearest_put_wall: 'the nearest put wall',
};

const number = (value: number | null): string => (value === null ? 'n/a' : value.toLocaleString('en-US', { maximumFractionDigits: 2 }));

/** One line a trader reads: the pair, the capture, what happened. */
export function messageOf(event: Omit<AlertEvent, 'message'>): string {
  const when = `${event.timestamp_utc.slice(0, 16).replace('T', ' ')} UTC${event.capture_type ? ` (${event.capture_type})` : ''}`;
  const head = `${event.exchange} ${event.symbol} ${when}:`;
  if (event.rule === 'regime_change')
    return `${head} regime ${event.previous_regime} -> ${event.regime} (spot ${number(event.spot)}, flip ${number(event.flip)})`;
  const range = event.level_name?.startsWith('nearest') ? ` (within ${number(event.range_pct)}%)` : '';
  const verb = event.direction === 'up' ? 'above' : 'below';
  return `${head} spot ${number(event.spot)} crossed ${verb} ${LEVEL_WORDS[event.level_name!]}${range} ${number(event.level)} (was ${number(event.previous_spot)})`;
}

/** The events of one step: `now` against the capture just before it, in the order of `rules`. */
export function evaluateStep(before: Observation, now: Observation, rules: readonly AlertRule[]): AlertEvent[] {
  return ALERT_RULES.filter((rule) => rules.includes(rule)).flatMap((rule) =>
    CHECKS[rule](before, now).map((crossing) => {
      const event = {
        ...crossing,
        exchange: now.exchange,
        symbol: now.symbol,
        source: now.source,
        session_date: now.session_date,
        timestamp_utc: now.timestamp_utc,
        capture_type: now.capture_type,
        spot: now.spot,
        flip: now.flip,
        regime: now.regime,
        previous_timestamp_utc: before.timestamp_utc,
        previous_spot: before.spot,
        previous_regime: before.regime,
        range_pct: crossing.level_name?.startsWith('nearest') ? now.range_pct : null,
      };
      return { ...event, message: messageOf(event) };
    }),
  );
}

/**
 * The events of one pair's captures (one source, in time order), each against the one before it;
 * `previous` is the capture before the first (none: the first capture fires nothing).
 */
export function evaluateSeries(previous: Observation | undefined, captures: readonly Observation[], rules: readonly AlertRule[]): AlertEvent[] {
  const events: AlertEvent[] = [];
  let before = previous;
  for (const now of captures) {
    if (before !== undefined) events.push(...evaluateStep(before, now, rules));
    before = now;
  }
  return events;
}

/** A rules list as a user gives it (names, or `all`), checked; throws naming what is allowed. */
export function parseRules(words: readonly string[] | undefined): AlertRule[] {
  if (words === undefined || words.length === 0 || words.includes('all')) return [...ALERT_RULES];
  const unknown = words.filter((word) => !(ALERT_RULES as readonly string[]).includes(word));
  if (unknown.length > 0) throw new UsageError(`--alert-rules: unknown rule ${unknown.join(', ')}; allowed: ${ALERT_RULES.join(', ')}, or all`);
  return ALERT_RULES.filter((rule) => words.includes(rule));
}
