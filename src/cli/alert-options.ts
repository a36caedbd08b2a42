// The alert options of sync, capture and `gexwh alerts`, declared as entries of the option table
// (options.ts spreads them in): where the events go, how long delivering them may take, which rules.
import { InvalidArgumentError } from 'commander';
import { z } from 'zod';
import type { OptionSpec } from './option-spec.js';
import { ALERT_RULES } from '../alerts/rules.js';
import { listOption, positiveSecondsOption } from './parse.js';

/** The longest a run may wait for its alerts (seconds), and its default. */
export const ALERT_TIMEOUT_LIMIT = 600;
export const ALERT_TIMEOUT_SECONDS = 10;

/** What is wrong with an alert URL, or undefined: http(s) only, a host, no user info (it would be printed). */
export function alertUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `"${value}" is not a URL; give http(s)://host[:port]/path`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `an alert URL is http or https, not ${url.protocol.replace(/:$/, '')}`;
  if (url.username !== '' || url.password !== '') return 'an alert URL carries no user name or password (put a token in its path or query instead)';
  return undefined;
}

function alertUrlOption(value: string): string {
  const problem = alertUrlProblem(value);
  if (problem !== undefined) throw new InvalidArgumentError(problem);
  return value;
}

const RUN_COMMANDS = ['sync', 'capture'] as const;

export const ALERT_OPTIONS: readonly OptionSpec[] = [
  {
    flags: '--alert-url <url>',
    description: "POST each alert event of this run's new captures as JSON to this http(s) URL (retried; never the API key)",
    default: 'none',
    config: z.string().superRefine((value, ctx) => {
      const problem = alertUrlProblem(value);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
    }),
    parse: alertUrlOption,
    commands: RUN_COMMANDS,
  },
  {
    flags: '--alert-cmd <command>',
    description: "run this shell command once with the run's alert events on stdin, one JSON object a line (not run when none fired)",
    default: 'none',
    config: z.string().min(1),
    commands: RUN_COMMANDS,
  },
  {
    flags: '--alert-timeout <seconds>',
    description: 'the longest the run waits for its alerts to be delivered, retries included; what is not delivered by then is reported',
    default: String(ALERT_TIMEOUT_SECONDS),
    config: z.number().positive().max(ALERT_TIMEOUT_LIMIT),
    parse: positiveSecondsOption(ALERT_TIMEOUT_LIMIT),
    commands: RUN_COMMANDS,
  },
  {
    flags: '--alert-rules <list>',
    description: `the rules: ${ALERT_RULES.join(', ')} or all (repeatable, comma list)`,
    default: 'all',
    config: z.union([z.string(), z.array(z.string())]).transform((v) => (Array.isArray(v) ? v : [v])),
    parse: listOption,
    commands: [...RUN_COMMANDS, 'alerts'],
  },
];
