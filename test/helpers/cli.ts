// Runs the built CLI (dist/) as a child process, the way cron and users run it. Asynchronous on
// purpose: the emulator the child talks to lives in this test process and must keep serving.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const CLI_PATH = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));

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
}

export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries({ ...process.env, GEX_API_KEY: undefined, GEX_BASE_URL: undefined, GEXWH_DB: undefined, GEXWH_ARCHIVE: undefined, ...options.env })) {
      if (v !== undefined) env[k] = v;
    }
    const child = spawn(process.execPath, [CLI_PATH, ...args], { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    options.onSpawn?.(child);
  });
}
