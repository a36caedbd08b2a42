// The manifest facts (rows, bytes, sha256) of built daily files, kept on disk between runs of
// `gexwh emulate`. A file's bytes depend on the market's code, the seed, the chain sizes, the symbols
// served and zlib, never on the clock or the history length; so the facts one run computed hold for
// every later run under the same key, and a manifest page is answered from them without building its
// files. The key hashes the market's own code: a changed generator starts a new cache instead of
// listing stale sha256s. The cache only saves time: any failure to read or write it is ignored.

import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MarketModel } from '../market/types.js';

export interface FileFacts {
  rows: number;
  bytes: number;
  sha256: string;
}

export interface FactsCache {
  /** The cache file of this market's key. */
  readonly path: string;
  /** Every fact stored under this key, by file key (exchange/symbol/date/file/revision). */
  load(): Map<string, FileFacts>;
  add(fileKey: string, facts: FileFacts): void;
  /** Deletes the cache file: the bytes built disagreed with it, so none of it is trusted again. */
  discard(): void;
}

/** `GEXWH_EMULATOR_CACHE` (a folder, or `off`), else the user's cache folder. */
export function defaultFactsCacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const chosen = env.GEXWH_EMULATOR_CACHE;
  if (chosen === 'off') return undefined;
  if (chosen) return chosen;
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'gexwh', 'emulator');
}

export function openFactsCache(dir: string, model: MarketModel): FactsCache {
  const path = join(dir, `facts-${marketKey(model)}.tsv`);
  let writable = true;
  return {
    path,
    load() {
      const facts = new Map<string, FileFacts>();
      let text: string;
      try {
        text = readFileSync(path, 'utf8');
      } catch {
        return facts;
      }
      for (const line of text.split('\n')) {
        const parsed = parseLine(line);
        if (parsed) facts.set(parsed[0], parsed[1]);
      }
      return facts;
    },
    add(fileKey, facts) {
      if (!writable) return;
      try {
        mkdirSync(dir, { recursive: true });
        appendFileSync(path, `${fileKey}\t${facts.rows}\t${facts.bytes}\t${facts.sha256}\n`);
      } catch {
        writable = false; // a read-only home: the emulator works as without a cache
      }
    },
    discard() {
      writable = false;
      rmSync(path, { force: true });
    },
  };
}

/** A line cut short by a killed process, or anything else that is not a fact, is skipped. */
function parseLine(line: string): [string, FileFacts] | undefined {
  const [key, rows, bytes, sha256, extra] = line.split('\t');
  if (extra !== undefined || !key || !sha256 || !/^[0-9a-f]{64}$/.test(sha256)) return undefined;
  const r = Number(rows);
  const b = Number(bytes);
  if (!Number.isSafeInteger(r) || !Number.isSafeInteger(b) || r < 0 || b <= 0) return undefined;
  return [key, { rows: r, bytes: b, sha256 }];
}

/** What the bytes of a file depend on: the market code, zlib, the seed, the chains, the symbols and the layout. */
export function marketKey(model: MarketModel): string {
  const hash = createHash('sha256');
  const folder = fileURLToPath(new URL('../market/', import.meta.url));
  for (const name of readdirSync(folder).sort()) {
    if (!/\.(js|ts)$/.test(name) || name.endsWith('.d.ts')) continue;
    hash
      .update(`${name}\0`)
      .update(readFileSync(join(folder, name)))
      .update('\0');
  }
  const { seed, expirations, strikes, aliases, layout } = model.options;
  const symbols = model.symbols.map((info) => info.symbol);
  // The layout and schema_version enter only when they are not the design's: the design's key is unchanged.
  const disagree = layout === undefined || layout === 'design' ? {} : { layout };
  const version = model.schemaVersion === 1 ? {} : { schemaVersion: model.schemaVersion };
  hash.update(JSON.stringify({ zlib: process.versions.zlib, seed, expirations, strikes, symbols, aliases: aliases ?? {}, ...disagree, ...version }));
  return hash.digest('hex').slice(0, 32);
}
