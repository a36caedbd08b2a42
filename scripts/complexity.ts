// Cyclomatic complexity of every function in src/ and emulator/: 1 + one per decision the function makes
// itself (if, ?:, case, for/while/do, catch, &&, ||, ??). A nested function is counted on its
// own, never into the function that holds it. Run: npm run complexity [-- --max 12] [-- --all];
// `npm run lint:complexity` (in CI's lint lane) fails when a function is above 12.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export interface FunctionComplexity {
  /** Path relative to the folder scanned, with '/' separators. */
  file: string;
  /** Class.method, the variable or property an arrow is bound to, or `<anonymous>`. */
  name: string;
  line: number;
  complexity: number;
}

const DECISION_OPERATORS = new Set<ts.SyntaxKind>([
  ts.SyntaxKind.AmpersandAmpersandToken,
  ts.SyntaxKind.BarBarToken,
  ts.SyntaxKind.QuestionQuestionToken,
  ts.SyntaxKind.AmpersandAmpersandEqualsToken,
  ts.SyntaxKind.BarBarEqualsToken,
  ts.SyntaxKind.QuestionQuestionEqualsToken,
]);

function isDecision(node: ts.Node): boolean {
  switch (node.kind) {
    case ts.SyntaxKind.IfStatement:
    case ts.SyntaxKind.ConditionalExpression:
    case ts.SyntaxKind.CaseClause:
    case ts.SyntaxKind.ForStatement:
    case ts.SyntaxKind.ForInStatement:
    case ts.SyntaxKind.ForOfStatement:
    case ts.SyntaxKind.WhileStatement:
    case ts.SyntaxKind.DoStatement:
    case ts.SyntaxKind.CatchClause:
      return true;
    case ts.SyntaxKind.BinaryExpression:
      return DECISION_OPERATORS.has((node as ts.BinaryExpression).operatorToken.kind);
    default:
      return false;
  }
}

type FunctionNode = ts.FunctionLikeDeclaration;

function isFunction(node: ts.Node): node is FunctionNode {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  );
}

function propertyName(name: ts.PropertyName | ts.BindingName, source: ts.SourceFile): string {
  return ts.isIdentifier(name) || ts.isPrivateIdentifier(name) ? name.text : name.getText(source);
}

function functionName(node: FunctionNode, source: ts.SourceFile): string {
  const owner = ts.isClassLike(node.parent) && node.parent.name ? `${node.parent.name.text}.` : '';
  if (ts.isConstructorDeclaration(node)) return `${owner}constructor`;
  if (node.name) return owner + propertyName(node.name, source);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) {
    return propertyName(parent.name, source);
  }
  return '<anonymous>';
}

/** Complexity of one function body: its own decisions, not those of functions nested in it. */
function complexityOf(fn: FunctionNode): number {
  let decisions = 0;
  const visit = (node: ts.Node): void => {
    if (isFunction(node)) return;
    if (isDecision(node)) decisions += 1;
    ts.forEachChild(node, visit);
  };
  ts.forEachChild(fn, visit);
  return 1 + decisions;
}

/** Every function of one source text, in the order they appear. */
export function measureSource(file: string, text: string): FunctionComplexity[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: FunctionComplexity[] = [];
  const visit = (node: ts.Node): void => {
    if (isFunction(node) && node.body) {
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      found.push({ file, name: functionName(node, source), line, complexity: complexityOf(node) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function typeScriptFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return typeScriptFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every function under `root` (recursively), most complex first. */
export function measureTree(root: string): FunctionComplexity[] {
  return typeScriptFiles(root)
    .flatMap((path) => measureSource(relative(root, path).split('\\').join('/'), readFileSync(path, 'utf8')))
    .sort((a, b) => b.complexity - a.complexity || a.file.localeCompare(b.file) || a.line - b.line);
}

export const MAX_COMPLEXITY = 12;

export function describe(fn: FunctionComplexity): string {
  return `${String(fn.complexity).padStart(3)}  ${fn.file}:${fn.line}  ${fn.name}`;
}

/** The trees `npm run lint:complexity` bounds: the product and the emulator. */
export const CHECKED_TREES = ['src', 'emulator'] as const;

/**
 * Every function of the folders `trees` under `root` (files named from `root`), and those above
 * `max`. A folder with no function is an error: a wrong path must not pass as a clean tree.
 */
export function checkTrees(root: string, trees: readonly string[], max: number): { measured: FunctionComplexity[]; over: FunctionComplexity[] } {
  const measured = trees.flatMap((tree) => {
    const functions = measureTree(join(root, tree));
    if (functions.length === 0) throw new Error(`no function measured in ${join(root, tree)}`);
    return functions.map((fn) => ({ ...fn, file: `${tree}/${fn.file}` }));
  });
  return { measured, over: measured.filter((fn) => fn.complexity > max) };
}

function main(argv: string[]): number {
  const maxAt = argv.indexOf('--max');
  const max = maxAt >= 0 ? Number(argv[maxAt + 1]) : MAX_COMPLEXITY;
  const all = argv.includes('--all');
  const { measured, over } = checkTrees(fileURLToPath(new URL('../..', import.meta.url)), CHECKED_TREES, max);
  for (const fn of all ? measured : over) console.log(describe(fn));
  console.log(`${over.length} of ${measured.length} functions in ${CHECKED_TREES.map((tree) => `${tree}/`).join(' and ')} above CC ${max}`);
  return over.length > 0 ? 1 : 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = main(process.argv.slice(2));
}
