// The credit meter: whatever a run takes and gives back, in any order, spending never passes the
// budget, a refused take spends nothing, and UNLIMITED (null) is the one form of "no bound".
import { fc, test } from '../helpers/property.js';
import { describe, expect, it } from 'vitest';
import { CreditMeter, lowestLimit, UNLIMITED, type Limit } from '../../src/core/credit-meter.js';

const limits = fc.oneof(fc.constant<Limit>(UNLIMITED), fc.integer({ min: 0, max: 20 }));
const steps = fc.array(fc.record({ kind: fc.constantFrom('take' as const, 'refund' as const), units: fc.integer({ min: 0, max: 6 }) }), { maxLength: 60 });

describe('CreditMeter', () => {
  test.prop({ limit: limits, steps })('spending never passes the budget, whatever is taken and refunded', ({ limit, steps: run }) => {
    const meter = new CreditMeter(limit);
    let spent = 0;
    for (const { kind, units } of run) {
      if (kind === 'take') {
        const fits = limit === UNLIMITED || spent + units <= limit;
        expect(meter.take(units)).toBe(fits);
        if (fits) spent += units;
      } else if (units <= spent) {
        meter.refund(units);
        spent -= units;
      } else {
        expect(() => meter.refund(units)).toThrow(RangeError);
      }
      expect(meter.spent).toBe(spent);
      if (limit !== UNLIMITED) {
        expect(meter.spent).toBeLessThanOrEqual(limit);
        expect(meter.left).toBe(limit - meter.spent);
      } else {
        expect(meter.left).toBe(UNLIMITED);
      }
    }
  });

  it('refuses a take that does not fit whole, and then still takes what does', () => {
    const meter = new CreditMeter(3);
    expect(meter.take(2)).toBe(true);
    expect(meter.take(2)).toBe(false);
    expect(meter.spent).toBe(2);
    expect(meter.take()).toBe(true);
    expect(meter.take()).toBe(false);
    expect(meter.left).toBe(0);
  });

  it('takes nothing from a budget of 0, and anything from an unlimited one', () => {
    expect(new CreditMeter(0).take()).toBe(false);
    const unlimited = new CreditMeter(UNLIMITED);
    expect(unlimited.take(1_000_000)).toBe(true);
    expect(unlimited.spent).toBe(1_000_000);
    expect(unlimited.left).toBe(UNLIMITED);
  });

  it('refuses a limit or a count that is not a whole number of 0 or more', () => {
    expect(() => new CreditMeter(-1)).toThrow(/0 or more/);
    expect(() => new CreditMeter(Number.POSITIVE_INFINITY)).toThrow(/whole number/);
    expect(() => new CreditMeter(2).take(0.5)).toThrow(/whole number/);
  });
});

describe('lowestLimit', () => {
  test.prop([fc.array(limits, { maxLength: 5 })])('is the lowest bound given, UNLIMITED only when none bounds', (given) => {
    const bounds = given.filter((limit): limit is number => limit !== UNLIMITED);
    expect(lowestLimit(...given)).toBe(bounds.length === 0 ? UNLIMITED : Math.min(...bounds));
  });
});
