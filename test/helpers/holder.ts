// Another process holding the warehouse, the way a notebook or DBeaver does: a child node process
// opens the DuckDB file (READ_ONLY or read-write), prints "ready", and keeps it open until its stdin
// is closed; then it closes the file and exits. Events, not sleeps: the test waits for "ready" and for
// the exit.
import { spawn, type ChildProcess } from 'node:child_process';

export interface Holder {
  pid: number;
  /** Closes the child's stdin and resolves once it has let the file go and exited. */
  release(): Promise<void>;
  /** Last resort in `finally`. */
  kill(): void;
}

const SCRIPT = `
  const [db, mode] = process.argv.slice(1);
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const instance = await DuckDBInstance.create(db, mode === 'read_only' ? { access_mode: 'READ_ONLY' } : {});
  const connection = await instance.connect();
  await connection.run('SELECT count(*) FROM sync.files');
  process.stdin.on('end', () => {
    connection.closeSync();
    instance.closeSync();
    process.exit(0);
  });
  process.stdin.resume();
  process.stdout.write('ready\\n');`;

export async function holdWarehouse(db: string, mode: 'read_only' | 'read_write'): Promise<Holder> {
  const child: ChildProcess = spawn(process.execPath, ['--input-type=module', '-e', SCRIPT, db, mode], {
    stdio: ['pipe', 'pipe', 'inherit'],
    cwd: process.cwd(),
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the holder exited (${code}) before it held ${db}`)));
  });
  return {
    pid: child.pid!,
    async release() {
      child.stdin!.end();
      await exited;
    },
    kill() {
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}
