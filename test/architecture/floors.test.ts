// CI's check of the floors (cli -> sync, doctor -> api, warehouse -> core -> time -> calendar; the
// emulator apart, beside src/): no import runs up a floor and no files import each other in a loop.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { checkFloors, readImports } from './import-floors.js';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

describe('the import floors of src/', () => {
  it('reads the imports of the real tree (the check has something to judge)', () => {
    const imports = readImports(repo);
    expect(imports.length).toBeGreaterThan(300);
    expect(imports).toContainEqual({ from: 'src/cli/main.ts', to: 'src/core/errors.ts' });
  });

  it('has no import up a floor, across a floor, into or out of the emulator, and no cycle', () => {
    const problems = checkFloors(repo).map((v) => `${v.kind}: ${v.detail}`);
    expect(problems).toEqual([]);
  });
});

describe('the floor check itself', () => {
  let tree: string;
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(tree, path)), { recursive: true });
    writeFileSync(join(tree, path), text);
  };
  afterEach(() => rmSync(tree, { recursive: true, force: true }));

  it('rejects an import up a floor, across one, out of the emulator, an unknown folder, and names each file and import', () => {
    tree = mkdtempSync(join(tmpdir(), 'gexwh-floors-'));
    write('src/core/shape.ts', "import { run } from '../sync/run.js';\nexport const shape = run;\n");
    write('src/sync/run.ts', 'export const run = 1;\n');
    write('src/api/client.ts', "import type { Table } from '../warehouse/table.js';\nexport type Client = Table;\n");
    write('src/warehouse/table.ts', 'export type Table = string;\n');
    write('emulator/server.ts', "export { run } from '../src/sync/run.js';\n");
    write('src/stray/x.ts', "import '../core/shape.js';\n");
    const found = checkFloors(tree).map((v) => [v.kind, v.file, v.detail]);
    expect(found).toEqual(
      expect.arrayContaining([
        ['up a floor', 'src/core/shape.ts', 'src/core/shape.ts imports src/sync/run.ts: up from floor 3 (core) to floor 6 (sync)'],
        ['across a floor', 'src/api/client.ts', expect.stringContaining('src/api/client.ts imports src/warehouse/table.ts')],
        ['out of a folder apart', 'emulator/server.ts', 'emulator/server.ts imports src/sync/run.ts; emulator may import only src/calendar'],
        ['no floor', 'src/stray/x.ts', expect.stringContaining('stands on no floor')],
      ]),
    );
    expect(found).toHaveLength(4);
  });

  it('rejects a cycle between files of one folder, type-only imports included', () => {
    tree = mkdtempSync(join(tmpdir(), 'gexwh-floors-'));
    write(
      'src/warehouse/rebuild.ts',
      "import { fromArchive } from './from-archive.js';\nexport interface Result { n: number }\nexport const rebuild = fromArchive;\n",
    );
    write('src/warehouse/from-archive.ts', "import type { Result } from './rebuild.js';\nexport const fromArchive = (): Result => ({ n: 1 });\n");
    const found = checkFloors(tree);
    expect(found).toEqual([
      {
        kind: 'cycle',
        file: 'src/warehouse/from-archive.ts',
        detail:
          'files import each other in a loop: src/warehouse/from-archive.ts -> src/warehouse/rebuild.ts; src/warehouse/rebuild.ts -> src/warehouse/from-archive.ts',
      },
    ]);
  });

  it('accepts imports down the floors, within a folder, the CLI importing the emulator and the emulator taking the calendar', () => {
    tree = mkdtempSync(join(tmpdir(), 'gexwh-floors-'));
    write('src/cli/main.ts', "import { run } from '../sync/run.js';\nimport { serve } from '../../emulator/server.js';\nexport { run, serve };\n");
    write('src/sync/run.ts', "import { get } from '../api/client.js';\nimport { shape } from '../core/shape.js';\nexport const run = get + shape;\n");
    write('src/api/client.ts', "import { shape } from '../core/shape.js';\nexport const get = shape;\n");
    write('src/api/schemas.ts', 'export const schema = 1;\n');
    write('src/core/shape.ts', "import { day } from '../time/dates.js';\nexport const shape = day;\n");
    write('src/time/dates.ts', 'export const day = 1;\n');
    write('src/calendar/nyse.ts', 'export const open = 1;\n');
    write('emulator/server.ts', "import { open } from '../src/calendar/nyse.js';\nexport const serve = open;\n");
    expect(checkFloors(tree)).toEqual([]);
  });

  it('rejects a product folder other than the CLI importing the emulator', () => {
    tree = mkdtempSync(join(tmpdir(), 'gexwh-floors-'));
    write('src/sync/run.ts', "import { serve } from '../../emulator/server.js';\nexport const run = serve;\n");
    write('emulator/server.ts', 'export const serve = 1;\n');
    expect(checkFloors(tree).map((v) => [v.kind, v.detail])).toEqual([
      ['into a folder apart', 'src/sync/run.ts imports emulator/server.ts; only src/cli may import emulator'],
    ]);
  });
});
