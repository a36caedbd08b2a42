import type { Command } from 'commander';
import { registerCapture } from './capture.js';
import { registerChart } from './chart.js';
import { registerDemo } from './demo.js';
import { registerDoctor } from './doctor.js';
import { registerEmulate } from './emulate.js';
import { registerLocal } from './local.js';
import { registerRemote } from './remote.js';
import { registerReport } from './report.js';
import { registerStatus } from './status.js';
import { registerSync } from './sync.js';

export function registerCommands(program: Command): void {
  registerSync(program);
  registerStatus(program);
  registerRemote(program);
  registerLocal(program);
  registerCapture(program);
  registerChart(program);
  registerReport(program);
  registerDoctor(program);
  registerEmulate(program);
  registerDemo(program);
}
