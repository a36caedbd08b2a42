// A test that needs a tool of the machine (a mount namespace, /dev/full): outside CI a machine without
// it skips the test with a message; under CI=true the test must run, so a missing tool fails the file
// instead of passing it silently. (Chromium: browser.ts, the same rule.)
import { IN_CI } from './browser.js';

/** `found`, or (with a message) false when the test may skip; throws under CI. */
export function toolOrSkip(found: boolean, what: string, howToGet: string): boolean {
  if (found) return true;
  if (IN_CI) throw new Error(`${what}: not available on this machine (${howToGet}); under CI the test must run, not skip`);
  console.warn(`${what}: SKIPPED, not available on this machine (${howToGet})`);
  return false;
}
