// The user-chosen outputs (`chart --out`, `report --out`, `plan --out`): a link planted beside the
// output, at the temp name the writer used to take (`.<name>.<pid>.tmp`), is never written through.
import { lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeWhole } from '../../src/charts/write.js';
import { writePlanFile } from '../../src/cli/plan-file-io.js';
import type { PlanDocument } from '../../src/sync/plan-file.js';
import { makeTempDir } from '../warehouse/fixtures.js';

const writers: [string, (path: string) => void, string][] = [
  ['chart/report --out', (path) => writeWhole(path, '<html>the report</html>'), '<html>the report</html>'],
  ['plan --out', (path) => writePlanFile(path, { plan: 'the plan' } as unknown as PlanDocument), `${JSON.stringify({ plan: 'the plan' }, null, 2)}\n`],
];

describe.each(writers)('%s', (_, write, content) => {
  it.runIf(process.platform !== 'win32')('writes a new file at the name, never through a link planted at a temp name beside it', () => {
    const { dir, cleanup } = makeTempDir();
    try {
      const shared = join(dir, 'shared');
      mkdirSync(shared);
      const victim = join(dir, 'victim.txt');
      writeFileSync(victim, 'the neighbour aims at this file');
      const planted = join(shared, `.out.html.${process.pid}.tmp`);
      symlinkSync(victim, planted);
      const out = join(shared, 'out.html');

      write(out);

      // Before, the content went into victim.txt and out.html became the planted link.
      expect(readFileSync(victim, 'utf8')).toBe('the neighbour aims at this file');
      expect(lstatSync(out).isFile()).toBe(true);
      expect(readFileSync(out, 'utf8')).toBe(content);
      expect(lstatSync(planted).isSymbolicLink()).toBe(true);
      expect(readdirSync(shared).sort()).toEqual([`.out.html.${process.pid}.tmp`, 'out.html']);
    } finally {
      cleanup();
    }
  });
});
