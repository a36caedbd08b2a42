// Writes an output file whole or not at all: a temporary file beside it, then a rename.
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { writeBeside } from '../core/output-file.js';

export function writeWhole(path: string, content: Buffer | string): void {
  const target = resolve(path);
  mkdirSync(dirname(target), { recursive: true });
  writeBeside(target, content);
}
