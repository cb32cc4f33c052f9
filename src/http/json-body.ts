import type { FastifyReply } from 'fastify';
import type { JsonList } from '../store/json.ts';
import type { Pagination } from './paging.ts';

/**
 * Sends JSON text the database wrote (src/store/json.ts) as the body, as it is. Fastify serializes only
 * payloads that are not strings, so the route's response schema documents the body (OpenAPI) and never
 * re-serializes it; the content type is the one Fastify gives the JSON it serializes.
 */
export async function sendJson(reply: FastifyReply, json: string): Promise<void> {
  await reply.type('application/json; charset=utf-8').send(json);
}

/** A list endpoint's body (schema `…List`): its items as written, and the page they are. */
export const pageJson = (list: JsonList, pagination: Pagination): string =>
  `{"data":${list.json},"pagination":${JSON.stringify(pagination)}}`;
