// A config file found by walking up from the working folder is somebody's: its baseUrl decides
// where the API key is sent, its db and archive where files are written. As git refuses a repository
// another user owns, such a file is used only when the current user owns it (the link too, when it is
// one) and neither its group nor others may write it. A file named with --config is the user's choice.
import { fstatSync, lstatSync, statSync } from 'node:fs';
import { UntrustedConfigError } from '../core/errors.js';

/** What the check needs of a file: its owner and permission bits. */
export interface OwnerAndMode {
  uid: number;
  mode: number;
}

/** Where the check learns who runs the command and who owns a file; tests give their own. */
export interface TrustProbe {
  /** The current user's uid; undefined where the platform has none (Windows): nothing is checked. */
  uid(): number | undefined;
  /** The file itself when it is a link (who planted it), and what it leads to: the file open at `fd` when given. */
  stat(path: string, fd?: number): { link: OwnerAndMode; file: OwnerAndMode };
}

export const processTrust: TrustProbe = {
  uid: () => process.getuid?.(),
  stat: (path, fd) => ({ link: lstatSync(path), file: fd === undefined ? statSync(path) : fstatSync(fd) }),
};

/** Why a found config file is not trusted (pure), or undefined when the user owns it and only they may write it. */
export function distrustOf(path: string, uid: number, stats: { link: OwnerAndMode; file: OwnerAndMode }): { why: string; fix: string } | undefined {
  for (const [what, entry] of [
    ['it', stats.file],
    ['the link to it', stats.link],
  ] as const) {
    if (entry.uid !== uid) {
      return { why: `${what} is owned by uid ${entry.uid}, not by you (uid ${uid})`, fix: `chown ${uid} ${path} if it is yours` };
    }
  }
  const writers = [stats.file.mode & 0o020 ? 'its group' : undefined, stats.file.mode & 0o002 ? 'others' : undefined].filter((w) => w !== undefined);
  if (writers.length > 0) {
    const mode = (stats.file.mode & 0o7777).toString(8).padStart(4, '0');
    return { why: `${writers.join(' and ')} may write it (mode ${mode})`, fix: `chmod go-w ${path}` };
  }
  return undefined;
}

/**
 * Throws UntrustedConfigError (exit 2) for a found config file the current user does not alone control.
 * `fd`: the file as opened for reading, so the file judged is the file read.
 */
export function checkFoundConfig(path: string, probe: TrustProbe = processTrust, fd?: number): void {
  const uid = probe.uid();
  if (uid === undefined) return;
  const distrust = distrustOf(path, uid, probe.stat(path, fd));
  if (distrust === undefined) return;
  throw new UntrustedConfigError(
    `config file ${path} is not used: ${distrust.why}. A config found in the working folder or a parent decides where the API key is sent, ` +
      `so it must be yours and writable by you alone. Fix: ${distrust.fix}; or name it with --config ${path} to use it anyway`,
    { config: path, fix: distrust.fix },
  );
}
