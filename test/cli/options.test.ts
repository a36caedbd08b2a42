// The option table (src/cli/options.ts) against what commander registers, the config file accepts
// and the docs say.
import { readFileSync } from 'node:fs';
import type { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { configKeyOf, configShape, longFlagOf, OPTIONS } from '../../src/cli/options.js';
import { buildProgram } from '../../src/cli/program.js';
import { ConfigFileSchema } from '../../src/cli/settings.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const reference = read('docs/reference.md');
const readme = read('README.md');

/** The rows of the docs' markdown tables. */
const tableRows = reference.split('\n').filter((line) => line.startsWith('|'));

function optionsOf(command: Command): Option[] {
  return command.options as Option[];
}

describe('the option table', () => {
  const program = buildProgram();

  it('registers each entry on exactly the commands it names, with its note in --help', () => {
    for (const spec of OPTIONS) {
      const flag = longFlagOf(spec);
      const holders = spec.commands === 'global' ? [program] : spec.commands.map((name) => program.commands.find((c) => c.name() === name)!);
      for (const holder of holders) {
        const option = optionsOf(holder).find((o) => o.long === flag);
        expect(option, `${holder.name()} ${flag}`).toBeDefined();
        if (spec.default) expect(option!.description).toContain(`default: ${spec.default}`);
        if (spec.env) expect(option!.description).toContain(`env ${spec.env}`);
      }
    }
  });

  it('is what the config file accepts: its config entries, by their camelCase names', () => {
    const keys = OPTIONS.filter((spec) => spec.config).map(configKeyOf);
    expect(Object.keys(ConfigFileSchema.shape).sort()).toEqual([...keys].sort());
    expect(Object.keys(configShape())).toContain('maxCredits');
    expect(ConfigFileSchema.safeParse({ concurrency: 33 }).success).toBe(false);
    expect(ConfigFileSchema.safeParse({ symbol: 'BTC', order: 'oldest' }).success).toBe(true);
  });

  it('every entry is in a table of docs/reference.md with its default', () => {
    for (const spec of OPTIONS) {
      const flag = longFlagOf(spec);
      const rows = tableRows.filter((row) => row.includes(`\`${flag}`) || row.includes(`${flag} `));
      expect(rows.length, `${flag} in docs/reference.md`).toBeGreaterThan(0);
      if (spec.default) expect(rows.some((row) => row.includes(spec.default!)), `${flag}: default "${spec.default}" in its row`).toBe(true);
    }
  });

  it('the config file section lists every config key', () => {
    const section = reference.slice(reference.indexOf('## Config file'), reference.indexOf('## Exit codes'));
    for (const spec of OPTIONS.filter((s) => s.config)) expect(section, configKeyOf(spec)).toContain(`\`${configKeyOf(spec)}\``);
  });

  it('nothing is documented that does not exist', () => {
    const known = new Set(['--help', '--version', ...optionsOf(program).map((o) => o.long), ...program.commands.flatMap((c) => optionsOf(c).map((o) => o.long))]);
    // Named only to say it is deliberately absent: a key on the command line shows in ps and shell history.
    const absentOnPurpose = new Set(['--api-key']);
    for (const [name, text] of [['README.md', readme], ['docs/reference.md', reference]] as const) {
      const documented = new Set(text.match(/--[a-z][a-z0-9-]+/g));
      const unknown = [...documented].filter((flag) => !known.has(flag) && !absentOnPurpose.has(flag));
      expect(unknown, name).toEqual([]);
    }
  });
});
