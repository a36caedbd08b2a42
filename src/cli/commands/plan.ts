// `gexwh plan` (= sync --dry-run): what sync would download, its cost, and what the budget leaves out.
import type { Command } from 'commander';
import { contextOf } from '../context.js';
import { syncAction, type SyncFlags } from './sync.js';

export function registerPlan(program: Command): void {
  program
    .command('plan')
    .description('show what sync would download, its cost, and what the budget leaves out; spends no credit')
    .action((flags: SyncFlags, command: Command) => syncAction(contextOf(command), flags, true));
}
