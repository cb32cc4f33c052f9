/** Reading the served OpenAPI document in tests: its operations, and its schemas compiled with Ajv. */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

export type Json = Record<string, unknown>;

export interface Media {
  schema?: Json;
  example?: unknown;
}

export interface Response {
  description: string;
  headers?: Record<string, Json>;
  content?: Record<string, Media>;
}

export interface Parameter {
  in: string;
  name: string;
  required?: boolean;
  schema: Json;
  example?: unknown;
}

export interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, Response>;
  security?: Json[];
  'x-tier'?: string;
}

export interface OpenApiDoc {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  webhooks?: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Json>; headers: Record<string, Json> } & Json;
}

export interface Target {
  method: string;
  path: string;
  op: Operation;
}

export function operations(doc: OpenApiDoc): Target[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  );
}

/** Compiles the document's schemas with their `$ref`s to `#/components/…` resolved. */
export class DocValidator {
  readonly #ajv = new Ajv2020({ strict: false, allErrors: true });
  constructor(private readonly doc: OpenApiDoc) {
    addFormats.default(this.#ajv);
  }

  compile(schema: Json): ValidateFunction {
    return this.#ajv.compile({ ...schema, components: this.doc.components });
  }

  /** Problems of `value` against `schema`, as one line; '' when it is valid. */
  check(schema: Json, value: unknown): string {
    const validate = this.compile(schema);
    return validate(value) ? '' : this.#ajv.errorsText(validate.errors);
  }
}

/** OpenAPI's own annotations in a Schema Object, which a JSON Schema validator does not know. */
const OPENAPI_KEYWORDS = ['example', 'components'];

/** A header's value as its schema reads it: headers are text, some of them numbers. */
function headerValue(schema: Json, raw: string): unknown {
  return (schema.type === 'integer' || schema.type === 'number') && /^-?\d+(\.\d+)?$/.test(raw)
    ? Number(raw)
    : raw;
}

/** The body as its media type is read: JSON; NDJSON as the array of its lines' values; text as is. */
function bodyValue(type: string, body: string): unknown {
  if (type === 'application/json') return JSON.parse(body);
  if (type === 'application/x-ndjson') {
    if (body !== '' && !body.endsWith('\n')) throw new Error('an NDJSON body ends with a newline');
    return body
      .split('\n')
      .slice(0, -1)
      .map((line, i) => {
        if (line === '') throw new Error(`NDJSON line ${i + 1} is empty`);
        return JSON.parse(line);
      });
  }
  return body;
}

export interface Answer {
  statusCode: number;
  headers: Record<string, unknown>;
  body: string;
}

/**
 * A validating proxy's view of a response, against the document: its status must be declared by the
 * operation, every header declared required present and every header declared valid against its schema,
 * its content type one the response declares (or no body where none is declared), and the body valid
 * against that type's schema. Ajv in strict mode: a schema using an unknown keyword fails to compile.
 */
export class ResponseValidator {
  readonly #ajv = new Ajv2020({ strict: true, allErrors: true });
  readonly #compiled = new Map<string, ValidateFunction>();
  constructor(private readonly doc: OpenApiDoc) {
    addFormats.default(this.#ajv);
    for (const keyword of OPENAPI_KEYWORDS) this.#ajv.addKeyword({ keyword });
  }

  #problems(schema: Json, value: unknown): string {
    const key = JSON.stringify(schema);
    let validate = this.#compiled.get(key);
    if (!validate) {
      validate = this.#ajv.compile({ ...schema, components: this.doc.components });
      this.#compiled.set(key, validate);
    }
    return validate(value) ? '' : this.#ajv.errorsText(validate.errors);
  }

  #resolve(value: Json | undefined): Json | undefined {
    const ref = value?.$ref;
    if (typeof ref !== 'string') return value;
    return this.doc.components.headers[ref.split('/').pop() ?? ''];
  }

  /** Every way `res` departs from what the document says `method path` answers; [] when none. */
  violations(method: string, path: string, res: Answer): string[] {
    const op = this.doc.paths[path]?.[method.toLowerCase()];
    if (!op) return [`${method} ${path}: no such operation`];
    const at = `${op.operationId} ${res.statusCode}`;
    const response = op.responses[String(res.statusCode)];
    if (!response) return [`${at}: status not declared (${res.body.slice(0, 160)})`];
    return [...this.#headerViolations(at, response, res), ...this.#bodyViolations(at, response, res)];
  }

  #headerViolations(at: string, response: Response, res: Answer): string[] {
    const out: string[] = [];
    for (const [name, declared] of Object.entries(response.headers ?? {})) {
      const header = this.#resolve(declared);
      const raw = res.headers[name.toLowerCase()];
      if (raw === undefined) {
        if (header?.required === true) out.push(`${at}: required header ${name} missing`);
        continue;
      }
      const wrong = this.#problems(
        (header?.schema ?? {}) as Json,
        headerValue((header?.schema ?? {}) as Json, String(raw)),
      );
      if (wrong) out.push(`${at}: header ${name}: ${String(raw)}: ${wrong}`);
    }
    return out;
  }

  #bodyViolations(at: string, response: Response, res: Answer): string[] {
    const contentType = res.headers['content-type'];
    if (!response.content) {
      return res.body === '' && contentType === undefined ? [] : [`${at}: a body where none is declared`];
    }
    const type =
      String(contentType ?? '')
        .split(';')[0]
        ?.trim() ?? '';
    const media = response.content[type];
    if (!media) return [`${at}: content type "${type}" not declared (${Object.keys(response.content)})`];
    let value: unknown;
    try {
      value = bodyValue(type, res.body);
    } catch (error) {
      return [`${at} ${type}: unreadable body: ${String(error)}`];
    }
    const wrong = this.#problems(media.schema ?? {}, value);
    return wrong ? [`${at} ${type}: ${wrong}`] : [];
  }
}
