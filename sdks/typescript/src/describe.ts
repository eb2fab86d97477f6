// Reads typed tools out of source files without running them: for each
// `export const name = trailblaze.tool<Args>(spec?, handler)`, the tool's name (the export's),
// its description (`spec.description`, else the doc comment above the export), its input schema
// (the `Args` type as JSON Schema; no type: no arguments), its `trailblaze/*` metadata (the
// spec's flags, written literally) and where it is. `trailblaze-scripting describe <files>`
// prints this as JSON, for Trailblaze to list, validate and spawn scripted tools.
//
// Types become JSON Schema as a trail's arguments are checked: interfaces and object types
// (unknown properties refused, doc comments as descriptions, `@default` as defaults), string,
// number, boolean, literal unions (enums), arrays, records, `null`. What cannot be an argument
// (functions, symbols, bigints, unresolved types) is an error naming the file and line.

import { createRequire } from "node:module";

import type * as TS from "typescript";

// TypeScript is CommonJS: loaded with require, Node compiles its 9 MB once. Imported as an ES
// module, Node would first parse it to detect its format and again to find its named exports,
// which made describe a third slower.
const ts: typeof TS = createRequire(import.meta.url)("typescript");

export interface DescribedTool {
  name: string;
  file: string;
  line: number;
  description?: string;
  inputSchema: Record<string, unknown>;
  _meta: Record<string, unknown>;
  trailhead?: Record<string, unknown>;
}

export interface DescribeProblem {
  file: string;
  line?: number;
  name?: string;
  message: string;
}

export interface Description {
  tools: DescribedTool[];
  errors: DescribeProblem[];
}

export const SDK_PACKAGE = "@trailblaze/scripting";

/** Spec fields and the `trailblaze/*` metadata keys they become. */
const META_KEYS: Record<string, string> = {
  supportedPlatforms: "trailblaze/supportedPlatforms",
  supportedDrivers: "trailblaze/supportedDrivers",
  requiresHost: "trailblaze/requiresHost",
  requiresContext: "trailblaze/requiresContext",
  surfaceToLlm: "trailblaze/exposedToLlm",
  isRecordable: "trailblaze/isRecordable",
  isDelegating: "trailblaze/isDelegating",
  isVerification: "trailblaze/isVerification",
};
const OTHER_SPEC_KEYS = new Set(["description", "trailhead"]);
const MAX_DEPTH = 12;
/** A file's syntax errors reported: the first few say what is wrong; the rest follow from them. */
const MAX_SYNTAX_ERRORS = 5;
/** A tool's name, as the MCP specification allows it (and Trailblaze checks every MCP tool's). */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

export function describe(files: readonly string[]): Description {
  const program = ts.createProgram([...files], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    allowJs: true,
    noEmit: true,
    skipLibCheck: true,
    strict: true,
    types: [],
    lib: ["lib.es2022.d.ts"], // not the DOM: a tool file describes no page, and the DOM is most of the load time
  });
  const checker = program.getTypeChecker();
  const found: Description = { tools: [], errors: [] };
  for (const file of files) {
    const source = program.getSourceFile(file);
    if (source === undefined) {
      found.errors.push({ file, message: "cannot read the file" });
      continue;
    }
    // what would stop the file from loading is found here, at validate, not when a run serves it
    const syntax = program.getSyntacticDiagnostics(source);
    if (syntax.length > 0) {
      for (const diagnostic of syntax.slice(0, MAX_SYNTAX_ERRORS)) {
        const line = source.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1;
        found.errors.push({ file, line, message: ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n") });
      }
      continue;
    }
    new FileReader(source, checker, found).read();
  }
  return found;
}

class FileReader {
  /** Local names of the SDK's `trailblaze` namespace object, its `tool`, and `import * as` names. */
  private readonly namespaces = new Set<string>();
  private readonly tools = new Set<string>();
  private readonly modules = new Set<string>();

  constructor(
    private readonly source: TS.SourceFile,
    private readonly checker: TS.TypeChecker,
    private readonly found: Description,
  ) {}

  read(): void {
    for (const statement of this.source.statements) this.noteImport(statement);
    for (const statement of this.source.statements) {
      if (!ts.isVariableStatement(statement) || !isExported(statement)) continue;
      for (const declaration of statement.declarationList.declarations) {
        const call = declaration.initializer && unwrap(declaration.initializer);
        if (call && ts.isCallExpression(call) && this.isToolCall(call) && ts.isIdentifier(declaration.name)) {
          this.readTool(declaration.name.text, statement, call);
        }
      }
    }
  }

  private noteImport(statement: TS.Statement): void {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) return;
    if (statement.moduleSpecifier.text !== SDK_PACKAGE) return;
    const bindings = statement.importClause?.namedBindings;
    if (bindings && ts.isNamespaceImport(bindings)) this.modules.add(bindings.name.text);
    if (bindings && ts.isNamedImports(bindings)) {
      for (const element of bindings.elements) {
        const imported = (element.propertyName ?? element.name).text;
        if (imported === "trailblaze") this.namespaces.add(element.name.text);
        if (imported === "tool") this.tools.add(element.name.text);
      }
    }
  }

  /** `trailblaze.tool(…)`, `tool(…)` or `sdk.trailblaze.tool(…)` / `sdk.tool(…)` of the SDK. */
  private isToolCall(call: TS.CallExpression): boolean {
    const callee = call.expression;
    if (ts.isIdentifier(callee)) return this.tools.has(callee.text);
    if (!ts.isPropertyAccessExpression(callee) || callee.name.text !== "tool") return false;
    const owner = callee.expression;
    if (ts.isIdentifier(owner)) return this.namespaces.has(owner.text) || this.modules.has(owner.text);
    return (
      ts.isPropertyAccessExpression(owner) &&
      owner.name.text === "trailblaze" &&
      ts.isIdentifier(owner.expression) &&
      this.modules.has(owner.expression.text)
    );
  }

  private readTool(name: string, statement: TS.VariableStatement, call: TS.CallExpression): void {
    const line = this.lineOf(statement);
    const problem = (message: string, at: TS.Node = statement): void => {
      this.found.errors.push({ file: this.source.fileName, line: this.lineOf(at), name, message });
    };
    const [first, second] = call.arguments;
    if (first === undefined || ts.isStringLiteralLike(first)) return; // the imperative form registers itself
    if (!TOOL_NAME.test(name)) {
      const shown = JSON.stringify(name.length > 60 ? `${name.slice(0, 60)}…` : name);
      this.found.errors.push({
        file: this.source.fileName,
        line,
        message: `${shown} is not a tool name: 1 to 128 characters of A-Z, a-z, 0-9, '_', '.' and '-' (rename the export)`,
      });
      return;
    }
    const spec = second !== undefined && ts.isObjectLiteralExpression(first) ? first : undefined;
    if (second !== undefined && spec === undefined) {
      problem("the spec of a typed tool must be written as an object literal: trailblaze.tool<Args>({ … }, handler)", first);
      return;
    }
    const handler = spec === undefined ? first : second;
    const errors = this.found.errors.length;
    const read: SpecFields = { _meta: {} };
    if (spec !== undefined) this.readSpec(spec, read, problem);
    const inputSchema = this.inputSchema(call, handler, problem);
    if (this.found.errors.length > errors) return;
    const description = read.description ?? docComment(statement);
    this.found.tools.push({
      name,
      file: this.source.fileName,
      line,
      ...(description !== undefined ? { description } : {}),
      inputSchema,
      _meta: read._meta,
      ...(read.trailhead !== undefined ? { trailhead: read.trailhead } : {}),
    });
  }

  private readSpec(spec: TS.ObjectLiteralExpression, tool: SpecFields, problem: (m: string, at?: TS.Node) => void): void {
    for (const property of spec.properties) {
      if (!ts.isPropertyAssignment(property) || !(ts.isIdentifier(property.name) || ts.isStringLiteral(property.name))) {
        problem("write the spec's fields out (no spreads or shorthands): Trailblaze reads them from the source", property);
        continue;
      }
      const key = property.name.text;
      const value = literal(property.initializer);
      if (!(key in META_KEYS) && !OTHER_SPEC_KEYS.has(key)) continue; // TypeScript itself flags unknown fields
      if (value === NOT_LITERAL) {
        problem(`spec.${key} must be a literal value: Trailblaze reads it from the source without running it`, property);
        continue;
      }
      if (key === "description" && typeof value === "string") tool.description = value;
      else if (key === "trailhead" && typeof value === "object" && value !== null) tool.trailhead = value as Record<string, unknown>;
      else if (key === "supportedPlatforms" && Array.isArray(value)) tool._meta[META_KEYS[key]!] = value.map((p) => String(p).toUpperCase());
      else if (key in META_KEYS) tool._meta[META_KEYS[key]!] = value;
    }
  }

  private inputSchema(
    call: TS.CallExpression,
    handler: TS.Expression,
    problem: (m: string, at?: TS.Node) => void,
  ): Record<string, unknown> {
    let typeNode: TS.TypeNode | undefined = call.typeArguments?.[0];
    if (typeNode === undefined && (ts.isArrowFunction(handler) || ts.isFunctionExpression(handler))) {
      typeNode = handler.parameters[0]?.type;
    }
    if (typeNode === undefined) return { type: "object", properties: {}, additionalProperties: false };
    let troubled = false;
    const writer = new SchemaWriter(this.checker, typeNode, (message) => {
      troubled = true;
      problem(message, typeNode);
    });
    const schema = writer.write(this.checker.getTypeFromTypeNode(typeNode));
    if (!troubled && schema["type"] !== "object") {
      problem(`the arguments of a tool are an object type (an interface), not ${this.checker.typeToString(this.checker.getTypeFromTypeNode(typeNode))}`, typeNode);
    }
    return schema;
  }

  private lineOf(node: TS.Node): number {
    return this.source.getLineAndCharacterOfPosition(node.getStart(this.source)).line + 1;
  }
}

type SpecFields = Pick<DescribedTool, "description" | "_meta" | "trailhead">;

class SchemaWriter {
  private readonly seen: TS.Type[] = [];

  constructor(
    private readonly checker: TS.TypeChecker,
    private readonly at: TS.Node,
    private readonly problem: (message: string) => void,
  ) {}

  write(type: TS.Type, depth = 0): Record<string, unknown> {
    const checker = this.checker;
    const flags = type.flags;
    if (depth > MAX_DEPTH || this.seen.includes(type)) {
      this.problem(`${checker.typeToString(type)} nests too deep or refers to itself: tool arguments cannot`);
      return {};
    }
    if ((type as { intrinsicName?: string }).intrinsicName === "error") {
      this.problem(`cannot resolve the type ${this.at.getText()}: is it imported from a file next to the tool?`);
      return {};
    }
    if (flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return {};
    if (flags & ts.TypeFlags.StringLiteral) return { type: "string", const: (type as TS.StringLiteralType).value };
    if (flags & ts.TypeFlags.NumberLiteral) return { type: "number", const: (type as TS.NumberLiteralType).value };
    if (flags & ts.TypeFlags.BooleanLiteral) return { type: "boolean", const: checker.typeToString(type) === "true" };
    if (flags & ts.TypeFlags.String) return { type: "string" };
    if (flags & ts.TypeFlags.Number) return { type: "number" };
    if (flags & ts.TypeFlags.Boolean) return { type: "boolean" };
    if (flags & ts.TypeFlags.Null) return { type: "null" };
    if (type.isUnion()) return this.union(type.types, depth);
    if (flags & (ts.TypeFlags.BigInt | ts.TypeFlags.BigIntLiteral | ts.TypeFlags.ESSymbolLike | ts.TypeFlags.Void | ts.TypeFlags.Undefined | ts.TypeFlags.Never)) {
      this.problem(`${checker.typeToString(type)} cannot be a tool argument (arguments are JSON)`);
      return {};
    }
    this.seen.push(type);
    try {
      if (checker.isArrayType(type) || checker.isTupleType(type)) {
        const elements = checker.getTypeArguments(type as TS.TypeReference);
        const items = elements.length === 1 ? this.write(elements[0]!, depth + 1) : this.union(elements, depth + 1);
        return { type: "array", items };
      }
      if (type.getCallSignatures().length > 0) {
        this.problem(`${checker.typeToString(type)} is a function: tool arguments are JSON`);
        return {};
      }
      if (type.getSymbol()?.getName() === "Date") return { type: "string", format: "date-time" };
      return this.object(type, depth);
    } finally {
      this.seen.pop();
    }
  }

  private union(types: readonly TS.Type[], depth: number): Record<string, unknown> {
    const options = types.filter((t) => !(t.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void)));
    const booleans = options.filter((t) => t.flags & ts.TypeFlags.BooleanLiteral);
    const rest = booleans.length === 2 ? options.filter((t) => !booleans.includes(t)) : options;
    const schemas = [...(booleans.length === 2 ? [{ type: "boolean" }] : []), ...rest.map((t) => this.write(t, depth + 1))];
    if (schemas.length === 1) return schemas[0]!;
    const consts = schemas.map((s) => s["const"]);
    if (schemas.every((s) => "const" in s && Object.keys(s).length === 2)) {
      const kinds = new Set(schemas.map((s) => s["type"]));
      return kinds.size === 1 ? { type: [...kinds][0], enum: consts } : { enum: consts };
    }
    return { anyOf: schemas };
  }

  private object(type: TS.Type, depth: number): Record<string, unknown> {
    const checker = this.checker;
    const properties: Record<string, unknown> = {};
    const required: string[] = [];
    for (const property of checker.getPropertiesOfType(type)) {
      const propertyType = checker.getTypeOfSymbolAtLocation(property, this.at);
      const schema = this.write(propertyType, depth + 1);
      const doc = ts.displayPartsToString(property.getDocumentationComment(checker)).trim();
      if (doc) schema["description"] = doc;
      for (const tag of property.getJsDocTags(checker)) {
        if (tag.name === "default") {
          const text = ts.displayPartsToString(tag.text).trim();
          try {
            schema["default"] = JSON.parse(text);
          } catch {
            schema["default"] = text;
          }
        }
      }
      properties[property.getName()] = schema;
      if (!(property.flags & ts.SymbolFlags.Optional)) required.push(property.getName());
    }
    const schema: Record<string, unknown> = { type: "object", properties };
    if (required.length > 0) schema["required"] = required;
    const values = checker.getIndexInfoOfType(type, ts.IndexKind.String)?.type;
    schema["additionalProperties"] = values === undefined ? false : this.write(values, depth + 1);
    return schema;
  }
}

const NOT_LITERAL = Symbol("not a literal");

/** The value of a literal expression (strings, numbers, booleans, null, arrays and objects of them). */
function literal(node: TS.Expression): unknown {
  const inner = unwrap(node);
  if (ts.isStringLiteralLike(inner)) return inner.text;
  if (ts.isNumericLiteral(inner)) return Number(inner.text);
  if (inner.kind === ts.SyntaxKind.TrueKeyword) return true;
  if (inner.kind === ts.SyntaxKind.FalseKeyword) return false;
  if (inner.kind === ts.SyntaxKind.NullKeyword) return null;
  if (ts.isArrayLiteralExpression(inner)) {
    const values = inner.elements.map(literal);
    return values.includes(NOT_LITERAL) ? NOT_LITERAL : values;
  }
  if (ts.isObjectLiteralExpression(inner)) {
    const value: Record<string, unknown> = {};
    for (const property of inner.properties) {
      if (!ts.isPropertyAssignment(property) || !(ts.isIdentifier(property.name) || ts.isStringLiteral(property.name))) {
        return NOT_LITERAL;
      }
      const item = literal(property.initializer);
      if (item === NOT_LITERAL) return NOT_LITERAL;
      value[property.name.text] = item;
    }
    return value;
  }
  return NOT_LITERAL;
}

/** Without `as const`, `satisfies`, type assertions and parentheses. */
function unwrap(node: TS.Expression): TS.Expression {
  let current = node;
  while (
    ts.isAsExpression(current) ||
    ts.isSatisfiesExpression(current) ||
    ts.isParenthesizedExpression(current) ||
    ts.isTypeAssertionExpression(current)
  ) {
    current = current.expression;
  }
  return current;
}

function isExported(statement: TS.VariableStatement): boolean {
  return statement.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword) ?? false;
}

/** The doc comment (`/** … *\/`) above a statement: its text without tags, as written. */
function docComment(statement: TS.Node): string | undefined {
  const texts = ts
    .getJSDocCommentsAndTags(statement)
    .filter(ts.isJSDoc)
    .map((doc) => ts.getTextOfJSDocComment(doc.comment)?.trim())
    .filter((text): text is string => Boolean(text));
  return texts.length > 0 ? texts.join("\n\n") : undefined;
}
