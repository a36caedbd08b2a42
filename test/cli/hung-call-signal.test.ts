// SIGTERM while the API holds a call unanswered: the call is dropped at once and the process exits
// 143 (interrupted), not 1 "unexpected failure". A child process: the signal is the point.
import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startServer, type TestServer } from '../api/server.js';

const KEY = `gex_${'t'.repeat(32)}`;

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('a signal during a call the API never answers', () => {
  for (const [signal, code] of [
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const) {
    it(`${signal} → exit ${code}, at once`, async () => {
      let child: ChildProcess | undefined;
      let signalledAt = 0;
      // Accepts the request, never answers; the signal goes out once the request has arrived.
      server = await startServer(() => {
        signalledAt = performance.now();
        child?.kill(signal);
      });
      const result = await runCli(['coverage'], {
        env: { GEX_BASE_URL: server.url, GEX_API_KEY: KEY, GEXWH_API_TIMEOUT: '120' },
        onSpawn: (spawned) => (child = spawned),
      });
      expect(signalledAt).toBeGreaterThan(0);
      expect(result.code, result.stderr).toBe(code);
      expect(result.stderr).toContain(`interrupted by ${signal}`);
      expect(result.stderr).not.toContain('unexpected');
      expect(performance.now() - signalledAt).toBeLessThan(5_000);
    });
  }
});
