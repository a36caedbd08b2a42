import type { Command } from 'commander';
import { registerEmulate } from './emulate.js';

export function registerCommands(program: Command): void {
  registerEmulate(program);
}
