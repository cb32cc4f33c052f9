/**
 * JSON Schema (as OpenAPI 3.1 uses it, with the 3.0 `nullable` still understood) to TypeScript type
 * text, for the SDK's generated types. `$ref`s to `#/components/schemas/X` become the name of X's
 * declaration; other `$ref`s are followed and written out inline.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type SchemaObject = { [key: string]: Json };

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const SCHEMA_REF = '#/components/schemas/';

export const isObject = (value: unknown): value is SchemaObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `signal.created` → `SignalCreated`, `get-events` → `GetEvents`, `1x` → `_1x`. */
export function pascalCase(name: string): string {
  const joined = name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]?.toUpperCase() + part.slice(1))
    .join('');
  return /^[0-9]/.test(joined) || joined === '' ? `_${joined}` : joined;
}

export const propertyKey = (name: string) => (IDENTIFIER.test(name) ? name : JSON.stringify(name));

/** A JSDoc block from a schema's or parameter's description, format and deprecation; '' when none. */
export function docComment(node: SchemaObject, indent: string): string {
  const lines: string[] = [];
  if (typeof node.description === 'string') lines.push(...node.description.trim().split('\n'));
  const schema = isObject(node.schema) ? node.schema : node;
  if (typeof schema.format === 'string') lines.push(`@format ${schema.format}`);
  if (node.deprecated === true) lines.push('@deprecated');
  if (lines.length === 0) return '';
  const safe = lines.map((line) => line.replaceAll('*/', '*\\/').trimEnd());
  if (safe.length === 1) return `${indent}/** ${safe[0]} */\n`;
  return `${indent}/**\n${safe.map((line) => `${indent} *${line ? ` ${line}` : ''}`).join('\n')}\n${indent} */\n`;
}

/** Resolves a local JSON pointer (`#/components/parameters/limit`). */
export function resolvePointer(doc: SchemaObject, ref: string): Json {
  if (!ref.startsWith('#/')) throw new Error(`only local references are supported: ${ref}`);
  let node: Json = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (!isObject(node) || !(key in node)) throw new Error(`unresolved reference ${ref}`);
    node = node[key] as Json;
  }
  return node;
}

/** Follows `$ref`s that do not name a component schema (parameters, responses, request bodies). */
export function deref(doc: SchemaObject, node: Json | undefined): Json | undefined {
  let current = node;
  for (let hops = 0; isObject(current) && typeof current.$ref === 'string'; hops++) {
    if (hops > 32) throw new Error(`reference cycle at ${current.$ref}`);
    current = resolvePointer(doc, current.$ref);
  }
  return current;
}

const parenthesize = (type: string) =>
  /^[\w$.<>[\]"' ]+$/.test(type) || type.startsWith('{') ? type : `(${type})`;

const union = (types: string[]) => {
  const unique = [...new Set(types)];
  if (unique.includes('unknown')) return 'unknown';
  return unique.length === 0 ? 'never' : unique.join(' | ');
};

/** Turns schemas into type text; `names` maps a component schema's name to its declared type name. */
export class TypeWriter {
  constructor(
    private readonly doc: SchemaObject,
    private readonly names: Map<string, string>,
  ) {}

  /** The type of `schema`, laid out for a position nested `depth` levels deep. */
  type(schema: Json | undefined, depth = 0): string {
    if (schema === undefined || schema === true) return 'unknown';
    if (schema === false) return 'never';
    if (!isObject(schema)) return 'unknown';
    const base = this.baseType(schema, depth);
    return schema.nullable === true && base !== 'unknown' ? union([parenthesize(base), 'null']) : base;
  }

  private baseType(schema: SchemaObject, depth: number): string {
    if (typeof schema.$ref === 'string') return this.reference(schema.$ref, depth);
    if ('const' in schema) return literal(schema.const as Json);
    if (Array.isArray(schema.enum)) return union(schema.enum.map(literal));
    const combined = this.combinators(schema, depth);
    const own = this.ownType(schema, depth);
    if (combined === null) return own;
    return own === 'unknown' ? combined : `${parenthesize(own)} & ${parenthesize(combined)}`;
  }

  private reference(ref: string, depth: number): string {
    if (ref.startsWith(SCHEMA_REF)) {
      const name = this.names.get(ref.slice(SCHEMA_REF.length).replaceAll('~1', '/').replaceAll('~0', '~'));
      if (!name) throw new Error(`unresolved reference ${ref}`);
      return name;
    }
    return this.type(resolvePointer(this.doc, ref), depth);
  }

  /** anyOf / oneOf as a union, allOf as an intersection; null when the schema has none. */
  private combinators(schema: SchemaObject, depth: number): string | null {
    const parts: string[] = [];
    for (const key of ['anyOf', 'oneOf'] as const) {
      const list = schema[key];
      if (Array.isArray(list)) parts.push(union(list.map((s) => parenthesize(this.type(s, depth)))));
    }
    const all = schema.allOf;
    if (Array.isArray(all)) parts.push(all.map((s) => parenthesize(this.type(s, depth))).join(' & '));
    if (parts.length === 0) return null;
    return parts.length === 1 ? (parts[0] as string) : parts.map(parenthesize).join(' & ');
  }

  /** The schema's own `type` (one or a list of them, as 3.1 writes nullable: `["string", "null"]`). */
  private ownType(schema: SchemaObject, depth: number): string {
    const declared = schema.type;
    if (Array.isArray(declared)) {
      return union(declared.map((t) => parenthesize(this.single(String(t), schema, depth))));
    }
    if (typeof declared === 'string') return this.single(declared, schema, depth);
    if (isObject(schema.properties) || 'additionalProperties' in schema) return this.object(schema, depth);
    if ('items' in schema || 'prefixItems' in schema) return this.array(schema, depth);
    return 'unknown';
  }

  private single(type: string, schema: SchemaObject, depth: number): string {
    switch (type) {
      case 'string':
        return 'string';
      case 'integer':
      case 'number':
        return 'number';
      case 'boolean':
        return 'boolean';
      case 'null':
        return 'null';
      case 'array':
        return this.array(schema, depth);
      case 'object':
        return this.object(schema, depth);
      default:
        return 'unknown';
    }
  }

  private array(schema: SchemaObject, depth: number): string {
    if (Array.isArray(schema.prefixItems)) {
      const items = schema.prefixItems.map((s) => this.type(s, depth));
      const rest =
        schema.items === false || schema.items === undefined
          ? []
          : [`...${this.type(schema.items, depth)}[]`];
      return `[${[...items, ...rest].join(', ')}]`;
    }
    const item = this.type(schema.items, depth);
    return /^[\w$.]+$/.test(item) ? `${item}[]` : `Array<${item}>`;
  }

  private object(schema: SchemaObject, depth: number): string {
    const properties = isObject(schema.properties) ? schema.properties : {};
    const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
    const extra = schema.additionalProperties;
    const names = Object.keys(properties);
    const extraType = extra === undefined || extra === false ? null : this.type(extra, depth + 1);
    if (names.length === 0)
      return extra === false ? 'Record<string, never>' : `Record<string, ${extraType ?? 'unknown'}>`;
    const inner = '  '.repeat(depth + 1);
    const members = names.map((name) => {
      const prop = properties[name] as Json;
      const doc = isObject(prop) ? docComment(prop, inner) : '';
      const optional = required.has(name) ? '' : '?';
      return `${doc}${inner}${propertyKey(name)}${optional}: ${this.type(prop, depth + 1)};`;
    });
    if (extraType !== null) {
      // An index signature must admit every named property's type as well.
      const named = names.map((name) => parenthesize(this.type(properties[name] as Json, depth + 1)));
      members.push(`${inner}[key: string]: ${union([extraType, ...named, 'undefined'])};`);
    }
    return `{\n${members.join('\n')}\n${'  '.repeat(depth)}}`;
  }
}

function literal(value: Json): string {
  return JSON.stringify(value);
}
