/**
 * Writes sdk/src/generated.ts from openapi.json: a declaration per component schema, per operation its
 * query, body and success-response types, the `Operations` map the client's method signatures come
 * from, the runtime `operations` table it sends requests by, and the webhook payloads.
 *
 *   npm run sdk:generate            write the file
 *   npm run sdk:generate -- --check exit 1 when the committed file differs
 *
 * test/sdk/generate.test.ts runs `generateSdkTypes` on the committed document and compares.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  deref,
  docComment,
  isObject,
  type Json,
  pascalCase,
  propertyKey,
  type SchemaObject,
  TypeWriter,
} from './sdk-schema-types.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const DOCUMENT_PATH = path.join(ROOT, 'openapi.json');
export const GENERATED_PATH = path.join(ROOT, 'sdk/src/generated.ts');

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

interface Parameter {
  name: string;
  in: string;
  required: boolean;
  node: SchemaObject;
}

interface Operation {
  id: string;
  typeName: string;
  method: string;
  path: string;
  node: SchemaObject;
  pathParams: Parameter[];
  queryParams: Parameter[];
}

/** Operation-level parameters override path-level ones of the same name and place. */
function parameters(doc: SchemaObject, pathItem: SchemaObject, op: SchemaObject): Parameter[] {
  const merged = new Map<string, Parameter>();
  for (const list of [pathItem.parameters, op.parameters]) {
    if (!Array.isArray(list)) continue;
    for (const raw of list) {
      const p = deref(doc, raw);
      if (!isObject(p) || typeof p.name !== 'string' || typeof p.in !== 'string') continue;
      merged.set(`${p.in}:${p.name}`, { name: p.name, in: p.in, required: p.required === true, node: p });
    }
  }
  return [...merged.values()];
}

function operationsOf(doc: SchemaObject): Operation[] {
  const paths = isObject(doc.paths) ? doc.paths : {};
  const ops: Operation[] = [];
  for (const [route, rawItem] of Object.entries(paths)) {
    const item = deref(doc, rawItem);
    if (!isObject(item)) continue;
    for (const method of METHODS) {
      const node = item[method];
      if (!isObject(node)) continue;
      const id = typeof node.operationId === 'string' ? node.operationId : `${method} ${route}`;
      const params = parameters(doc, item, node);
      const order = [...route.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      ops.push({
        id,
        typeName: pascalCase(id),
        method: method.toUpperCase(),
        path: route,
        node,
        pathParams: params
          .filter((p) => p.in === 'path')
          .sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name)),
        queryParams: params.filter((p) => p.in === 'query'),
      });
    }
  }
  return ops;
}

/** The JSON (or text) of an operation's first 2xx response; kind `none` when it has no body. */
function success(
  doc: SchemaObject,
  op: SchemaObject,
): { kind: 'json' | 'text' | 'none'; node: SchemaObject } {
  const responses = isObject(op.responses) ? op.responses : {};
  const code = Object.keys(responses)
    .filter((c) => /^2(\d\d|XX)$/i.test(c))
    .sort()[0];
  const response = code ? deref(doc, responses[code]) : undefined;
  if (!isObject(response)) return { kind: 'none', node: {} };
  const content = isObject(response.content) ? response.content : {};
  const json = Object.keys(content).find((type) => /^application\/(.+\+)?json/.test(type));
  if (json) return { kind: 'json', node: response };
  return { kind: Object.keys(content).length > 0 ? 'text' : 'none', node: response };
}

function jsonSchema(doc: SchemaObject, holder: Json | undefined): Json | undefined {
  const resolved = deref(doc, holder);
  if (!isObject(resolved) || !isObject(resolved.content)) return undefined;
  const type = Object.keys(resolved.content).find((t) => /^application\/(.+\+)?json/.test(t));
  const media = type ? resolved.content[type] : undefined;
  return isObject(media) ? media.schema : undefined;
}

class Generator {
  private readonly names = new Map<string, string>();
  private readonly writer: TypeWriter;
  private readonly out: string[] = [];
  private readonly taken = new Set<string>();

  constructor(private readonly doc: SchemaObject) {
    const components = isObject(doc.components) ? doc.components : {};
    const schemas = isObject(components.schemas) ? components.schemas : {};
    for (const name of Object.keys(schemas)) this.names.set(name, this.claim(pascalCase(name), name));
    this.writer = new TypeWriter(doc, this.names);
  }

  /** A type name may be declared once: a clash (component vs operation type) is an error, not a guess. */
  private claim(name: string, what: string): string {
    if (this.taken.has(name)) throw new Error(`type name ${name} (for ${what}) is already taken`);
    this.taken.add(name);
    return name;
  }

  run(): string {
    const info = isObject(this.doc.info) ? this.doc.info : {};
    this.out.push(
      '// Generated from openapi.json by scripts/generate-sdk-types.ts (`npm run sdk:generate`). Do not edit.',
      `// Document: ${String(info.title ?? '')} ${String(info.version ?? '')}`.trimEnd(),
      '',
    );
    this.components();
    const ops = operationsOf(this.doc);
    for (const op of ops) this.operationTypes(op);
    this.operationsMap(ops);
    this.operationsTable(ops);
    this.webhooks();
    return `${this.out.join('\n')}\n`;
  }

  private components(): void {
    const components = isObject(this.doc.components) ? this.doc.components : {};
    const schemas = isObject(components.schemas) ? components.schemas : {};
    for (const [name, schema] of Object.entries(schemas)) this.declare(this.names.get(name) ?? name, schema);
  }

  /** `export interface` for a plain object schema, `export type` for anything else. */
  private declare(name: string, schema: Json, comment = ''): void {
    const doc = comment || (isObject(schema) ? docComment(schema, '') : '');
    const text = this.writer.type(schema);
    const plainObject =
      isObject(schema) &&
      text.startsWith('{') &&
      text.endsWith('}') &&
      !text.includes('\n} ') &&
      schema.nullable !== true &&
      !Array.isArray(schema.type);
    this.out.push(
      `${doc}export ${plainObject ? `interface ${name} ${text}` : `type ${name} = ${text};`}`,
      '',
    );
  }

  private operationTypes(op: Operation): void {
    const title = `${op.method} ${op.path}${typeof op.node.summary === 'string' ? `: ${op.node.summary}` : ''}`;
    if (op.queryParams.length > 0) {
      const members = op.queryParams.map(
        (p) =>
          `${docComment(p.node, '  ')}  ${propertyKey(p.name)}${p.required ? '' : '?'}: ${this.writer.type(p.node.schema, 1)};`,
      );
      this.out.push(
        `/** Query of ${title} */`,
        `export interface ${this.claim(`${op.typeName}Query`, op.id)} {\n${members.join('\n')}\n}`,
        '',
      );
    }
    const body = jsonSchema(this.doc, op.node.requestBody);
    if (body !== undefined)
      this.declare(this.claim(`${op.typeName}Body`, op.id), body, `/** Body of ${title} */\n`);
    const result = success(this.doc, op.node);
    const responseName = this.claim(`${op.typeName}Response`, op.id);
    if (result.kind === 'json')
      this.declare(responseName, jsonSchema(this.doc, result.node) ?? true, `/** ${title} */\n`);
    else
      this.out.push(
        `/** ${title} */`,
        `export type ${responseName} = ${result.kind === 'text' ? 'string' : 'void'};`,
        '',
      );
  }

  /** Positional arguments: path parameters in path order, then the body, then the query. */
  private args(op: Operation): string {
    const parts: { text: string; required: boolean }[] = op.pathParams.map((p) => ({
      text: `${p.name.replace(/\W/g, '_')}: ${this.writer.type(p.node.schema)}`,
      required: true,
    }));
    const body = deref(this.doc, op.node.requestBody);
    if (isObject(body)) parts.push({ text: `body: ${op.typeName}Body`, required: body.required === true });
    if (op.queryParams.length > 0)
      parts.push({ text: `query: ${op.typeName}Query`, required: op.queryParams.some((p) => p.required) });
    // A required element may not follow an optional one: those before it take `| undefined` instead.
    let laterRequired = false;
    const written = parts.reverse().map((part) => {
      const text = part.required || !laterRequired ? part.text : `${part.text} | undefined`;
      const optional = !part.required && !laterRequired;
      laterRequired ||= part.required;
      return optional ? text.replace(':', '?:') : text;
    });
    return `[${written.reverse().join(', ')}]`;
  }

  private operationsMap(ops: Operation[]): void {
    this.out.push('/** Every operation by its operationId: what the client sends and gets back. */');
    this.out.push('export interface Operations {');
    for (const op of ops) {
      const hasBody = jsonSchema(this.doc, op.node.requestBody) !== undefined;
      this.out.push(
        `  ${propertyKey(op.id)}: {`,
        `    method: '${op.method}';`,
        `    path: ${JSON.stringify(op.path)};`,
        `    args: ${this.args(op)};`,
        `    query: ${op.queryParams.length > 0 ? `${op.typeName}Query` : 'never'};`,
        `    body: ${hasBody ? `${op.typeName}Body` : 'never'};`,
        `    response: ${op.typeName}Response;`,
        '  };',
      );
    }
    this.out.push('}', '');
  }

  /**
   * A body with `pagination` pages by it (cursor lists also send `Link`, the same next page); a bare
   * list whose answer declares `Link` follows the header.
   */
  private paging(op: Operation): string {
    const result = success(this.doc, op.node);
    const schema = deref(this.doc, jsonSchema(this.doc, result.node));
    const props = isObject(schema) && isObject(schema.properties) ? schema.properties : {};
    if ('pagination' in props && 'data' in props) return "'pagination'";
    const headers = isObject(result.node.headers) ? Object.keys(result.node.headers) : [];
    return headers.some((h) => h.toLowerCase() === 'link') ? "'link'" : 'null';
  }

  private operationsTable(ops: Operation[]): void {
    this.out.push(
      '/** How one operation is sent; `paging` says how its next page is found, if it has pages. */',
      'export interface OperationInfo {',
      '  method: string;',
      '  path: string;',
      '  pathParams: readonly string[];',
      '  query: readonly string[];',
      "  body: 'none' | 'optional' | 'required';",
      "  response: 'json' | 'text' | 'none';",
      "  paging: 'pagination' | 'link' | null;",
      '}',
      '',
      '/** How to send each operation: the client builds its requests from this table. */',
      'export const operations = {',
    );
    for (const op of ops) {
      const body = deref(this.doc, op.node.requestBody);
      const bodyKind = !isObject(body) ? 'none' : body.required === true ? 'required' : 'optional';
      this.out.push(
        `  ${propertyKey(op.id)}: {`,
        `    method: '${op.method}',`,
        `    path: ${JSON.stringify(op.path)},`,
        `    pathParams: ${JSON.stringify(op.pathParams.map((p) => p.name))},`,
        `    query: ${JSON.stringify(op.queryParams.map((p) => p.name))},`,
        `    body: '${bodyKind}',`,
        `    response: '${success(this.doc, op.node).kind}',`,
        `    paging: ${this.paging(op)},`,
        '  },',
      );
    }
    this.out.push(
      '} as const satisfies Record<string, OperationInfo>;',
      '',
      'export type OperationId = keyof typeof operations;',
      '',
    );
  }

  /** The document's top-level `webhooks`: each one's JSON request body, by its name. */
  private webhooks(): void {
    const hooks = isObject(this.doc.webhooks) ? this.doc.webhooks : {};
    const members: string[] = [];
    for (const [name, rawItem] of Object.entries(hooks)) {
      const item = deref(this.doc, rawItem);
      const post = isObject(item) ? (item.post ?? Object.values(item).find(isObject)) : undefined;
      const schema = isObject(post) ? jsonSchema(this.doc, post.requestBody) : undefined;
      if (schema === undefined) continue;
      members.push(`  ${propertyKey(name)}: ${this.writer.type(schema, 1)};`);
    }
    this.out.push(
      '/** Webhook payloads the document declares, by event name (empty when it declares none). */',
      members.length > 0
        ? `export interface WebhookPayloads {\n${members.join('\n')}\n}`
        : 'export interface WebhookPayloads {}',
    );
  }
}

/** The text of sdk/src/generated.ts for an OpenAPI document. */
export function generateSdkTypes(doc: unknown): string {
  if (!isObject(doc)) throw new Error('the OpenAPI document is not an object');
  return new Generator(doc).run();
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const text = generateSdkTypes(JSON.parse(readFileSync(DOCUMENT_PATH, 'utf8')));
  if (process.argv.includes('--check')) {
    const current = readFileSync(GENERATED_PATH, 'utf8');
    if (current !== text) {
      process.stderr.write('sdk/src/generated.ts is out of date: run `npm run sdk:generate`\n');
      process.exit(1);
    }
  } else {
    writeFileSync(GENERATED_PATH, text);
    process.stdout.write(`wrote ${path.relative(ROOT, GENERATED_PATH)} (${text.length} bytes)\n`);
  }
}
