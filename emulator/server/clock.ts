// The emulator's clock. Tests freeze it and move it by hand; the CLI may let it tick from a chosen
// start. Every time-dependent rule of the emulator (quota reset, link expiry, what history exists,
// the coverage cache) reads this clock, never Date.now() directly.

export interface EmulatorClock {
  now(): Date;
  set(instant: Date | string): void;
  advance(ms: number): void;
}

export interface ClockOptions {
  /** Start instant. Without it the clock follows the wall clock. */
  now?: Date | string;
  /** With `now`: start there and tick with the wall clock instead of staying frozen. */
  realtime?: boolean;
}

export function toInstant(value: Date | string): Date {
  const instant = value instanceof Date ? new Date(value.getTime()) : new Date(value);
  if (Number.isNaN(instant.getTime())) throw new RangeError(`not a valid instant: ${String(value)}`);
  return instant;
}

/**
 * A clock is an offset from the wall clock (ticking) or a fixed instant (frozen). set/advance move
 * it in both modes.
 */
export function createClock(options: ClockOptions = {}, wallClock: () => number = Date.now): EmulatorClock {
  const ticking = options.now === undefined || options.realtime === true;
  let frozenAt = options.now === undefined ? wallClock() : toInstant(options.now).getTime();
  let offset = frozenAt - wallClock();
  const current = (): number => (ticking ? wallClock() + offset : frozenAt);
  return {
    now: () => new Date(current()),
    set(instant) {
      const target = toInstant(instant).getTime();
      frozenAt = target;
      offset = target - wallClock();
    },
    advance(ms) {
      if (!Number.isFinite(ms)) throw new RangeError('advance needs a finite number of milliseconds');
      frozenAt += ms;
      offset += ms;
    },
  };
}
