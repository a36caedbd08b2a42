// A folder of files a test writes for a tool that reads a tree (the complexity counter,
// dependency-cruiser), removed after the file's tests.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll } from 'vitest';

export interface WrittenTree {
  root: string;
  /** Writes `text` at `path` under the root, creating its folders. */
  write(path: string, text: string): void;
}

/** A fresh temporary folder (call at a describe's top), removed in that describe's afterAll. */
export function writtenTree(prefix: string): WrittenTree {
  const root = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  return {
    root,
    write(path, text) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    },
  };
}
