// Reliability matrix, hostile server text on the way to a terminal: `gexwh api` prints a body that
// echoes the key and carries terminal escapes, and an error whose message and hints do the same.
// Through the CLI's code in this process (runCliInProcess: what it writes to stdout and stderr,
// captured) against a local server on port 0: the key never shows, no control character
// reaches stdout or stderr raw, an error stays one line per field, and the JSON printed keeps its value.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWarehouse } from '../../src/warehouse/open.js';
import { runCliInProcess as runCli } from '../helpers/cli.js';
import { KEY } from '../api/fixtures.js';
import { sendJson, startServer, type TestServer } from '../api/server.js';

const ESCAPES = '\u001b]0;pwned\u0007\u001b[2J\u001b[H\rerror: forged line\n\u009b31m\u202eevil';
/** Raw control characters a terminal would act on; a tab or a newline laid out by gexwh is fine. */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

let server: TestServer;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startServer((req, res) => {
    if (req.url?.startsWith('/api/v1/me')) {
      return sendJson(res, 200, { data: { echoed_key: KEY, note: `your key is ${KEY}!${ESCAPES}` }, meta: {} });
    }
    return sendJson(res, 400, { error: `invalid_param${ESCAPES}`, message: `bad key ${KEY}${ESCAPES}`, valid_values: [`${KEY}${ESCAPES}`] });
  });
  env = { GEX_BASE_URL: server.url, GEX_API_KEY: KEY };
});

let dir: string;
afterAll(async () => {
  await server.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('server text reaching the terminal', () => {
  it('api: a body echoing the key is printed masked, its escapes shown, its value kept', async () => {
    const result = await runCli(['api', '/me'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout + result.stderr).not.toContain(KEY);
    expect(result.stdout).not.toMatch(RAW_CONTROL);
    const body = JSON.parse(result.stdout) as { data: { echoed_key: string; note: string } };
    expect(body.data.echoed_key).toBe('[redacted]');
    expect(body.data.note).toBe(`your key is [redacted]!${ESCAPES}`);
  });

  it('api: an error answer quoting the key and escapes is one line per field, masked and escaped', async () => {
    const result = await runCli(['api', '/levels/deribit/BTC'], { env });
    expect(result.code).toBe(2);
    expect(result.stdout + result.stderr).not.toContain(KEY);
    expect(result.stderr).not.toMatch(RAW_CONTROL);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^error: invalid_param\\x1b\]0;pwned\\x07\\x1b\[2J\\x1b\[H\\x0derror: forged line\\x0a\\x9b31m\\u202eevil: bad key \[redacted\]/);
    expect(lines.filter((l) => l.startsWith('error:'))).toHaveLength(1);
    expect(lines.slice(1).every((l) => l.startsWith('  '))).toBe(true);
  });
});

describe('server text quoted in a note', () => {
  it('status offline: the API error in its note stays on the note line, escaped', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gexwh-hostile-output-'));
    const db = join(dir, 'gex.duckdb');
    (await openWarehouse(db)).close();
    const failing = await startServer((_req, res) => sendJson(res, 400, { error: 'invalid_param', message: `bad key ${KEY}${ESCAPES}` }));
    const result = await runCli(['status', '--db', db, '--archive', join(dir, 'raw')], { env: { ...env, GEX_BASE_URL: failing.url } });
    await failing.close();
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout + result.stderr).not.toContain(KEY);
    expect(result.stdout).not.toMatch(RAW_CONTROL);
    expect(result.stdout.split('\n').filter((l) => l.startsWith('error: forged'))).toEqual([]);
    expect(result.stdout).toMatch(/^note: API not reachable \(.*\\x0derror: forged line\\x0a.*\); coverage is the one last seen by sync$/m);
  });
});
