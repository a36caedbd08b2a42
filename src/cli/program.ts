// The command tree. Global options are declared once here; each command lives in its own module.
import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { registerCommands } from './commands/index.js';
import { completeHelp } from './help.js';

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

export function buildProgram(): Command {
  const program = new Command('gexwh')
    .description('Keeps a local DuckDB warehouse of options Gamma Exposure (GEX) history in sync with the GEX Data API')
    .version(safeVersion(), '-V, --version')
    .addOption(new Option('--db <path>', 'DuckDB warehouse file (env GEXWH_DB; config db; default data/gex.duckdb)'))
    .addOption(new Option('--archive <dir>', 'raw archive folder (env GEXWH_ARCHIVE; config archive; default data/raw)'))
    .addOption(new Option('--base-url <url>', 'API root that holds /api/v1 (env GEX_BASE_URL; config baseUrl; no default)'))
    .addOption(new Option('--api-key-file <path>', 'file holding the API key (default: env GEX_API_KEY)'))
    .addOption(new Option('--config <path>', 'config file (default gexwh.config.json if present)'))
    .addOption(new Option('--json', 'machine-readable result on stdout (errors too), logs on stderr'))
    .addOption(new Option('--quiet', 'no progress or info lines'))
    .addOption(new Option('--verbose', 'more detail, stacks of unexpected errors'))
    .configureHelp({ showGlobalOptions: true })
    .addHelpText('after', '\nPrecedence: flag > env > config file > default. Run gexwh <command> --help for its options.\n')
    .showHelpAfterError('(run gexwh --help for usage)')
    .exitOverride();
  registerCommands(program);
  completeHelp(program);
  for (const command of program.commands) command.exitOverride().showHelpAfterError(`(run gexwh ${command.name()} --help for usage)`);
  return program;
}

function safeVersion(): string {
  try {
    return packageVersion();
  } catch {
    return '0.0.0';
  }
}
