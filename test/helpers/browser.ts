// The headless Chromium the browser tests drive (Debian's chromium package; .ci/run installs it).
// Outside CI a machine without one skips those tests with a message; under CI=true it is a failure.
import { existsSync } from 'node:fs';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];

export function findChromium(): string | undefined {
  const fromEnv = process.env.GEXWH_CHROMIUM;
  if (fromEnv) return fromEnv;
  return CANDIDATES.find((path) => existsSync(path));
}

export const IN_CI = process.env.CI === 'true' || process.env.CI === '1';

/** The browser, or undefined (with a message) when the tests may skip; throws under CI. */
export function chromiumOrSkip(what: string): string | undefined {
  const found = findChromium();
  if (found) return found;
  if (IN_CI)
    throw new Error(
      `${what}: no Chromium found (${CANDIDATES.join(', ')} or GEXWH_CHROMIUM); under CI the browser test must run: .ci/run installs the chromium package`,
    );
  console.warn(`${what}: SKIPPED, no Chromium on this machine (apt-get install chromium, or set GEXWH_CHROMIUM)`);
  return undefined;
}
