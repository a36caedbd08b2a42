// Runs gexwh the way cron and users run it: the binary package.json names (the bundle in dist/cli)
// as a child process. Asynchronous on
// purpose: the emulator the child talks to lives in this test process and must keep serving.
// runCliInProcess runs the same code path (src/cli/run.ts, which the binary calls) inside this
// process, for the many cases that check only how an argv is refused: no node start, no imports.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runGexwh } from '../../src/cli/run.js';

export const CLI_PATH = fileURLToPath(new URL('../../dist/cli/gexwh.js', import.meta.url));
/** The same CLI as tsc built it, one file per module: what a test of which modules load reads. */
export const UNBUNDLED_CLI_PATH = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Called once the child exists (to send it signals). */
  onSpawn?: (child: ChildProcess) => void;
  /** 'pipe': the child's stdin is a pipe the test writes to (child.stdin in onSpawn); else none. */
  stdin?: 'pipe';
  /** The script to run instead of the bundle (UNBUNDLED_CLI_PATH). */
  cli?: string;
}

/** The settings a test must give explicitly: never the ones of the shell that runs the tests. */
const CLEARED = { GEX_API_KEY: undefined, GEX_BASE_URL: undefined, GEXWH_DB: undefined, GEXWH_ARCHIVE: undefined };

export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries({ ...process.env, ...CLEARED, ...options.env })) {
      if (v !== undefined) env[k] = v;
    }
    const child = spawn(process.execPath, [options.cli ?? CLI_PATH, ...args], { cwd: options.cwd, env, stdio: [options.stdin ?? 'ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    options.onSpawn?.(child);
  });
}

/**
 * gexwh run in this process with the env and cwd a child would get, its stdout and stderr captured.
 * Only for runs that end without a child's lifetime mattering (no signals, no lock held by a pid).
 */
export async function runCliInProcess(args: readonly string[], options: Omit<CliOptions, 'onSpawn' | 'stdin' | 'cli'> = {}): Promise<CliResult> {
  const restoreEnv = setEnv({ ...CLEARED, ...options.env });
  const cwd = process.cwd();
  const writes = { stdout: process.stdout.write, stderr: process.stderr.write };
  const captured = { stdout: '', stderr: '' };
  const capture = (stream: 'stdout' | 'stderr') =>
    ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      captured[stream] += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
      done?.();
      return true;
    }) as typeof process.stdout.write;
  try {
    if (options.cwd) process.chdir(options.cwd);
    process.stdout.write = capture('stdout');
    process.stderr.write = capture('stderr');
    const code = await runGexwh([process.execPath, CLI_PATH, ...args]);
    return { code, signal: null, ...captured };
  } finally {
    process.stdout.write = writes.stdout;
    process.stderr.write = writes.stderr;
    process.chdir(cwd);
    restoreEnv();
  }
}

/** Sets (or, for undefined, deletes) env vars; returns what puts the previous values back. */
function setEnv(values: Record<string, string | undefined>): () => void {
  const previous = Object.fromEntries(Object.keys(values).map((k) => [k, process.env[k]]));
  const apply = (from: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(from)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  apply(values);
  return () => apply(previous);
}
