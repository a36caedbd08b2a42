// gexwh itself as a contender: runSync in-process (the same code path as `gexwh sync`) against the
// emulator, or the built CLI spawned as a child process when Node's start-up must count.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApiClient } from '../src/api/index.js';
import { syncApiFrom } from '../src/sync/api-port.js';
import { runSync, type SyncEvents, type SyncSummary } from '../src/sync/run.js';
import { parseSyncSelection, type RawSyncSelection } from '../src/sync/selection.js';

export interface SyncTarget {
  baseUrl: string;
  key: string;
}

/** Milliseconds spent in each sync phase, filled as the phases start. */
export type PhaseTimes = Partial<Record<Parameters<NonNullable<SyncEvents['phase']>>[0] | 'finish', number>>;

export async function gexwhSync(target: SyncTarget, dbPath: string, archiveRoot: string, raw: RawSyncSelection, phases: PhaseTimes = {}): Promise<SyncSummary> {
  const client = createApiClient({ baseUrl: target.baseUrl, apiKey: target.key });
  let current: keyof PhaseTimes | undefined;
  let since = performance.now();
  const mark = (name: keyof PhaseTimes) => {
    const now = performance.now();
    if (current !== undefined) phases[current] = (phases[current] ?? 0) + (now - since);
    current = name === 'finish' ? undefined : name;
    since = now;
  };
  try {
    const selection = parseSyncSelection(raw);
    return await runSync(
      { command: 'sync', dbPath, archiveRoot, selection, dryRun: false, fullRescan: false, fillLevels: false, recordedOptions: { ...selection } },
      syncApiFrom(client),
      new AbortController().signal,
      { phase: (name) => mark(name) },
    );
  } finally {
    mark('finish');
    await client.close();
  }
}

/** The binary users run, the bundle dist/cli/gexwh.js, next to this compiled file's dist/bench/. */
export const CLI_PATH = join(fileURLToPath(new URL('.', import.meta.url)), '..', 'cli', 'gexwh.js');
const RSS_PRELOAD = join(fileURLToPath(new URL('.', import.meta.url)), 'rss-preload.js');

export interface CliRun {
  code: number | null;
  ms: number;
  stdout: string;
  stderr: string;
  /** Peak RSS of the child in bytes (from its own resourceUsage at exit). */
  peakRss: number;
  /** CPU milliseconds the child used, user + system, all its threads (NaN without the preload). */
  cpuMs: number;
}

/** Spawns `node <cli> ...args` with the key in the environment; measures wall time and peak RSS. */
export function runCli(args: readonly string[], env: Record<string, string>, cli: string = CLI_PATH): Promise<CliRun> {
  return runNode(['--import', RSS_PRELOAD, cli, ...args], env);
}

/** Spawns `node <script> ...args` with the RSS reporter preloaded. */
export function runNodeScript(script: string, args: readonly string[], env: Record<string, string> = {}): Promise<CliRun> {
  return runNode(['--import', RSS_PRELOAD, script, ...args], env);
}

/** Spawns node with these arguments; wall time, output and (when preloaded) peak RSS. */
export function runNode(nodeArgs: readonly string[], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, nodeArgs, {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let rss = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdio[3]?.on('data', (d: Buffer) => (rss += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const [rssKiB, cpuMicros] = rss.trim().split(' ').map(Number);
      resolve({ code, ms: performance.now() - start, stdout, stderr, peakRss: (rssKiB ?? Number.NaN) * 1024, cpuMs: (cpuMicros ?? Number.NaN) / 1000 });
    });
  });
}
