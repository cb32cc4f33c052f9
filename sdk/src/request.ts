/** How a method's positional arguments become a request, and an answer's body its result. */
import type { OperationInfo } from './generated.js';
import type { Answer, RequestOptions } from './transport.js';

export interface Call {
  path: unknown[];
  body: string | undefined;
  query: Record<string, unknown>;
  options: RequestOptions & { ifNoneMatch?: string };
}

/** Positional arguments: path parameters, then the body (if any), the query (if any), the options. */
export function splitArgs(info: OperationInfo, args: readonly unknown[]): Call {
  const path = args.slice(0, info.pathParams.length);
  let next = info.pathParams.length;
  const body = info.body === 'none' ? undefined : args[next++];
  const query = info.query.length > 0 ? ((args[next++] ?? {}) as Record<string, unknown>) : {};
  const options = (args[next] ?? {}) as Call['options'];
  return { path, body: body === undefined ? undefined : JSON.stringify(body), query, options };
}

/** The operation's path with its parameters filled in, and the query (absent values left out). */
export function pathAndQuery(info: OperationInfo, call: Pick<Call, 'path' | 'query'>): string {
  let index = 0;
  const path = info.path.replace(/\{[^}]+\}/g, (param) => {
    const value = call.path[index++];
    if (value === undefined || value === null || value === '') throw new TypeError(`${param} is required`);
    return encodeURIComponent(String(value));
  });
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(call.query)) {
    if (value !== undefined && value !== null) search.set(key, String(value));
  }
  const qs = search.toString();
  return `${path}${qs ? `?${qs}` : ''}`;
}

/** The result of an answer: its JSON, its text (`/metrics`, the buffered exports), or undefined (a 204, a 304). */
export function parse(info: OperationInfo, answer: Answer): unknown {
  const text = answer.text ?? '';
  if (info.response === 'text') return answer.meta.status === 304 ? undefined : text;
  if (info.response === 'none' || text === '') return undefined;
  return JSON.parse(text);
}
