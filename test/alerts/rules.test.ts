// The alert rules alone: each rule fires on the step it names and on no other, names its level and
// direction, and a replay over a window is the replays of its two halves laid end to end.
import { fc, test } from '../helpers/property.js';
import { describe, expect, it } from 'vitest';
import { evaluateSeries, evaluateStep, parseRules, type Observation } from '../../src/alerts/rules.js';
import { UsageError } from '../../src/core/errors.js';

const base: Observation = {
  exchange: 'deribit',
  symbol: 'BTC',
  source: 'levels',
  session_date: '2026-03-10',
  timestamp_utc: '2026-03-10T12:00:00Z',
  capture_type: 'intraday',
  spot: 100,
  flip: 95,
  regime: 'positive',
  api_call_wall: 110,
  api_put_wall: 90,
  nearest_call_wall: 104,
  nearest_put_wall: 97,
  range_pct: 10,
};
const at = (minute: number, values: Partial<Observation>): Observation => ({
  ...base,
  timestamp_utc: `2026-03-10T12:${String(minute).padStart(2, '0')}:00Z`,
  ...values,
});
const ALL = parseRules(undefined);

describe('the rules, step by step', () => {
  it('a step with nothing crossed fires nothing', () => {
    expect(evaluateStep(at(0, {}), at(15, { spot: 101 }), ALL)).toEqual([]);
  });

  it('spot crossing its capture flip fires flip_cross with the direction, at the new flip', () => {
    const [down] = evaluateStep(at(0, {}), at(15, { spot: 93, flip: 94 }), ALL);
    expect(down).toMatchObject({ rule: 'flip_cross', level_name: 'flip', level: 94, direction: 'down', spot: 93, previous_spot: 100 });
    expect(down!.message).toBe('deribit BTC 2026-03-10 12:15 UTC (intraday): spot 93 crossed below the gamma flip 94 (was 100)');
    // The flip moving over a spot that stays put is a crossing too: spot is now on the other side.
    expect(evaluateStep(at(0, {}), at(15, { flip: 101 }), ['flip_cross'])).toMatchObject([{ direction: 'down', level: 101 }]);
  });

  it('a regime change fires regime_change; a NULL regime on either side fires nothing', () => {
    expect(evaluateStep(at(0, {}), at(15, { regime: 'negative' }), ['regime_change'])).toMatchObject([
      { rule: 'regime_change', regime: 'negative', previous_regime: 'positive', level_name: null, direction: null },
    ]);
    expect(evaluateStep(at(0, { regime: null }), at(15, { regime: 'negative' }), ALL)).toEqual([]);
  });

  it("walls are measured where they stood at the capture before: the API's and the nearest walls are named apart", () => {
    // The walls move with the new capture (as the nearest call wall does: it is always above spot); spot broke the old ones.
    const events = evaluateStep(at(0, {}), at(15, { spot: 111, api_call_wall: 120, nearest_call_wall: 115 }), ['api_wall_cross', 'nearest_wall_cross']);
    expect(events.map((e) => [e.rule, e.level_name, e.level, e.direction, e.range_pct])).toEqual([
      ['api_wall_cross', 'api_call_wall', 110, 'up', null],
      ['nearest_wall_cross', 'nearest_call_wall', 104, 'up', 10],
    ]);
    expect(events[1]!.message).toContain('crossed above the nearest call wall (within 10%) 104');
    const down = evaluateStep(at(0, {}), at(15, { spot: 89, flip: 80 }), ['api_wall_cross', 'nearest_wall_cross']);
    expect(down.map((e) => [e.level_name, e.direction])).toEqual([
      ['api_put_wall', 'down'],
      ['nearest_put_wall', 'down'],
    ]);
  });

  it('only the rules asked for fire; a missing value fires nothing', () => {
    expect(evaluateStep(at(0, {}), at(15, { spot: 200, regime: 'negative' }), ['regime_change']).map((e) => e.rule)).toEqual(['regime_change']);
    expect(evaluateStep(at(0, { spot: null }), at(15, { spot: 200 }), ALL).map((e) => e.rule)).toEqual([]);
  });

  it('parseRules: all by default, a list in the rules order, an unknown rule a usage error naming the allowed ones', () => {
    expect(parseRules(['flip_cross', 'regime_change'])).toEqual(['regime_change', 'flip_cross']);
    expect(parseRules(['all'])).toHaveLength(4);
    expect(() => parseRules(['flip'])).toThrow(UsageError);
    expect(() => parseRules(['flip'])).toThrow(/unknown rule flip; allowed: regime_change, flip_cross, api_wall_cross, nearest_wall_cross/);
  });
});

const value = fc.option(fc.integer({ min: 90, max: 110 }), { nil: null, freq: 8 });
const capture = fc.record({
  spot: value,
  flip: value,
  regime: fc.option(fc.constantFrom('positive', 'negative'), { nil: null, freq: 8 }),
  api_call_wall: value,
  api_put_wall: value,
  nearest_call_wall: value,
  nearest_put_wall: value,
});
const series = fc
  .array(capture, { maxLength: 40 })
  .map((values) => values.map((v, i) => ({ ...base, ...v, timestamp_utc: new Date(Date.UTC(2026, 2, 10, 0, 15 * i)).toISOString() })));

describe('replays', () => {
  test.prop([series, fc.nat(), fc.option(capture, { nil: undefined }), fc.subarray([...ALL], { minLength: 1 })])(
    'a window replayed whole equals its two halves replayed end to end, the second starting from the last capture of the first',
    (captures, cut, before, rules) => {
      const previous = before === undefined ? undefined : { ...base, ...before, timestamp_utc: '2026-03-09T23:45:00Z' };
      const k = captures.length === 0 ? 0 : cut % (captures.length + 1);
      const first = captures.slice(0, k);
      const whole = evaluateSeries(previous, captures, rules);
      const halves = [...evaluateSeries(previous, first, rules), ...evaluateSeries(first.at(-1) ?? previous, captures.slice(k), rules)];
      expect(halves).toEqual(whole);
      // Every event belongs to a capture of the window, never to the capture before it.
      for (const event of whole) expect(captures.map((c) => c.timestamp_utc)).toContain(event.timestamp_utc);
    },
  );

  test.prop([series])('flip crossings alternate: up, down, up... for a series with every spot and flip present', (captures) => {
    const full = captures.filter((c) => c.spot !== null && c.flip !== null);
    const directions = evaluateSeries(undefined, full, ['flip_cross']).map((e) => e.direction);
    for (let i = 1; i < directions.length; i += 1) expect(directions[i]).not.toBe(directions[i - 1]);
  });
});
