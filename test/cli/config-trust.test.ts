// A gexwh.config.json found in the working folder or a parent decides where the API key is sent. It
// is used only when the current user owns it and alone may write it; otherwise exit 2, naming the
// file, the owner or mode and the fix, and no request leaves. The tests run as root here: a file
// chown'ed to another uid (65534, nobody) is a file someone else owns.
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, lchownSync, mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { checkFoundConfig, distrustOf, processTrust, type TrustProbe } from '../../src/cli/config-trust.js';
import { loadConfig } from '../../src/cli/settings.js';
import { UntrustedConfigError } from '../../src/core/errors.js';
import { runCliInProcess } from '../helpers/cli.js';

const KEY = 'gex_trustTESTkey0123456789abcdefABCDEF'.slice(0, 36);
const OTHER_UID = 65534;
const me = process.getuid!();

describe('distrustOf (pure)', () => {
  const mine = { uid: 1000, mode: 0o100644 };
  it('trusts a file the user owns that only they may write', () => {
    expect(distrustOf('/p/c.json', 1000, { link: mine, file: mine })).toBeUndefined();
    expect(distrustOf('/p/c.json', 1000, { link: mine, file: { uid: 1000, mode: 0o100600 } })).toBeUndefined();
  });
  it("refuses another user's file, a link another user planted, and a file its group or others may write", () => {
    expect(distrustOf('/p/c.json', 1000, { link: mine, file: { uid: 0, mode: 0o100644 } })).toEqual({
      why: 'it is owned by uid 0, not by you (uid 1000)',
      fix: 'chown 1000 /p/c.json if it is yours',
    });
    expect(distrustOf('/p/c.json', 1000, { link: { uid: 7, mode: 0o120777 }, file: mine })?.why).toBe(
      'the link to it is owned by uid 7, not by you (uid 1000)',
    );
    expect(distrustOf('/p/c.json', 1000, { link: mine, file: { uid: 1000, mode: 0o100664 } })).toEqual({
      why: 'its group may write it (mode 0664)',
      fix: 'chmod go-w /p/c.json',
    });
    expect(distrustOf('/p/c.json', 1000, { link: mine, file: { uid: 1000, mode: 0o100646 } })?.why).toBe('others may write it (mode 0646)');
    expect(distrustOf('/p/c.json', 1000, { link: mine, file: { uid: 1000, mode: 0o100666 } })?.why).toBe('its group and others may write it (mode 0666)');
  });
  it('checks nothing where the platform has no uid (Windows)', () => {
    const probe: TrustProbe = { uid: () => undefined, stat: () => ({ link: { uid: 1, mode: 0o666 }, file: { uid: 1, mode: 0o666 } }) };
    expect(() => checkFoundConfig('/p/c.json', probe)).not.toThrow();
  });
  it('the owner and uid come from the probe given', () => {
    const probe: TrustProbe = { uid: () => 1000, stat: () => ({ link: { uid: 1000, mode: 0o644 }, file: { uid: 1001, mode: 0o644 } }) };
    expect(() => checkFoundConfig('/p/c.json', probe)).toThrow(UntrustedConfigError);
  });
});

describe('loadConfig: the file judged is the file read', () => {
  it.runIf(process.platform !== 'win32')('a file renamed over the config right after it was judged is not read', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gexwh-trust-swap-'));
    try {
      const config = join(dir, 'gexwh.config.json');
      writeFileSync(config, JSON.stringify({ baseUrl: 'https://api.mine.example' }), { mode: 0o644 });
      const theirs = join(dir, 'theirs.json');
      writeFileSync(theirs, JSON.stringify({ baseUrl: 'https://key-catcher.example' }), { mode: 0o644 });
      // The race made certain: whoever may write the folder renames their file over the user's
      // between the check and the read (in the tests both are root's: what matters is which is read).
      const racing: TrustProbe = {
        uid: () => me,
        stat: (path, fd) => {
          const stats = processTrust.stat(path, fd);
          renameSync(theirs, config);
          return stats;
        },
      };
      expect(loadConfig(undefined, dir, racing).values).toEqual({ baseUrl: 'https://api.mine.example' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.runIf(process.platform !== 'win32')("a FIFO at the name is refused at once; another user's file is named as another user's", () => {
    const dir = mkdtempSync(join(tmpdir(), 'gexwh-trust-fifo-'));
    try {
      const config = join(dir, 'gexwh.config.json');
      execFileSync('mkfifo', [config]);
      expect(() => loadConfig(undefined, dir)).toThrow(/not a regular file/);
      rmSync(config);
      writeFileSync(config, '{}', { mode: 0o600 });
      chownSync(config, OTHER_UID, OTHER_UID);
      const denied = { ...processTrust, stat: () => ({ link: { uid: OTHER_UID, mode: 0o100600 }, file: { uid: OTHER_UID, mode: 0o100600 } }) };
      expect(() => loadConfig(undefined, dir, denied)).toThrow(UntrustedConfigError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a config file found upward, through the CLI', () => {
  let server: Server;
  let baseUrl: string;
  const keysSeen: string[] = [];
  let root: string;
  let project: string;
  let cwd: string;
  let config: string;

  beforeAll(async () => {
    server = createServer((req, res) => {
      keysSeen.push(String(req.headers['x-api-key'] ?? ''));
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 'unauthorized', message: 'no' } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    keysSeen.length = 0;
    root = mkdtempSync(join(tmpdir(), 'gexwh-trust-'));
    project = join(root, 'project');
    cwd = join(project, 'sub');
    mkdirSync(cwd, { recursive: true });
    config = join(project, 'gexwh.config.json');
    writeFileSync(config, JSON.stringify({ baseUrl }));
    chmodSync(config, 0o644);
    return () => rmSync(root, { recursive: true, force: true });
  });

  const me_ = (args: string[] = []) => runCliInProcess(['me', ...args], { cwd, env: { GEX_API_KEY: KEY } });

  it('a file the user owns, writable by them alone, is used: its baseUrl gets the request', async () => {
    const result = await me_();
    expect(result.code).toBe(3);
    expect(keysSeen).toEqual(expect.arrayContaining([KEY]));
  });

  it("another user's file is refused (exit 2 naming the file, the owner and the fix); the key goes nowhere", async () => {
    chownSync(config, OTHER_UID, OTHER_UID);
    const result = await me_(['--json']);
    expect(result.code).toBe(2);
    const error = JSON.parse(result.stdout).error;
    expect(error.code).toBe('untrusted_config');
    expect(error.message).toContain(config);
    expect(error.message).toContain(`owned by uid ${OTHER_UID}, not by you (uid ${me})`);
    expect(error.message).toContain(`chown ${me} ${config}`);
    expect(error.message).toContain(`--config ${config}`);
    expect(keysSeen).toEqual([]);
  });

  for (const [mode, who] of [
    [0o664, 'its group may write it (mode 0664)'],
    [0o646, 'others may write it (mode 0646)'],
  ] as const) {
    it(`a file ${who.split(' may')[0]} may write is refused, with chmod go-w as the fix`, async () => {
      chmodSync(config, mode);
      const result = await me_();
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`${config} is not used: ${who}`);
      expect(result.stderr).toContain(`chmod go-w ${config}`);
      expect(keysSeen).toEqual([]);
    });
  }

  it('a link to the config that another user planted is refused too', async () => {
    const real = join(root, 'real.json');
    writeFileSync(real, JSON.stringify({ baseUrl }));
    rmSync(config);
    symlinkSync(real, config);
    // the link itself belongs to the other user, its target to us
    lchownSync(config, OTHER_UID, OTHER_UID);
    const result = await me_();
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`the link to it is owned by uid ${OTHER_UID}`);
    expect(keysSeen).toEqual([]);
  });

  it('the same file named with --config is the user’s choice: used', async () => {
    chownSync(config, OTHER_UID, OTHER_UID);
    chmodSync(config, 0o666);
    const result = await me_(['--config', config]);
    expect(result.code).toBe(3);
    expect(keysSeen).toEqual(expect.arrayContaining([KEY]));
  });

  it('doctor names the config it used, and flags a foreign one (its baseUrl not used)', async () => {
    const used = await runCliInProcess(['doctor'], { cwd, env: { GEX_API_KEY: KEY } });
    expect(used.stdout).toMatch(new RegExp(`config\\s+ok\\s+using ${config.replaceAll('/', '\\/')} \\(found upward; yours, writable by you alone\\)`));
    keysSeen.length = 0;
    chownSync(config, OTHER_UID, OTHER_UID);
    const foreign = await runCliInProcess(['doctor'], { cwd, env: { GEX_API_KEY: KEY } });
    expect(foreign.code).not.toBe(0);
    expect(foreign.stdout).toMatch(/config\s+FAIL\s+config file .* is not used: it is owned by uid 65534/);
    expect(foreign.stdout).toContain(`chown ${me} ${config} if it is yours, or name it with --config to use it anyway`);
    expect(keysSeen).toEqual([]);
  });
});
