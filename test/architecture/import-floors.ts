// The import rules of the product (src/) and the emulator beside it (emulator/), checked over the
// files themselves: each folder of src/ stands on a floor and imports only folders on lower floors;
// the emulator stands apart (it imports only the NYSE calendar; only the CLI imports it); no files
// import each other in a loop. `import type` counts like any import: a type that must come from above is a shape in the
// wrong place. TypeScript's own pre-parser reads the imports (every import, `export ... from`,
// `import type`, `import()` and `typeof import()`; not comments or strings).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/** The floors, top down: a folder may import the folders of the floors below its own. */
export const FLOORS: Readonly<Record<string, number>> = {
  cli: 7,
  sync: 6,
  capture: 6,
  export: 6,
  doctor: 6,
  charts: 6,
  desk: 6,
  alerts: 6,
  journal: 5,
  api: 4,
  warehouse: 4,
  core: 3,
  time: 2,
  calendar: 1,
};

/** Top-level folders beside the product: what each may import of src/, and who in src/ may import it. */
export const APART: Readonly<Record<string, { mayImport: readonly string[]; importedBy: readonly string[] }>> = {
  emulator: { mayImport: ['calendar'], importedBy: ['cli'] },
};

export interface Import {
  from: string;
  to: string;
}

export interface Violation {
  kind: 'up a floor' | 'across a floor' | 'into a folder apart' | 'out of a folder apart' | 'no floor' | 'cycle';
  /** The offending file (for a cycle, its first file), relative to the tree's root. */
  file: string;
  detail: string;
}

function tsFilesUnder(folder: string): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return tsFilesUnder(path);
    return entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The file a relative specifier names (`./x.js` is `./x.ts`; a folder is its index.ts), or undefined. */
function resolveSpecifier(fromFile: string, specifier: string): string | undefined {
  const base = resolve(dirname(fromFile), specifier);
  for (const candidate of [base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

/** Every import between files of `root/src` and the folders apart (paths relative to root, `/`-separated). */
export function readImports(root: string): Import[] {
  const imports: Import[] = [];
  const rel = (path: string) => relative(root, path).split(sep).join('/');
  for (const file of ['src', ...Object.keys(APART)].flatMap((top) => tsFilesUnder(join(root, top)))) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) continue; // node: and packages
      const target = resolveSpecifier(file, fileName);
      if (target !== undefined) imports.push({ from: rel(file), to: rel(target) });
    }
  }
  return imports;
}

/** `cli` for `src/cli/main.ts`, `emulator` for any file of `emulator/`; undefined for a file directly in src/ or elsewhere. */
function folderOf(path: string): string | undefined {
  const parts = path.split('/');
  if (parts[0] !== 'src') return APART[parts[0]!] !== undefined ? parts[0] : undefined;
  return parts.length > 2 ? parts[1] : undefined;
}

/** How a message names a folder: `src/cli`, or `emulator` for a folder apart. */
function placeOf(folder: string): string {
  return APART[folder] !== undefined ? folder : `src/${folder}`;
}

function judgeImport({ from, to }: Import): Violation | undefined {
  const a = folderOf(from);
  const b = folderOf(to);
  if (a === b) return undefined;
  const line = `${from} imports ${to}`;
  if (a === undefined || (FLOORS[a] === undefined && APART[a] === undefined))
    return { kind: 'no floor', file: from, detail: `${line}, but ${from} stands on no floor (give its folder one in FLOORS)` };
  if (b === undefined || (FLOORS[b] === undefined && APART[b] === undefined))
    return { kind: 'no floor', file: from, detail: `${line}, which stands on no floor (give its folder one in FLOORS)` };
  const apartFrom = APART[a];
  if (apartFrom !== undefined) {
    const allowed = apartFrom.mayImport.some((place) => b === place || to === `src/${place}`);
    return allowed
      ? undefined
      : { kind: 'out of a folder apart', file: from, detail: `${line}; ${placeOf(a)} may import only ${apartFrom.mayImport.map(placeOf).join(', ')}` };
  }
  const apartTo = APART[b];
  if (apartTo !== undefined) {
    return apartTo.importedBy.includes(a)
      ? undefined
      : { kind: 'into a folder apart', file: from, detail: `${line}; only ${apartTo.importedBy.map(placeOf).join(', ')} may import ${placeOf(b)}` };
  }
  const [floorA, floorB] = [FLOORS[a]!, FLOORS[b]!];
  if (floorA > floorB) return undefined;
  if (floorA === floorB) return { kind: 'across a floor', file: from, detail: `${line}: ${a} and ${b} share floor ${floorA} and must not lean on each other` };
  return { kind: 'up a floor', file: from, detail: `${line}: up from floor ${floorA} (${a}) to floor ${floorB} (${b})` };
}

/** Groups of files that import each other in a loop (Tarjan's strongly connected components). */
export function findCycles(imports: readonly Import[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of imports) next.set(from, [...(next.get(from) ?? []), to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const to of next.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(file, Math.min(low.get(file)!, index.get(to)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    for (let member = stack.pop()!; ; member = stack.pop()!) {
      onStack.delete(member);
      group.push(member);
      if (member === file) break;
    }
    if (group.length > 1 || (next.get(file) ?? []).includes(file)) cycles.push(group.sort());
  };
  for (const file of [...next.keys()].sort()) if (!index.has(file)) visit(file);
  return cycles;
}

/** Every import of `root/src` (and of the folders apart) that breaks the floors, and every cycle, each naming its file. */
export function checkFloors(root: string): Violation[] {
  const imports = readImports(root);
  const violations = imports.map(judgeImport).filter((v): v is Violation => v !== undefined);
  for (const group of findCycles(imports)) {
    const inLoop = new Set(group);
    const ties = imports.filter((i) => inLoop.has(i.from) && inLoop.has(i.to)).map((i) => `${i.from} -> ${i.to}`);
    violations.push({ kind: 'cycle', file: group[0]!, detail: `files import each other in a loop: ${ties.join('; ')}` });
  }
  return violations;
}
