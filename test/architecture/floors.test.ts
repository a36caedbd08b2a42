// The import floors (cli -> the jobs -> journal -> api, warehouse -> core -> time -> calendar; the
// emulator apart, beside src/) as dependency-cruiser checks them: the real tree in `npm run
// lint:code` (CI's lint lane), with this same .dependency-cruiser.cjs; here, that a tree with an
// import up a floor, across one, into and out of the emulator, a folder on no floor and a loop fails,
// each import named by its rule, and that the imports down the floors pass.
import { createRequire } from 'node:module';
import { cruise, type ICruiseResult, type IConfiguration } from 'dependency-cruiser';
import { describe, expect, it } from 'vitest';
import { writtenTree } from '../helpers/written-tree.js';

const config = createRequire(import.meta.url)('../../.dependency-cruiser.cjs') as Required<Pick<IConfiguration, 'forbidden' | 'options'>>;

async function cruiseTree(baseDir: string): Promise<ICruiseResult> {
  const result = await cruise(['src', 'emulator'], { ...config.options, baseDir, validate: true, ruleSet: { forbidden: config.forbidden } });
  return result.output as ICruiseResult;
}

const named = (result: ICruiseResult): string[] => result.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`).sort();

describe('the import floors of src/ (dependency-cruiser)', () => {
  describe('a tree that breaks each rule', () => {
    const { root: tree, write } = writtenTree('gexwh-floors-');

    it('fails naming each import, and passes the imports down the floors', async () => {
      // Broken: up a floor, across a floor, out of and into the emulator, a folder on no floor, a loop (type-only
      // imports count: the one up a floor and half of the loop are `import type`).
      write('src/core/shape.ts', "import type { Run } from '../sync/run.js';\nexport type Shape = Run;\n");
      write('src/sync/run.ts', "import { get } from '../api/client.js';\nexport type Run = number;\nexport const run = get;\n");
      write('src/api/client.ts', "import type { Table } from '../warehouse/table.js';\nexport const get = 1 as Table;\n");
      write('src/warehouse/table.ts', 'export type Table = number;\n');
      write(
        'emulator/server.ts',
        "import { run } from '../src/sync/run.js';\nimport { open } from '../src/calendar/nyse.js';\nexport const serve = run + open;\n",
      );
      write('src/capture/live.ts', "import { serve } from '../../emulator/server.js';\nexport const live = serve;\n");
      write('src/stray/x.ts', "import { get } from '../api/client.js';\nexport const x = get;\n");
      write('src/desk/a.ts', "import { b } from './b.js';\nexport type A = number;\nexport const a = (): A => b();\n");
      write('src/desk/b.ts', "import type { A } from './a.js';\nexport const b = (): A => 1;\n");
      // Allowed: down the floors, within a folder, the CLI importing the emulator, the emulator taking the calendar.
      write('src/cli/main.ts', "import { run } from '../sync/run.js';\nimport { serve } from '../../emulator/server.js';\nexport const main = run + serve;\n");
      write('src/calendar/nyse.ts', 'export const open = 1;\n');
      write('src/time/dates.ts', "import { open } from '../calendar/nyse.js';\nexport const day = open;\n");
      write('src/core/day.ts', "import { day } from '../time/dates.js';\nimport type { Shape } from './shape.js';\nexport const today = day as Shape;\n");

      expect(named(await cruiseTree(tree))).toEqual([
        'emulator-apart: emulator/server.ts -> src/sync/run.ts',
        'emulator-only-from-cli: src/capture/live.ts -> emulator/server.ts',
        'floor-api: src/api/client.ts -> src/warehouse/table.ts',
        'floor-core: src/core/shape.ts -> src/sync/run.ts',
        'no-cycle: src/desk/a.ts -> src/desk/b.ts',
        'no-floor: src/stray/x.ts -> src/api/client.ts',
      ]);
    }, 120_000);
  });
});
