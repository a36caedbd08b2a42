import { expect } from 'vitest';
import { UsageError } from '../../src/core/errors.js';

/** The message of the UsageError `fn` throws; fails the test when it throws anything else or nothing. */
export function usageMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('expected a UsageError');
}
