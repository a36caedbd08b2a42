// The headless Chromium the browser tests drive (Debian's chromium package; .ci/run installs it).
// Outside CI a machine without one skips those tests with a message; under CI=true it is a failure.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PNG } from 'pngjs';
import puppeteer from 'puppeteer-core';

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

/** A headless Chromium that opens SVG files and screenshots them at one size. */
export interface SvgBrowser {
  /** The SVG opened from a file (fonts ready), as a PNG of `width` × `height`; kept in `artifacts` when given. */
  screenshot(name: string, svg: string | Buffer, artifacts?: string): Promise<PNG>;
  close(): Promise<void>;
}

export async function openSvgBrowser(chromium: string, size: { width: number; height: number }): Promise<SvgBrowser> {
  const dir = mkdtempSync(join(tmpdir(), 'gexwh-svg-'));
  const browser = await puppeteer.launch({ executablePath: chromium, args: ['--no-sandbox', '--disable-gpu', '--font-render-hinting=none'] });
  return {
    async screenshot(name, svg, artifacts) {
      const file = join(dir, `${name}.svg`);
      writeFileSync(file, svg);
      const page = await browser.newPage();
      try {
        await page.setViewport(size);
        await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
        await page.evaluate('document.fonts.ready');
        if (artifacts) mkdirSync(artifacts, { recursive: true });
        const clip = { x: 0, y: 0, ...size };
        const shot = await page.screenshot(artifacts ? { path: join(artifacts, `svg-${name}.png`), clip } : { clip });
        return PNG.sync.read(Buffer.from(shot));
      } finally {
        await page.close();
      }
    },
    async close() {
      await browser.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
