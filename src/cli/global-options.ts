// The options every command takes (the warehouse, the archive, the API and how to talk), entries of
// the one option table (options.ts).
import { z } from 'zod';
import type { OptionSpec } from './option-spec.js';
import { positiveSecondsOption } from './parse.js';

/** How long one API call may take in all by default (seconds), and the most a user may allow (an hour). */
export const API_TIMEOUT_SECONDS = 60;
export const API_TIMEOUT_LIMIT = 3600;

export const GLOBAL: readonly OptionSpec[] = [
  { flags: '--db <path>', description: 'DuckDB warehouse file', default: 'data/gex.duckdb', env: 'GEXWH_DB', config: z.string().min(1), commands: 'global' },
  { flags: '--archive <dir>', description: 'raw archive folder', default: 'data/raw', env: 'GEXWH_ARCHIVE', config: z.string().min(1), commands: 'global' },
  {
    flags: '--base-url <url>',
    description: 'API root that holds /api/v1',
    default: '(none)',
    env: 'GEX_BASE_URL',
    config: z.string().min(1),
    commands: 'global',
  },
  {
    flags: '--api-timeout <seconds>',
    description: 'longest wait for one API call, its retries included; each retry waits less than the one before',
    default: String(API_TIMEOUT_SECONDS),
    env: 'GEXWH_API_TIMEOUT',
    config: z.number().positive().max(API_TIMEOUT_LIMIT),
    parse: positiveSecondsOption(API_TIMEOUT_LIMIT),
    commands: 'global',
  },
  // No `env`: GEX_API_KEY holds the key itself, not a path, so the help says so in words.
  { flags: '--api-key-file <path>', description: 'file holding the API key (else the key itself from env GEX_API_KEY)', default: '(none)', commands: 'global' },
  {
    flags: '--config <path>',
    description: 'config file; its relative paths resolve in its folder',
    default: 'gexwh.config.json in the working folder or the nearest parent',
    commands: 'global',
  },
  { flags: '--json', description: 'machine-readable result on stdout (errors too), logs on stderr', commands: 'global' },
  { flags: '--quiet', description: 'no progress or info lines', commands: 'global' },
  { flags: '--verbose', description: 'more detail, stacks of unexpected errors', commands: 'global' },
];
