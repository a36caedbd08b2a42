// The option table read per command: each option as one command takes it, its help note, commander's
// option made from it, and the one "flag, else config file" rule.
import { Option, type Command } from 'commander';
import type { z } from 'zod';
import { OPTIONS, type CommandOption, type OptionSpec } from './options.js';

/** `--max-credits <n>` → `maxCredits`: the name commander gives the value, and the config file's key. */
export function keyOf(spec: OptionSpec): string {
  return new Option(spec.flags).attributeName();
}

/** The config file's key of an option: its camelCase name unless the table names another. */
export function configKeyOf(spec: OptionSpec): string {
  return spec.configKey ?? keyOf(spec);
}

export function longFlagOf(spec: OptionSpec): string {
  return spec.flags.split(/[ ,]+/).find((part) => part.startsWith('--'))!;
}

/** The options of the config file, by key, with their schemas. */
export function configShape(): Record<string, z.ZodOptional<z.ZodType>> {
  return Object.fromEntries(OPTIONS.filter((spec) => spec.config).map((spec) => [configKeyOf(spec), spec.config!.optional()]));
}

/** The commands of an entry; the program's own options are 'global'. */
export function commandsOf(spec: OptionSpec): readonly string[] {
  return spec.commands === 'global' ? ['global'] : spec.commands;
}

/** The entry as this command takes it, or undefined when the command does not take it. */
export function useOf(spec: OptionSpec, command: string): CommandOption | undefined {
  if (!commandsOf(spec).includes(command)) return undefined;
  const use = spec.uses?.[command] ?? {};
  const parse = use.parse ?? spec.parse;
  // A required option has no default, whatever the entry says for the commands where it may be left out.
  const fallback = use.default ?? (use.required ? undefined : spec.default);
  const configKey = readsConfig(spec, command) ? configKeyOf(spec) : undefined;
  return {
    spec,
    flags: use.flags ?? spec.flags,
    description: use.description ?? spec.description,
    required: use.required === true,
    ...(fallback !== undefined ? { default: fallback } : {}),
    ...(parse !== undefined ? { parse } : {}),
    ...(configKey !== undefined ? { configKey } : {}),
  };
}

function readsConfig(spec: OptionSpec, command: string): boolean {
  return spec.config !== undefined && (spec.configCommands ?? commandsOf(spec)).includes(command);
}

/** Every option of a command ('global': the program's own), in the table's order. */
export function optionsOf(command: string): CommandOption[] {
  return OPTIONS.flatMap((spec) => useOf(spec, command) ?? []);
}

/** The help line's note: the environment variable, the default and the config key, as they apply. */
export function noteOf(option: CommandOption): string {
  const parts = [
    ...(option.spec.env ? [`env ${option.spec.env}`] : []),
    ...(option.default !== undefined ? [`default: ${option.default}`] : []),
    ...(option.configKey !== undefined ? [`config: ${option.configKey}`] : []),
  ];
  return parts.length > 0 ? ` [${parts.join('; ')}]` : '';
}

function commanderOption(option: CommandOption): Option {
  const made = new Option(option.flags, option.description + noteOf(option));
  if (option.parse) made.argParser(option.parse);
  if (option.required) made.makeOptionMandatory();
  return made;
}

/** Adds the table's options of this command ('global': the program's own) to it. */
export function addTableOptions(command: Command, name: string): Command {
  for (const option of optionsOf(name)) command.addOption(commanderOption(option));
  return command;
}

/**
 * The flags of a command with the config file's values filled in where the flag was not given and
 * the table says this command reads that key: flag > config file, one rule for every command.
 */
export function withConfig<T extends object>(command: string, flags: T, config: object): T {
  const filled: Record<string, unknown> = { ...(flags as Record<string, unknown>) };
  const values = config as Record<string, unknown>;
  for (const option of optionsOf(command)) {
    const key = keyOf(option.spec);
    if (option.configKey !== undefined && filled[key] === undefined && values[option.configKey] !== undefined) filled[key] = values[option.configKey];
  }
  return filled as T;
}

/**
 * Where each value of `withConfig`'s result came from, by key, for messages: the flag (`--since`), or
 * the config file's key and path (`"since" in config file /p/gexwh.config.json`), so a bad value is
 * blamed on what the user must edit. Keys with no value are absent.
 */
export function originsOf(command: string, flags: object, config: object, configPath: string | undefined): Record<string, string> {
  const given = flags as Record<string, unknown>;
  const values = config as Record<string, unknown>;
  const origins: Record<string, string> = {};
  for (const option of optionsOf(command)) {
    const key = keyOf(option.spec);
    if (given[key] !== undefined) origins[key] = longFlagOf(option.spec);
    else if (option.configKey !== undefined && values[option.configKey] !== undefined) {
      origins[key] = `"${option.configKey}" in config file ${configPath ?? 'gexwh.config.json'}`;
    }
  }
  return origins;
}
