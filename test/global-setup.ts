// Every test run builds first: the CLI tests spawn the built dist/, so a single-file run after an
// edit of src/ would otherwise test stale code. The build is incremental: a few seconds when nothing
// changed. Run once per vitest process.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export default function buildFirst(): void {
  if (process.env.GEXWH_TEST_BUILT === '1') return;
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-b', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
  // The binary users run: the CLI bundled into dist/cli (what `npm run build` does after tsc).
  execFileSync(process.execPath, ['dist/scripts/bundle.js'], { cwd: ROOT, stdio: 'inherit' });
  process.env.GEXWH_TEST_BUILT = '1';
}
