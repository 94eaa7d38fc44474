// Finds what a TypeScript file imports and which DOM globals it touches, using the compiler's own parser.
import { builtinModules } from 'node:module';
import ts from 'typescript';

type ImportKind = 'import' | 'export' | 'dynamic' | 'require' | 'importType';

export interface ImportRef {
  /** The module specifier, or undefined for a dynamic import/require whose argument is not a string literal. */
  readonly specifier: string | undefined;
  readonly kind: ImportKind;
  /** True when the reference disappears at runtime (`import type`, all-type specifiers, `typeof import()`). */
  readonly typeOnly: boolean;
  readonly line: number;
}

export interface GlobalUse {
  readonly name: string;
  readonly line: number;
}

const BUILTINS = new Set(builtinModules);

/** `fs`, `fs/promises`, `node:fs`, `node:test`: anything Node provides itself. */
export function isNodeBuiltin(specifier: string): boolean {
  return specifier.startsWith('node:') || BUILTINS.has(specifier);
}

function parse(fileName: string, text: string): ts.SourceFile {
  return ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
}

function lineOf(sf: ts.SourceFile, node: ts.Node): number {
  return sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
}

function literal(node: ts.Node | undefined): string | undefined {
  return node && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) ? node.text : undefined;
}

function importIsTypeOnly(d: ts.ImportDeclaration): boolean {
  const clause = d.importClause;
  if (!clause) return false; // `import 'x'` runs the module
  if (clause.isTypeOnly) return true;
  if (clause.name) return false;
  const b = clause.namedBindings;
  return b !== undefined && ts.isNamedImports(b) && b.elements.length > 0 && b.elements.every((e) => e.isTypeOnly);
}

function exportIsTypeOnly(d: ts.ExportDeclaration): boolean {
  if (d.isTypeOnly) return true;
  const c = d.exportClause;
  return c !== undefined && ts.isNamedExports(c) && c.elements.length > 0 && c.elements.every((e) => e.isTypeOnly);
}

export function scanImports(fileName: string, text: string): ImportRef[] {
  const sf = parse(fileName, text);
  const out: ImportRef[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      out.push({ specifier: literal(node.moduleSpecifier), kind: 'import', typeOnly: importIsTypeOnly(node), line: lineOf(sf, node) });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      out.push({ specifier: literal(node.moduleSpecifier), kind: 'export', typeOnly: exportIsTypeOnly(node), line: lineOf(sf, node) });
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      out.push({ specifier: literal(node.moduleReference.expression), kind: 'require', typeOnly: node.isTypeOnly, line: lineOf(sf, node) });
    } else if (ts.isCallExpression(node)) {
      if (node.expression.kind === ts.SyntaxKind.ImportKeyword) {
        out.push({ specifier: literal(node.arguments[0]), kind: 'dynamic', typeOnly: false, line: lineOf(sf, node) });
      } else if (ts.isIdentifier(node.expression) && node.expression.text === 'require') {
        out.push({ specifier: literal(node.arguments[0]), kind: 'require', typeOnly: false, line: lineOf(sf, node) });
      }
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      out.push({ specifier: literal(node.argument.literal), kind: 'importType', typeOnly: true, line: lineOf(sf, node) });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** Names declared anywhere in the file (variables, parameters, functions, imports): a local `window` is not the DOM. */
function declaredNames(sf: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  const visit = (node: ts.Node): void => {
    const name = (node as { name?: ts.Node }).name;
    if (
      name &&
      ts.isIdentifier(name) &&
      (ts.isVariableDeclaration(node) ||
        ts.isParameter(node) ||
        ts.isFunctionDeclaration(node) ||
        ts.isClassDeclaration(node) ||
        ts.isImportSpecifier(node) ||
        ts.isImportClause(node) ||
        ts.isNamespaceImport(node) ||
        ts.isBindingElement(node))
    ) {
      names.add(name.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return names;
}

const DOM_GLOBALS: readonly string[] = ['document', 'window', 'navigator', 'localStorage', 'sessionStorage'];

/** `document.x`, `window.x` (also `globalThis.document.x`), outside comments and strings, unless the name is local. */
export function scanDomGlobals(fileName: string, text: string): GlobalUse[] {
  const sf = parse(fileName, text);
  const local = declaredNames(sf);
  const out: GlobalUse[] = [];
  const isDomName = (n: string): boolean => DOM_GLOBALS.includes(n) && !local.has(n);
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node)) {
      const target = node.expression;
      if (ts.isIdentifier(target) && isDomName(target.text)) out.push({ name: target.text, line: lineOf(sf, node) });
      if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(target) && target.text === 'globalThis' && DOM_GLOBALS.includes(node.name.text)) {
        out.push({ name: node.name.text, line: lineOf(sf, node) });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** Packages the pure engine must never reach, at runtime or by type. */
const ENGINE_FORBIDDEN_PACKAGES = ['vscode', 'openai'];

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

/**
 * Breaches of docs/ARCHITECTURE.md rule 1 in one engine file. `resolveRelative` maps a relative specifier to a path
 * relative to the repository, so imports that leave src/engine (into src/node, src/vscode...) are caught too.
 */
export function engineViolations(fileName: string, text: string, resolveRelative?: (specifier: string) => string): string[] {
  const problems: string[] = [];
  for (const ref of scanImports(fileName, text)) {
    const where = `${fileName}:${ref.line}`;
    const s = ref.specifier;
    if (s === undefined) {
      problems.push(`${where}: ${ref.kind} with a computed specifier cannot be checked`);
      continue;
    }
    if (s.startsWith('.')) {
      const resolved = resolveRelative?.(s);
      if (resolved !== undefined && !resolved.startsWith('src/engine/')) problems.push(`${where}: imports ${s}, outside src/engine`);
      continue;
    }
    if (isNodeBuiltin(s)) problems.push(`${where}: imports Node built-in ${s}`);
    else if (ENGINE_FORBIDDEN_PACKAGES.includes(packageName(s))) problems.push(`${where}: imports ${s}`);
  }
  for (const g of scanDomGlobals(fileName, text)) problems.push(`${fileName}:${g.line}: uses DOM global ${g.name}`);
  return problems;
}
