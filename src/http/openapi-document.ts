/**
 * The last pass over the generated OpenAPI document (@fastify/swagger's `transformObject`): named
 * schemas become `$ref`s to components, response headers refer to `components.headers`, every
 * operation gets its examples, and the webhook events are described.
 */
import { ComponentIndex, reachable } from './openapi-components.ts';
import { HEADERS, OPTIONAL } from './openapi-headers.ts';
import { webhookOperations } from './openapi-webhooks.ts';
import { ByMediaType, errorExample, operationExamples } from './schemas/examples.ts';

type Json = Record<string, unknown>;

interface Media {
  schema?: unknown;
  example?: unknown;
}

interface Response {
  description?: string;
  headers?: Record<string, unknown>;
  content?: Record<string, Media>;
}

interface Operation {
  operationId?: string;
  requestBody?: { required?: boolean; content?: Record<string, Media> };
  /** Set on a route schema whose body may be left out (it then means `{}`); not kept in the document. */
  'x-optional-body'?: boolean;
  responses?: Record<string, Response>;
}

export interface Document {
  paths?: Record<string, Record<string, Operation>>;
  webhooks?: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Json>; headers?: Record<string, unknown> } & Json;
}

const HEADER_REF = '#/components/headers/';

/** Set by the rate limiter: a 5xx may be answered before it has decided (when it cannot). */
const LIMIT_HEADERS = new Set(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']);

interface DeclaredHeader {
  description?: string;
  schema?: Record<string, unknown>;
}

/**
 * A header the response always carries refers to its component; one it carries only sometimes (marked
 * OPTIONAL, or a rate-limit header on a 5xx) is written out with `required: false`, as is a header
 * the route describes its own way.
 */
function headersOf(status: string, headers: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, header] of Object.entries(headers)) {
    const { description, schema = {} } = header as DeclaredHeader;
    const { [OPTIONAL]: optional, ...rest } = schema;
    const known = HEADERS[name as keyof typeof HEADERS];
    const sometimes = optional === true || (status.startsWith('5') && LIMIT_HEADERS.has(name));
    if (known && description === undefined && !sometimes) out[name] = { $ref: HEADER_REF + name };
    else {
      out[name] = {
        description: description ?? known?.description,
        required: !sometimes,
        schema: known && description === undefined ? known.schema : rest,
      };
    }
  }
  return out;
}

function finishResponse(
  index: ComponentIndex,
  path: string,
  status: string,
  response: Response,
  given: unknown,
) {
  if (response.headers) response.headers = headersOf(status, response.headers);
  for (const [type, media] of Object.entries(response.content ?? {})) {
    const schema = index.hoist(media.schema) as Json;
    if (schema && schema.description === response.description) delete schema.description;
    media.schema = schema;
    const own = given instanceof ByMediaType ? given.examples[type] : given;
    const example = own !== undefined ? own : errorExample(Number(status), path);
    if (example !== undefined) media.example = example;
  }
}

function finishOperation(index: ComponentIndex, path: string, op: Operation): void {
  const examples = operationExamples(op.operationId ?? '');
  if (op['x-optional-body'] && op.requestBody) op.requestBody.required = false;
  delete op['x-optional-body'];
  for (const media of Object.values(op.requestBody?.content ?? {})) {
    if (examples?.request !== undefined) media.example = examples.request;
  }
  for (const [status, response] of Object.entries(op.responses ?? {})) {
    finishResponse(index, path, status, response, examples?.responses?.[status]);
  }
}

/** Components in name order, only those the paths and webhooks reach. */
function keepReachable(doc: Document, schemas: Record<string, Json>): Record<string, Json> {
  const used = reachable({ paths: doc.paths, webhooks: doc.webhooks }, schemas);
  return Object.fromEntries(
    Object.keys(schemas)
      .filter((name) => used.has(name))
      .sort()
      .map((name) => [name, schemas[name] as Json]),
  );
}

export function finishDocument(doc: Document): Document {
  const schemas = doc.components?.schemas ?? {};
  const index = new ComponentIndex(schemas);
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const op of Object.values(item)) finishOperation(index, path, op);
  }
  const components: Record<string, Json> = {};
  for (const [name, schema] of Object.entries(schemas)) {
    components[name] = index.hoist(schema, true) as Json;
  }
  doc.webhooks = webhookOperations();
  doc.components = {
    ...doc.components,
    schemas: keepReachable(doc, components),
    headers: HEADERS,
  };
  return doc;
}
