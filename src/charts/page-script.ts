// The report page's script as the page inlines it: the compiled browser module (page/report-client.ts,
// built by `npm run build` into dist/src/charts/page/) after the formatters it shares with the static
// text (format.ts's functions, which stand alone: their source runs as it is), in one function scope.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { groupThousands, price, usdMillions } from './format.js';
import type { PageFormat } from './page/chart-spec.js';

const CLIENT = join('page', 'report-client.js');

// The compiler checks that the functions inlined are the ones the page's script declares.
const SHARED: PageFormat & { groupThousands: typeof groupThousands } = { groupThousands, price, usdMillions };

/** The compiled script: beside this module once built (dist/src/charts), or in dist/ when run from src/charts. */
export function clientScriptPath(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const candidate of [join(here, CLIENT), join(here, '..', '..', 'dist', 'src', 'charts', CLIENT)]) {
    if (existsSync(candidate)) return candidate;
  }
  throw new Error(`the report page's script (${CLIENT}) is not built; run npm run build`);
}

let cached: string | undefined;

/** The page's script: the formatters, then the client, in one function scope so nothing leaks but what it sets on window. */
export function pageScript(): string {
  cached ??= readFileSync(clientScriptPath(), 'utf8').replace(/\n\/\/# sourceMappingURL=.*$/m, '');
  const formatters = Object.values(SHARED).map((f: (...args: never[]) => string) => f.toString());
  return `\n(function () {\n${formatters.join('\n')}\n${cached}\n})();\n`;
}
