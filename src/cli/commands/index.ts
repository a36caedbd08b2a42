// Every command, in the order --help lists them: one module each, registered by one line here.
import type { Command } from 'commander';
import { registerAlerts } from './alerts.js';
import { registerApi } from './api.js';
import { registerCapture } from './capture.js';
import { registerChart } from './chart.js';
import { registerCoverage } from './coverage.js';
import { registerDemo } from './demo.js';
import { registerDoctor } from './doctor.js';
import { registerEmulate } from './emulate.js';
import { registerExport } from './export.js';
import { registerLevels } from './levels.js';
import { registerLoad } from './load.js';
import { registerMe } from './me.js';
import { registerPlan } from './plan.js';
import { registerQuery } from './query.js';
import { registerRebuild } from './rebuild.js';
import { registerReport } from './report.js';
import { registerStatus } from './status.js';
import { registerSync } from './sync.js';
import { registerVerify } from './verify.js';

const COMMANDS: readonly ((program: Command) => void)[] = [
  registerSync,
  registerPlan,
  registerStatus,
  registerMe,
  registerCoverage,
  registerApi,
  registerQuery,
  registerExport,
  registerLoad,
  registerRebuild,
  registerVerify,
  registerCapture,
  registerLevels,
  registerAlerts,
  registerChart,
  registerReport,
  registerDoctor,
  registerEmulate,
  registerDemo,
];

export function registerCommands(program: Command): void {
  for (const register of COMMANDS) register(program);
}
