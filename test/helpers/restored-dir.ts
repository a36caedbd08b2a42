// A test file's folder built once (a loaded warehouse, an archive) and put back byte for byte, at the
// same path, before each of its tests: the expensive setup is paid once per file, the absolute paths
// the warehouse records (archive and fixture files) stay true, and no test sees another's changes.
// Call at a file's (or a describe's) top level: it registers the hooks itself.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { snapshotFolder, type FolderSnapshot } from './snapshot.js';

export interface RestoredDir {
  /** The folder each test starts from (valid once the hooks ran). */
  readonly path: string;
}

/** `build` fills the (empty, existing) folder once; it must close everything it opened in it. */
export function restoredEachTest(build: (dir: string) => Promise<void>): RestoredDir {
  let root: string | undefined;
  let saved: FolderSnapshot | undefined;
  let path = '';
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'gexwh-restored-'));
    path = join(root, 'case');
    mkdirSync(path);
    await build(path);
    saved = snapshotFolder(path);
  });
  beforeEach(() => saved!.restore());
  afterAll(() => {
    saved?.remove();
    if (root) rmSync(root, { recursive: true, force: true });
  });
  return {
    get path() {
      return path;
    },
  };
}
