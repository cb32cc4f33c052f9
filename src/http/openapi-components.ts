/**
 * Named component schemas for the OpenAPI document, without touching a route schema: the routes keep
 * validating and serializing with their TypeBox schemas as they are, and the document replaces every
 * copy of a named schema in a response with a `$ref` to `#/components/schemas/<Name>`.
 *
 * The names are the export names of the records (src/shapes) and the HTTP envelopes (http/schemas):
 * a new exported record or envelope becomes a component as soon as a response uses it.
 */
import * as shapes from '../shapes/resources.ts';
import * as accounts from './schemas/accounts.ts';
import * as common from './schemas/common.ts';
import * as ingest from './schemas/ingest.ts';
import * as envelopes from './schemas/resources.ts';
import * as webhooks from './schemas/webhooks.ts';

type Json = Record<string, unknown>;

export const SCHEMA_REF = '#/components/schemas/';

/** Export names that would read badly as type names in a generated client. */
const RENAMED: Record<string, string> = { ErrorEnvelope: 'Error' };

const isJson = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Exported values that are schemas of a record, a list or a closed set (not parameters, not helpers). */
const isNamedSchema = (value: unknown): value is Json =>
  isJson(value) && (value.type === 'object' || value.type === 'array' || Array.isArray(value.enum));

/** Every candidate component, by name, for `components.schemas` (converted there by @fastify/swagger). */
export function candidateSchemas(): Record<string, Json> {
  const found: Record<string, Json> = {};
  for (const module of [shapes, envelopes, common, accounts, webhooks, ingest]) {
    for (const [name, value] of Object.entries(module)) {
      if (isNamedSchema(value)) found[RENAMED[name] ?? name] = value;
    }
  }
  return found;
}

/** Keys sorted at every level, so equal schemas print equal. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (!isJson(value)) return JSON.stringify(value) ?? 'null';
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
}

/** What makes two schemas the same type: everything but the annotations at their root. */
function fingerprint(schema: Json): string {
  const { description: _d, example: _e, examples: _es, title: _t, ...rest } = schema;
  return canonical(rest);
}

export class ComponentIndex {
  readonly #byPrint = new Map<string, string>();
  constructor(readonly schemas: Record<string, Json>) {
    // Components from the records module come first, so an envelope equal to a record is named by the record.
    for (const [name, schema] of Object.entries(schemas)) {
      const print = fingerprint(schema);
      if (!this.#byPrint.has(print)) this.#byPrint.set(print, name);
    }
  }

  /**
   * `schema` with every named schema inside it (itself included unless `keepRoot`) replaced by a
   * `$ref`, largest first. A description that differs from the component's stays beside the `$ref`.
   */
  hoist(schema: unknown, keepRoot = false): unknown {
    if (Array.isArray(schema)) return schema.map((item) => this.hoist(item));
    if (!isJson(schema)) return schema;
    const name = keepRoot ? undefined : this.#byPrint.get(fingerprint(schema));
    if (name !== undefined) {
      const own = schema.description;
      const differs = typeof own === 'string' && own !== this.schemas[name]?.description;
      return differs ? { $ref: SCHEMA_REF + name, description: own } : { $ref: SCHEMA_REF + name };
    }
    const out: Json = {};
    for (const [key, value] of Object.entries(schema)) {
      // Examples are data, not schemas.
      out[key] = key === 'example' || key === 'examples' || key === 'enum' ? value : this.hoist(value);
    }
    return out;
  }
}

/** Every `$ref` to a schema component anywhere in `value`. */
export function referencedSchemas(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) {
    for (const item of value) referencedSchemas(item, into);
  } else if (isJson(value)) {
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string' && inner.startsWith(SCHEMA_REF)) {
        into.add(inner.slice(SCHEMA_REF.length));
      } else referencedSchemas(inner, into);
    }
  }
  return into;
}

/** The components reachable from `roots` (the paths and webhooks), following references between components. */
export function reachable(roots: unknown, schemas: Record<string, unknown>): Set<string> {
  const seen = new Set<string>();
  const queue = [...referencedSchemas(roots)];
  while (queue.length > 0) {
    const name = queue.pop() as string;
    if (seen.has(name)) continue;
    seen.add(name);
    queue.push(...referencedSchemas(schemas[name]));
  }
  return seen;
}
