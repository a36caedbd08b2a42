// The shape of one entry of the option table (options.ts): what commander, --help, the config
// file's schema and the docs read of an option.
import type { z } from 'zod';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Commander's own parser type: each parser returns its own value type
export type Parser = (value: string, previous: any) => any;

/** What an option is on one command when it differs from the entry. */
export interface OptionUse {
  /** Commander's flags with this command's value name (`--out <dir>`); the long flag stays the entry's. */
  flags?: string;
  description?: string;
  default?: string;
  /** Must be given (commander refuses the command without it). */
  required?: boolean;
  /** A narrower parser of the same value, where this command allows less (demo's --days). */
  parse?: Parser;
}

export interface OptionSpec {
  /** Commander's flags, e.g. `--db <path>`. */
  flags: string;
  description: string;
  /** The default in words, as --help and the docs show it; absent for a switch that is off. */
  default?: string;
  /** The environment variable read when the flag is absent. */
  env?: string;
  /** The config file may hold it under its camelCase name, validated by this schema. */
  config?: z.ZodType;
  /** The config file's key when the flag's own name would be too vague there (`--timeout` → queryTimeout). */
  configKey?: string;
  /** The commands that fall back to the config file's value; absent: every command that takes it. */
  configCommands?: readonly string[];
  /** Commander's value parser: rejects a bad value naming what is allowed. */
  parse?: Parser;
  /** The commands that take it; 'global' for the options of every command. */
  commands: 'global' | readonly string[];
  /** What differs by command. */
  uses?: Readonly<Record<string, OptionUse>>;
}

/** An entry as one command takes it. */
export interface CommandOption {
  spec: OptionSpec;
  flags: string;
  description: string;
  default?: string;
  required: boolean;
  parse?: Parser;
  /** The config file's key this command falls back to, if any. */
  configKey?: string;
}
