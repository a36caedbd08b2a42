// The command tree: one module per command, every option (global or a command's) from the option table (options.ts).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Command } from 'commander';
import { findSqlDir } from '../warehouse/sql-dir.js';
import { registerCommands } from './commands/index.js';
import { completeHelp } from './help.js';
import { escapeBlock } from './terminal.js';
import { addTableOptions } from './option-use.js';

function packageVersion(): string {
  // The package root holds sql/ beside package.json, wherever this code runs from (src/, dist/src/, the bundle).
  const pkg = JSON.parse(readFileSync(join(dirname(findSqlDir()), 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

export function buildProgram(): Command {
  const program = addTableOptions(new Command('gexwh'), 'global')
    .description('Keeps a local DuckDB warehouse of options Gamma Exposure (GEX) history in sync with the GEX Data API')
    .version(safeVersion(), '-V, --version')
    .configureHelp({ showGlobalOptions: true })
    .addHelpText('after', '\nPrecedence: flag > env > config file > default. Run gexwh <command> --help for its options.\n')
    .showHelpAfterError('(run gexwh --help for usage)')
    // commander quotes the argv in its errors: a pasted ESC sequence must not reach the terminal.
    .configureOutput({ outputError: (text, write) => write(escapeBlock(text)) })
    .exitOverride();
  registerCommands(program);
  // Every command's options come from the option table, whatever its module registers.
  for (const command of program.commands) addTableOptions(command, command.name());
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
