// The server decides about the key: the spec names no prefix, so any key a header carries as it is
// goes out; a 401 is exit 3 with the server's words and what to check; the key never shows, whatever
// its prefix.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { ApiError, AuthError, exitCodeOf } from '../../src/core/errors.js';
import type { Emulator } from '../../emulator/index.js';
import { smallEmulator } from '../emulator/server/helpers.js';
import { runCliInProcess } from '../helpers/cli.js';
import { sendJson, startServer } from './server.js';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await smallEmulator({ keyPrefix: 'svc_', symbols: ['BTC'] });
});
afterAll(() => emulator.close());

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

describe('a key with another prefix', () => {
  it('is sent, and the emulator of that prefix answers it', async () => {
    expect(emulator.keys.pro).toMatch(/^svc_[A-Za-z0-9_-]{32}$/);
    const client = createApiClient({ baseUrl: emulator.baseUrl, apiKey: emulator.keys.pro });
    try {
      const me = await client.me();
      expect(me.data.tier).toBe('pro');
    } finally {
      await client.close();
    }
  });

  it('through the CLI: `gexwh me` with an svc_ key exits 0', async () => {
    const result = await runCliInProcess(['me', '--json'], { env: { GEX_BASE_URL: emulator.baseUrl, GEX_API_KEY: emulator.keys.pro } });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ tier: 'pro' });
  });

  it('a key of any shape the server may use is sent as it is (short, long, dots, no underscore)', async () => {
    const seen: string[] = [];
    const server = await startServer((req, res) => {
      seen.push(String(req.headers['x-api-key']));
      sendJson(res, 401, { error: 'unauthorized', message: 'Invalid API key.' });
    });
    try {
      for (const key of ['k', `live.${'x'.repeat(60)}`, 'abc~DEF!123']) {
        const client = createApiClient({ baseUrl: server.url, apiKey: key });
        const error = await rejection(client.me());
        await client.close();
        expect(error).toBeInstanceOf(ApiError);
        expect(exitCodeOf(error)).toBe(3);
      }
      expect(seen).toEqual(['k', `live.${'x'.repeat(60)}`, 'abc~DEF!123']);
    } finally {
      await server.close();
    }
  });

  it('a key no header can carry as it is (empty, whitespace, control, non-ASCII) is refused before any request, never echoed', () => {
    for (const apiKey of ['', 'svc_ab cd', 'svc_ab\tcd', 'svc_ab\u0007cd', 'svc_abcdé']) {
      let thrown: unknown;
      try {
        createApiClient({ baseUrl: 'http://127.0.0.1:1', apiKey });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(AuthError);
      expect(exitCodeOf(thrown)).toBe(3);
      expect((thrown as Error).message).toMatch(/whitespace, a control character/);
      if (apiKey !== '') expect((thrown as Error).message).not.toContain(apiKey);
    }
  });
});

describe('a key the server refuses (401)', () => {
  it('exits 3 with the server message and what to check (the env var)', async () => {
    const key = `svc_${'Z'.repeat(32)}`;
    const result = await runCliInProcess(['me'], { env: { GEX_BASE_URL: emulator.baseUrl, GEX_API_KEY: key } });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('unauthorized: Invalid API key.');
    expect(result.stderr).toContain('Check the key in GEX_API_KEY');
    expect(result.stderr).not.toContain(key);
  });

  it('names the key file when the key came from --api-key-file', async () => {
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'gexwh-key-'));
    try {
      const file = join(dir, 'key');
      writeFileSync(file, `gex_${'Q'.repeat(32)}\n`, { mode: 0o600 });
      const result = await runCliInProcess(['me', '--json', '--api-key-file', file], { env: { GEX_BASE_URL: emulator.baseUrl } });
      expect(result.code).toBe(3);
      const error = (JSON.parse(result.stdout) as { error: { code: string; message: string; exitCode: number } }).error;
      expect(error).toMatchObject({ code: 'unauthorized', exitCode: 3 });
      expect(error.message).toContain('Invalid API key.');
      expect(error.message).toContain(`the key file ${file} (--api-key-file)`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a server echoing a key of another prefix in its message and hints gets it redacted', async () => {
    const key = `svc_${'e'.repeat(32)}`;
    const server = await startServer((req, res) => {
      const echoed = String(req.headers['x-api-key']);
      sendJson(res, 401, { error: 'unauthorized', message: `Key ${echoed} is unknown.`, key_seen: echoed });
    });
    const client = createApiClient({ baseUrl: server.url, apiKey: key });
    try {
      const error = await rejection(client.me());
      expect(exitCodeOf(error)).toBe(3);
      const text = JSON.stringify(error, Object.getOwnPropertyNames(error as object)) + String(error);
      expect(text).toContain('[redacted]');
      expect(text).not.toContain(key);
    } finally {
      await client.close();
      await server.close();
    }
  });
});
