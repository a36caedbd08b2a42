// The option table (src/cli/options.ts) against what commander registers, the config file accepts
// and the docs say: every command's options, each in its docs table with its default, and nothing
// documented that a command does not take.
import { readFileSync } from 'node:fs';
import type { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { OPTIONS } from '../../src/cli/options.js';
import { buildProgram } from '../../src/cli/program.js';
import { ConfigFileSchema } from '../../src/cli/settings.js';
import { runCliInProcess } from '../helpers/cli.js';
import { configKeyOf, configShape, longFlagOf, optionsOf as tableOptionsOf, useOf, withConfig } from '../../src/cli/option-use.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const reference = read('docs/reference.md');
const readme = read('README.md');

function optionsOf(command: Command): Option[] {
  return command.options as Option[];
}

/** The text of a section: from its heading to the next heading of the same level or above. */
function section(text: string, heading: string): string {
  const start = text.indexOf(`\n${heading}`);
  if (start < 0) throw new Error(`no section "${heading}"`);
  const level = heading.split(' ')[0]!;
  const rest = text.slice(start + heading.length + 1);
  const next = rest.search(new RegExp(`\\n#{1,${level.length}} `));
  return next < 0 ? rest : rest.slice(0, next);
}

interface DocRow {
  commands: readonly string[];
  flags: string[];
  text: string;
  where: string;
}

const cellsOf = (line: string) =>
  line
    .split(/(?<!\\)\|/)
    .slice(1, -1)
    .map((cell) => cell.trim());

/**
 * The option rows of the markdown tables of a section whose header has an `option` column: its
 * flags, and the commands it is for (a `command` column, else the section's, narrowed by "(sync only)").
 */
function docRows(text: string, commands: readonly string[], where: string): DocRow[] {
  const rows: DocRow[] = [];
  const tables = text
    .split(/\n(?!\|)/)
    .map((chunk) => chunk.split('\n').filter((line) => line.startsWith('|')))
    .filter((lines) => lines.length > 2);
  for (const [header, , ...body] of tables) {
    const names = cellsOf(header!);
    const optionAt = names.indexOf('option');
    const commandAt = names.indexOf('command');
    if (optionAt < 0) continue;
    for (const line of body) {
      const cells = cellsOf(line);
      const cell = cells[optionAt]!;
      const only = /\((\w+) only\)/.exec(cell)?.[1];
      const named = commandAt < 0 ? commands : (cells[commandAt]!.match(/`([a-z]+)/g) ?? []).map((name) => name.slice(1));
      const flags = (cell.match(/--[a-z][a-z0-9-]+/g) ?? []).filter((flag) => flag !== '--help' && flag !== '--version');
      rows.push({ commands: only ? [only] : named, flags, text: line, where });
    }
  }
  return rows;
}

const charts = read('docs/charts.md');
const OTHERS = section(reference, "## Other commands' options");
/** Where each command's options are documented. */
const DOCUMENTED: DocRow[] = [
  ...docRows(section(reference, '## Global options and commands'), ['global'], 'docs/reference.md, Global options'),
  ...docRows(section(reference, '## `sync` and `plan` options'), ['sync', 'plan'], 'docs/reference.md, sync and plan options'),
  ...docRows(section(reference, '## Export'), ['export'], 'docs/reference.md, Export'),
  ...docRows(section(reference, '## Live captures: `gexwh capture`'), ['capture'], 'docs/reference.md, Live captures'),
  ...docRows(OTHERS, [], "docs/reference.md, Other commands' options"),
  // docs/reference.md sends chart, report and emulate to their own pages (checked below).
  ...docRows(section(charts, '## `gexwh chart <kind>`'), ['chart'], 'docs/charts.md, chart'),
  ...docRows(section(charts, '## `gexwh report --out report.html`'), ['report'], 'docs/charts.md, report'),
  ...docRows(section(read('docs/emulator.md'), '## Options'), ['emulate'], 'docs/emulator.md, Options'),
];

describe('the option table', () => {
  const program = buildProgram();
  const holders: [string, Command][] = [['global', program], ...program.commands.map((c) => [c.name(), c] as [string, Command])];

  it('is every option of every command: commander registers the table and nothing else', () => {
    for (const [name, holder] of holders) {
      const registered = optionsOf(holder)
        .map((o) => o.long)
        .filter((flag) => flag !== '--version');
      expect(registered, name).toEqual(tableOptionsOf(name).map((o) => longFlagOf(o.spec)));
    }
  });

  it('registers each entry with its note in --help, required where the table says so, never with a default typed into its words', () => {
    for (const [name, holder] of holders) {
      for (const option of tableOptionsOf(name)) {
        const registered = optionsOf(holder).find((o) => o.long === longFlagOf(option.spec))!;
        expect(registered.flags, `${name} ${registered.long}`).toBe(option.flags);
        expect(registered.mandatory, `${name} ${registered.long}`).toBe(option.required);
        expect(option.description, `${name} ${registered.long}`).not.toMatch(/default/i);
        if (option.default) expect(registered.description).toContain(`default: ${option.default}`);
        if (option.spec.env) expect(registered.description).toContain(`env ${option.spec.env}`);
        if (option.configKey) expect(registered.description).toContain(`config: ${option.configKey}`);
        else expect(registered.description).not.toContain('config: ');
        // A value option that may be left out says what it is then.
        if ((registered.required || registered.optional) && !registered.mandatory) expect(option.default, `${name} ${registered.long}`).toBeDefined();
      }
    }
  });

  it('a use of an entry keeps its long flag and names a command that takes it', () => {
    for (const spec of OPTIONS) {
      for (const [command, use] of Object.entries(spec.uses ?? {})) {
        expect(useOf(spec, command), `${longFlagOf(spec)} on ${command}`).toBeDefined();
        if (use.flags) expect(longFlagOf({ ...spec, flags: use.flags })).toBe(longFlagOf(spec));
      }
      for (const command of spec.configCommands ?? []) expect(useOf(spec, command), `${longFlagOf(spec)} read from config by ${command}`).toBeDefined();
    }
  });

  it('is what the config file accepts: its config entries, by their camelCase names', () => {
    const keys = OPTIONS.filter((spec) => spec.config).map(configKeyOf);
    expect(Object.keys(ConfigFileSchema.shape).sort()).toEqual([...keys].sort());
    expect(Object.keys(configShape())).toContain('maxCredits');
    expect(ConfigFileSchema.safeParse({ concurrency: 33 }).success).toBe(false);
    expect(ConfigFileSchema.safeParse({ symbol: 'BTC', order: 'oldest' }).success).toBe(true);
  });

  it('one config rule: a flag wins, else the config value, on the commands that read that key only', () => {
    const config = { exchange: ['deribit'], symbol: ['BTC'], since: '2026-01-01', maxRequests: 7, queryTimeout: 30 };
    expect(withConfig('sync', { symbol: ['ETH'] }, config)).toEqual({ symbol: ['ETH'], exchange: ['deribit'], since: '2026-01-01', maxRequests: 7 });
    // capture's venues are current-data venues: the history venues of the config are not theirs.
    expect(withConfig('capture', {}, config)).toEqual({ symbol: ['BTC'], maxRequests: 7 });
    expect(withConfig('export', {}, config)).toEqual({});
    expect(withConfig('query', {}, config)).toEqual({ timeout: 30 });
  });

  it('every option of every command is in its docs table, with its default', () => {
    for (const [name] of holders) {
      const rows = DOCUMENTED.filter((row) => row.commands.includes(name));
      for (const option of tableOptionsOf(name)) {
        const flag = longFlagOf(option.spec);
        const withFlag = rows.filter((row) => row.flags.includes(flag));
        expect.soft(withFlag.length, `${name} ${flag} in the docs`).toBeGreaterThan(0);
        if (option.default && withFlag.length > 0)
          expect
            .soft(
              withFlag.some((row) => row.text.includes(option.default!)),
              `${name} ${flag}: default "${option.default}" in ${withFlag[0]!.where}`,
            )
            .toBe(true);
      }
    }
  });

  it('every option a docs table gives a command is one the command takes', () => {
    const taken = new Map(holders.map(([name]) => [name, new Set(tableOptionsOf(name).map((o) => longFlagOf(o.spec)))]));
    for (const row of DOCUMENTED) {
      for (const command of row.commands) {
        expect(taken.has(command), `${row.where}: no command "${command}"`).toBe(true);
        for (const flag of row.flags) expect.soft(taken.get(command)!.has(flag), `${row.where}: ${command} ${flag}`).toBe(true);
      }
    }
  });

  it('docs/reference.md names every command in its options tables, or sends it to the page that has them', () => {
    const named = new Set(DOCUMENTED.filter((row) => row.where.startsWith('docs/reference.md')).flatMap((row) => row.commands));
    const sent = { chart: 'charts.md', report: 'charts.md', emulate: 'emulator.md' } as Record<string, string>;
    for (const command of program.commands.map((c) => c.name())) {
      if (sent[command]) expect.soft(OTHERS, command).toMatch(new RegExp(`\\| \`${command}\` \\| see \\[${sent[command]}\\]`));
      else expect.soft(named.has(command), `${command} in docs/reference.md`).toBe(true);
    }
  });

  it('the config file section lists every config key', () => {
    const config = section(reference, '## Config file');
    for (const spec of OPTIONS.filter((s) => s.config)) expect(config, configKeyOf(spec)).toContain(`\`${configKeyOf(spec)}\``);
  });

  it('nothing is documented that does not exist', () => {
    const known = new Set([
      '--help',
      '--version',
      ...optionsOf(program).map((o) => o.long),
      ...program.commands.flatMap((c) => optionsOf(c).map((o) => o.long)),
    ]);
    // Named only to say it is deliberately absent: a key on the command line shows in ps and shell history.
    // npm's own flag (`npx --no-install gexwh`), not one of gexwh's.
    const absentOnPurpose = new Set(['--api-key', '--no-install']);
    for (const [name, text] of [
      ['README.md', readme],
      ['docs/reference.md', reference],
    ] as const) {
      const documented = new Set(text.match(/--[a-z][a-z0-9-]+/g));
      const unknown = [...documented].filter((flag) => !known.has(flag) && !absentOnPurpose.has(flag));
      expect(unknown, name).toEqual([]);
    }
  });

  it('a chart draws one pair: two venues through the shared list parser are exit 2, named', async () => {
    const result = await runCliInProcess([
      'chart',
      'profile',
      '--exchange',
      'deribit,okx',
      '--symbol',
      'BTC',
      '--out',
      'never.svg',
      '--db',
      'no-such-dir/none.duckdb',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--exchange: a chart draws one pair; give one venue, got "deribit, okx"');
  });
});

describe('--tz names what is wrong in sentences', () => {
  it('a zone with no close name ends its sentence before saying what is allowed', async () => {
    const run = await runCliInProcess(['levels', '--tz', 'EST5']);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain('"EST5" is not a time zone. Give UTC or an IANA name, e.g. America/New_York;');
    const near = await runCliInProcess(['levels', '--tz', 'Europe/Berln']);
    expect(near.stderr).toMatch(/"Europe\/Berln" is not a time zone; did you mean Europe\/Berlin[^?]*\? Give UTC/);
  });
});
