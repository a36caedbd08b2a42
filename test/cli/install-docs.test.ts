// Installing for cron, as the docs teach it: no cron line anywhere in README.md or docs/ runs a bare
// `npx gexwh` (outside the project it asks the npm registry for a package of that name and runs
// it with GEX_API_KEY in its environment); `npx --no-install gexwh` or an installed gexwh instead,
// and the README's install section says how to put gexwh on the PATH.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** A line cron would run: inside a ```cron block, or starting with five schedule fields. */
function cronLines(text: string): string[] {
  const lines: string[] = [];
  let inCron = false;
  for (const line of text.split('\n')) {
    if (/^```/.test(line)) inCron = /^```cron\b/.test(line);
    else if (inCron || (/^\s*(\S+\s+){5}\S/.test(line) && /^\s*[\d*@][\d*/,-]*\s/.test(line))) lines.push(line);
  }
  return lines.filter((l) => !/^\s*#/.test(l) && l.trim() !== '');
}

/** `npx` followed by gexwh without --no-install (or --offline) before it. */
const BARE_NPX = /\bnpx\s+(?!--no-install\b|--offline\b|--no\b)(?:-\S+\s+)*gexwh\b/;

describe('cron lines in the docs', () => {
  it('the rule itself: bare npx is caught, the safe forms are not', () => {
    expect(cronLines('```cron\n30 0 * * *  cd /x && npx gexwh sync\n```\n').some((l) => BARE_NPX.test(l))).toBe(true);
    expect(cronLines('30 0 * * * npx -y gexwh sync\n').some((l) => BARE_NPX.test(l))).toBe(true);
    expect(BARE_NPX.test('cd /x && npx --no-install gexwh sync')).toBe(false);
    expect(BARE_NPX.test('cd /x && /usr/local/bin/gexwh sync')).toBe(false);
  });

  it.each(DOCS)('%s: no cron line runs a bare `npx gexwh`', (doc) => {
    const bare = cronLines(readFileSync(join(ROOT, doc), 'utf8')).filter((l) => BARE_NPX.test(l));
    expect(bare).toEqual([]);
  });

  it('the README shows cron lines, each with an installed gexwh or npx --no-install', () => {
    const lines = cronLines(readFileSync(join(ROOT, 'README.md'), 'utf8')).filter((l) => /gexwh/.test(l));
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) expect(line).toMatch(/\/gexwh |npx --no-install gexwh /);
  });

  it("the README's install section puts gexwh on the PATH and warns about a bare npx outside the project", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const install = readme.slice(readme.indexOf('## Install'), readme.indexOf('\n## ', readme.indexOf('## Install') + 1));
    expect(install).toMatch(/npm link/);
    expect(install).toMatch(/npm install -g \./);
    expect(install).toMatch(/npx --no-install gexwh/);
    expect(install).toMatch(/GEX_API_KEY/);
  });
});
