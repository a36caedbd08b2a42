import type { Command } from 'commander';
import { registerEmulate } from './emulate.js';
import { registerSync } from './sync.js';

export function registerCommands(program: Command): void {
  registerSync(program);
  registerEmulate(program);
}
