// Settings of a run: flag > env > config file > default. The config file is validated with
// zod; an unknown key or a bad value is a UsageError naming the field and what is allowed.
import { closeSync, constants, existsSync, fstatSync, openSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import { AuthError, errorMessage, UsageError } from '../core/errors.js';
import { isSpecialFile } from '../core/special-file.js';
import { closestNames } from '../core/known-names.js';
import { configShape } from './option-use.js';
import { checkFoundConfig, processTrust, type TrustProbe } from './config-trust.js';
import { API_TIMEOUT_LIMIT, API_TIMEOUT_SECONDS } from './options.js';
import { positiveSecondsOption } from './parse.js';

export const DEFAULT_CONFIG_PATH = 'gexwh.config.json';
export const DEFAULT_DB = 'data/gex.duckdb';
export const DEFAULT_ARCHIVE = 'data/raw';

/** The config file: the options' long names in camelCase (the option table's `config` entries); never the key itself. */
export const ConfigFileSchema = z.strictObject(configShape());

export interface ConfigFile {
  db?: string;
  archive?: string;
  baseUrl?: string;
  exchange?: string[];
  symbol?: string[];
  files?: string[];
  since?: string;
  until?: string;
  maxCredits?: number;
  reserveCredits?: number;
  maxRequests?: number;
  concurrency?: number;
  order?: 'newest' | 'oldest';
  fillLevels?: boolean;
  queryTimeout?: number;
  apiTimeout?: number;
}

/** Global options every command takes (as commander hands them over). */
export interface GlobalFlags {
  db?: string;
  archive?: string;
  baseUrl?: string;
  apiKeyFile?: string;
  apiTimeout?: number;
  config?: string;
  json?: boolean;
  quiet?: boolean;
  verbose?: boolean;
}

export interface GlobalSettings {
  db: string;
  /** Where `db` came from, for messages that say where a warehouse was looked for. */
  dbFrom: '--db' | 'GEXWH_DB' | 'config' | 'default';
  archive: string;
  /** The API root that holds /api/v1, normalised (a given trailing /api/v1 or / taken off). */
  baseUrl: string | undefined;
  /** Said once to the user when the base URL was normalised. */
  baseUrlNote?: string;
  json: boolean;
  quiet: boolean;
  verbose: boolean;
  config: ConfigFile;
  /** The config file read (absolute), or undefined when none was found. */
  configPath: string | undefined;
  /** How it was chosen: named by --config, or found in the working folder or a parent. */
  configFound?: 'named' | 'upward';
  /** Where the key comes from, for messages; never the key. */
  apiKeyFile: string | undefined;
  /** The longest wait for one API call, its retries included (seconds). */
  apiTimeoutSeconds: number;
}

/** A config file's values, with the file they came from (undefined: no file, defaults apply). */
export interface LoadedConfig {
  path: string | undefined;
  values: ConfigFile;
  /** How the file was chosen: named by --config, or found in the working folder or a parent (then checked to be the user's). */
  found?: 'named' | 'upward';
}

/**
 * The config file of the project the working folder is in: `gexwh.config.json` in `from` or its
 * nearest parent that has one, as git finds `.git`, so a sync run from a subfolder or by cron from
 * another folder works on the same warehouse.
 */
export function findConfigFile(from: string = process.cwd()): string | undefined {
  for (let folder = resolve(from); ; folder = dirname(folder)) {
    const candidate = join(folder, DEFAULT_CONFIG_PATH);
    if (existsSync(candidate)) return candidate;
    if (dirname(folder) === folder) return undefined;
  }
}

/**
 * `--config PATH`, else the nearest `gexwh.config.json`, used only when the current user owns it and
 * alone may write it (UntrustedConfigError otherwise); validated.
 */
export function loadConfig(explicit: string | undefined, cwd: string = process.cwd(), probe: TrustProbe = processTrust): LoadedConfig {
  if (explicit !== undefined) {
    if (!existsSync(explicit)) throw new UsageError(`--config: file not found: ${explicit}`);
    const path = resolve(cwd, explicit);
    return { path, values: loadConfigFile(path), found: 'named' };
  }
  const path = findConfigFile(cwd);
  if (path === undefined) return { path: undefined, values: {} };
  return { path, values: readFoundConfig(path, probe), found: 'upward' };
}

/**
 * Opened once, judged and read through that descriptor: judged by its name and read again by it,
 * whoever may write the folder could rename their own file over the user's in between, and its
 * baseUrl would have received the key. Non-blocking: a FIFO planted there must not hang the command.
 */
function readFoundConfig(path: string, probe: TrustProbe): ConfigFile {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    // Another user's file this user may not read is still named as another user's.
    checkFoundConfig(path, probe);
    throw new UsageError(`config file ${path}: cannot read it (${(error as NodeJS.ErrnoException).code ?? errorMessage(error)})`);
  }
  try {
    checkFoundConfig(path, probe, fd);
    if (!fstatSync(fd).isFile()) throw new UsageError(`config file ${path}: not a regular file`);
    return parseConfigText(readFileSync(fd, 'utf8'), path);
  } finally {
    closeSync(fd);
  }
}

export function loadConfigFile(path: string | undefined): ConfigFile {
  const explicit = path !== undefined;
  const file = path ?? DEFAULT_CONFIG_PATH;
  if (!existsSync(file)) {
    if (explicit) throw new UsageError(`--config: file not found: ${file}`);
    return {};
  }
  return parseConfigText(readFileSync(file, 'utf8'), file);
}

function parseConfigText(text: string, file: string): ConfigFile {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`config file ${file}: not valid JSON (${(error as Error).message})`);
  }
  const parsed = ConfigFileSchema.safeParse(raw);
  if (!parsed.success) throw new UsageError(`config file ${file}: ${describeIssues(parsed.error)}`);
  return parsed.data;
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const field = issue.path.join('.') || '(top level)';
      if (issue.code === 'unrecognized_keys') return issue.keys.map(unknownField).join('; ');
      return `field "${field}": ${issue.message}`;
    })
    .join('; ');
}

/** Words that name the API key: it never goes in a file others may read, nor in a config file. */
const KEY_FIELD = /^(api[-_]?key|key|gex[-_]?api[-_]?key|api[-_]?key[-_]?file|token|secret)$/i;

/** An unknown config field, with what to do instead: the key's own ways, or the closest field names. */
function unknownField(key: string): string {
  const allowed = Object.keys(ConfigFileSchema.shape);
  const close = closestNames(key, allowed);
  const advice = KEY_FIELD.test(key)
    ? ': the API key never goes in the config file; set GEX_API_KEY or pass --api-key-file PATH (a file only you can read)'
    : close.length > 0
      ? `: did you mean ${close.map((k) => `"${k}"`).join(', ')}?`
      : '';
  return `unknown field "${key}"${advice}; allowed: ${allowed.join(', ')}`;
}

export function resolveGlobals(flags: GlobalFlags, env: NodeJS.ProcessEnv = process.env, loaded: LoadedConfig = loadConfig(flags.config)): GlobalSettings {
  const config = loaded.values;
  const given = flags.baseUrl ?? env.GEX_BASE_URL ?? config.baseUrl;
  const base = given === undefined ? undefined : normaliseBaseUrl(given);
  // The config file's folder is the project's: its paths, and the default ones, resolve there, not
  // in whatever folder the command was started from. Flags and env stay relative to the working folder.
  const inProject = (path: string) => (loaded.path === undefined || isAbsolute(path) ? path : join(dirname(loaded.path), path));
  return {
    db: pathSetting(flags.db ?? env.GEXWH_DB ?? inProject(config.db ?? DEFAULT_DB), '--db'),
    dbFrom: dbSourceOf(flags, env, config),
    archive: pathSetting(flags.archive ?? env.GEXWH_ARCHIVE ?? inProject(config.archive ?? DEFAULT_ARCHIVE), '--archive'),
    baseUrl: base?.url,
    ...(base?.note === undefined ? {} : { baseUrlNote: base.note }),
    ...switchesOf(flags),
    config,
    configPath: loaded.path,
    ...(loaded.found === undefined ? {} : { configFound: loaded.found }),
    apiKeyFile: flags.apiKeyFile,
    apiTimeoutSeconds: apiTimeoutOf(flags, env, config),
  };
}

/**
 * A path no file system can hold (a NUL byte), or a device, pipe or kernel file (`/proc/self/mem`),
 * is bad input: refused before anything is spent or opened.
 */
function pathSetting(path: string, option: string): string {
  if (path.includes('\0')) throw new UsageError(`${option}: the path holds a NUL character, which no file name can; give a plain path`);
  if (isSpecialFile(path)) {
    throw new UsageError(`${option} ${path} is not a file gexwh can use (a device, pipe or kernel file); give a path in an ordinary folder`, { path });
  }
  return path;
}

/** --api-timeout > GEXWH_API_TIMEOUT > config apiTimeout > 60 s. */
function apiTimeoutOf(flags: GlobalFlags, env: NodeJS.ProcessEnv, config: ConfigFile): number {
  return flags.apiTimeout ?? envSeconds(env, 'GEXWH_API_TIMEOUT') ?? config.apiTimeout ?? API_TIMEOUT_SECONDS;
}

function envSeconds(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const value = env[name];
  if (value === undefined || value === '') return undefined;
  try {
    return positiveSecondsOption(API_TIMEOUT_LIMIT)(value);
  } catch (error) {
    throw new UsageError(`${name}: ${(error as Error).message}`);
  }
}

function dbSourceOf(flags: GlobalFlags, env: NodeJS.ProcessEnv, config: ConfigFile): GlobalSettings['dbFrom'] {
  if (flags.db !== undefined) return '--db';
  if (env.GEXWH_DB !== undefined) return 'GEXWH_DB';
  return config.db !== undefined ? 'config' : 'default';
}

function switchesOf(flags: GlobalFlags): Pick<GlobalSettings, 'json' | 'quiet' | 'verbose'> {
  return { json: flags.json ?? false, quiet: flags.quiet ?? false, verbose: flags.verbose ?? false };
}

/**
 * The API root, checked (an absolute http(s) URL without user info) and normalised: users often paste
 * the versioned root they read in the API's docs, which would make every request `/api/v1/api/v1/...`.
 */
export function normaliseBaseUrl(value: string): { url: string; note?: string } {
  const url = checkBaseUrl(value);
  const path = url.pathname.replace(/\/+$/, '');
  const root = path.replace(/\/api\/v1$/i, '');
  const normalised = `${url.origin}${root}`;
  if (url.search !== '' || url.hash !== '') {
    throw new UsageError(`--base-url: must not carry a query or fragment: "${value}"; expected the API root, e.g. https://api.example.com`);
  }
  if (root === path) return { url: normalised };
  return { url: normalised, note: `the base URL is the API root that holds /api/v1: using ${normalised} (given ${value})` };
}

function checkBaseUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--base-url: not a URL: "${value}"; expected e.g. https://api.example.com`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`--base-url: scheme ${url.protocol} not allowed; use https (or http for a local emulator)`);
  }
  if (url.username || url.password) throw new UsageError('--base-url: must not contain user info');
  return url;
}

export function requireBaseUrl(settings: GlobalSettings): string {
  if (settings.baseUrl === undefined) {
    throw new UsageError('no API base URL: set --base-url, GEX_BASE_URL or "baseUrl" in the config file (the root that holds /api/v1)');
  }
  return settings.baseUrl;
}

/**
 * A folder is refused before its mode is judged: "chmod 600 /tmp" would break the machine. A pipe
 * (--api-key-file <(pass gex)) or a device has no private mode to advise; only a regular file does.
 */
function checkKeyFile(path: string, warn: (message: string) => void): void {
  const stat = statSync(path);
  if (stat.isDirectory())
    throw new UsageError(`--api-key-file: ${path} is a folder where a key file is expected; give the path of the file that holds the API key`);
  const mode = stat.mode & 0o777;
  if (stat.isFile() && (mode & 0o077) !== 0) {
    warn(`the key file ${path} can be read by others (mode ${mode.toString(8).padStart(4, '0')}): chmod 600 ${path}`);
  }
}

/**
 * The API key, from GEX_API_KEY or --api-key-file. Never from a flag value or the config file. The
 * file wins over the env (a flag beats env), said when both are given; a key file that group or others
 * may read is used with a warning, as ssh warns about a private key.
 */
export function readApiKey(settings: GlobalSettings, env: NodeJS.ProcessEnv = process.env, warn: (message: string) => void = () => undefined): string {
  if (settings.apiKeyFile !== undefined) {
    let text: string;
    try {
      checkKeyFile(settings.apiKeyFile, warn);
      if (env.GEX_API_KEY?.trim()) warn(`using the key in --api-key-file ${settings.apiKeyFile}; GEX_API_KEY is set too and is not used`);
      text = readFileSync(settings.apiKeyFile, 'utf8');
    } catch (error) {
      if (error instanceof UsageError) throw error;
      throw new UsageError(`--api-key-file: cannot read ${settings.apiKeyFile} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    const key = text.trim();
    if (key === '') throw new AuthError(`--api-key-file: ${settings.apiKeyFile} is empty`);
    return key;
  }
  const key = env.GEX_API_KEY?.trim();
  if (!key) throw new AuthError('no API key: set GEX_API_KEY or pass --api-key-file PATH');
  return key;
}
