import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuthError, UsageError } from '../../src/core/errors.js';
import { findConfigFile, loadConfig, loadConfigFile, readApiKey, resolveGlobals } from '../../src/cli/settings.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gexwh-settings-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function configFile(content: unknown): string {
  const path = join(dir, 'gexwh.config.json');
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

describe('config file', () => {
  it('accepts the documented fields', () => {
    const path = configFile({ db: 'x.duckdb', symbol: ['BTC'], files: 'levels', maxCredits: 5, order: 'oldest', fillLevels: true });
    expect(loadConfigFile(path)).toEqual({ db: 'x.duckdb', symbol: ['BTC'], files: ['levels'], maxCredits: 5, order: 'oldest', fillLevels: true });
  });

  it('rejects an unknown field, naming it and the allowed ones', () => {
    const path = configFile({ apiKey: 'gex_x' });
    expect(() => loadConfigFile(path)).toThrow(UsageError);
    expect(() => loadConfigFile(path)).toThrow(/unknown field.*"apiKey".*allowed: db, archive/);
  });

  it('rejects a bad value naming the field', () => {
    expect(() => loadConfigFile(configFile({ maxCredits: -1 }))).toThrow(/field "maxCredits"/);
    expect(() => loadConfigFile(configFile({ order: 'random' }))).toThrow(/field "order"/);
    expect(() => loadConfigFile(configFile({ concurrency: 0 }))).toThrow(/field "concurrency"/);
  });

  it('rejects a file that is not JSON', () => {
    expect(() => loadConfigFile(configFile('{ not json'))).toThrow(/not valid JSON/);
  });

  it('an explicit --config that does not exist is a usage error; a missing default is fine', () => {
    expect(() => loadConfigFile(join(dir, 'nope.json'))).toThrow(/--config: file not found/);
  });
});

describe('precedence', () => {
  it('flag > env > config > default', () => {
    const config = configFile({ db: 'from-config.duckdb', archive: 'config-raw' });
    const env = { GEXWH_DB: 'from-env.duckdb' };
    expect(resolveGlobals({ config, db: 'from-flag.duckdb' }, env).db).toBe('from-flag.duckdb');
    expect(resolveGlobals({ config }, env).db).toBe('from-env.duckdb');
    // A config file's relative paths, and the defaults, are in its folder; flags and env stay as given.
    expect(resolveGlobals({ config }, {}).db).toBe(join(dir, 'from-config.duckdb'));
    expect(resolveGlobals({ config }, {}).archive).toBe(join(dir, 'config-raw'));
    expect(resolveGlobals({ config: configFile({}) }, {}).archive).toBe(join(dir, 'data/raw'));
    expect(resolveGlobals({ config: configFile({ db: '/abs/gex.duckdb' }) }, {}).db).toBe('/abs/gex.duckdb');
  });

  it('without --config the nearest gexwh.config.json up the tree is used, as git finds .git', () => {
    const nested = join(dir, 'a', 'b');
    mkdirSync(nested, { recursive: true });
    expect(findConfigFile(nested)).toBeUndefined();
    const path = configFile({ db: 'here.duckdb' });
    expect(findConfigFile(nested)).toBe(path);
    expect(loadConfig(undefined, nested)).toEqual({ path, values: { db: 'here.duckdb' }, found: 'upward' });
    writeFileSync(join(dir, 'a', 'gexwh.config.json'), '{}');
    expect(findConfigFile(nested)).toBe(join(dir, 'a', 'gexwh.config.json'));
  });

  it('rejects a base URL with another scheme or user info', () => {
    expect(() => resolveGlobals({ baseUrl: 'ftp://x', config: configFile({}) }, {})).toThrow(/--base-url/);
    expect(() => resolveGlobals({ baseUrl: 'https://u:p@x', config: configFile({}) }, {})).toThrow(/user info/);
  });
});

describe('base URL', () => {
  it.each([
    ['https://api.example.com', 'https://api.example.com', false],
    ['https://api.example.com/', 'https://api.example.com', false],
    ['https://api.example.com/api/v1', 'https://api.example.com', true],
    ['https://api.example.com/api/v1/', 'https://api.example.com', true],
    ['https://api.example.com/gex/api/v1', 'https://api.example.com/gex', true],
    ['http://127.0.0.1:8787/API/V1', 'http://127.0.0.1:8787', true],
  ])('%s is used as %s (note: %s)', (given, used, noted) => {
    const settings = resolveGlobals({ baseUrl: given, config: configFile({}) }, {});
    expect(settings.baseUrl).toBe(used);
    if (noted) expect(settings.baseUrlNote).toMatch(/root that holds \/api\/v1: using .* \(given /);
    else expect(settings.baseUrlNote).toBeUndefined();
  });

  it('is normalised from the env and the config file too', () => {
    expect(resolveGlobals({ config: configFile({}) }, { GEX_BASE_URL: 'https://e.example/api/v1' }).baseUrl).toBe('https://e.example');
    expect(resolveGlobals({ config: configFile({ baseUrl: 'https://c.example/api/v1/' }) }, {}).baseUrl).toBe('https://c.example');
  });

  it('refuses a query or fragment, which no API root has', () => {
    expect(() => resolveGlobals({ baseUrl: 'https://x.example/?key=1', config: configFile({}) }, {})).toThrow(/query or fragment/);
  });
});

describe('API key', () => {
  const settings = (apiKeyFile?: string) => ({ ...resolveGlobals({ config: configFile({}) }, {}), apiKeyFile });

  it('comes from GEX_API_KEY', () => {
    expect(readApiKey(settings(), { GEX_API_KEY: ' gex_abc \n' })).toBe('gex_abc');
  });

  it('comes from --api-key-file, trimmed', () => {
    const file = join(dir, 'key');
    writeFileSync(file, 'gex_fromfile\n');
    expect(readApiKey(settings(file), {})).toBe('gex_fromfile');
  });

  it('no key is an auth error telling where to put it', () => {
    expect(() => readApiKey(settings(), {})).toThrow(AuthError);
    expect(() => readApiKey(settings(), {})).toThrow(/GEX_API_KEY or pass --api-key-file/);
  });

  it('an unreadable key file is a usage error naming the option', () => {
    expect(() => readApiKey(settings(join(dir, 'missing')), {})).toThrow(/--api-key-file: cannot read/);
  });
});
