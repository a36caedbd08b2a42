// Every command's --help: its options with their defaults, the global options with their env names,
// and one example that runs the installed package.
import type { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { runCli } from '../helpers/cli.js';

function helpOf(command: Command): string {
  let text = '';
  command.configureOutput({ writeOut: (s) => (text += s), writeErr: (s) => (text += s) });
  command.outputHelp();
  return text;
}

describe('--help', () => {
  const program = buildProgram();

  it('lists commands, each with help', () => {
    expect(program.commands.length).toBeGreaterThan(10);
  });

  for (const command of program.commands) {
    it(`${command.name()}: options with defaults, the global options with env names, an example`, () => {
      const help = helpOf(command);
      for (const option of command.options as Option[]) {
        expect(help).toContain(option.long ?? option.short ?? '');
        if ((option.required || option.optional) && !option.mandatory) expect(option.description, `${command.name()} ${option.flags}`).toMatch(/default/i);
      }
      expect(help).toContain('Global Options:');
      for (const name of ['--db', '--archive', '--base-url', '--api-key-file', '--config', '--json', '--quiet', '--verbose']) expect(help).toContain(name);
      for (const env of ['GEXWH_DB', 'GEXWH_ARCHIVE', 'GEX_BASE_URL', 'GEX_API_KEY']) expect(help).toContain(env);
      expect(help).toMatch(new RegExp(`Example:\\n  \\$ npx gexwh ${command.name()}\\b`));
      // Users pay per file and per request: the example says what it spends.
      expect(help).toMatch(/Example:\n {2}\$ .*\n {4}(buys|costs) /);
    });
  }

  it('the built CLI prints the same for `gexwh sync --help` and exits 0', async () => {
    const result = await runCli(['sync', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Global Options:');
    expect(result.stdout).toMatch(/config:\s+maxCredits\]/);
    expect(result.stdout).toContain(
      '$ npx gexwh sync --symbol BTC,SPY --max-credits 50\n    buys at most 50 daily files (1 credit each): BTC on combined, SPY on tradfi',
    );
  });
});
