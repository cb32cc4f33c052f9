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
