import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { type ApiError, errors } from './errors.ts';

/** Longest request target accepted (request line, path and query); longer is 414. */
export const MAX_URL_LENGTH = 8 * 1024;

/** Server-level time limits: a client must send its headers, and its whole request, within these. */
export interface Timeouts {
  /** Headers must arrive within this (408 after). */
  headersMs: number;
  /** The whole request, body included (408 after). */
  requestMs: number;
  /** How often node looks for connections past those limits. */
  checkEveryMs: number;
}

export const DEFAULT_TIMEOUTS: Timeouts = { headersMs: 10_000, requestMs: 60_000, checkEveryMs: 1_000 };

/** What node's `clientError` carries; `rawPacket` holds the bytes that could not be parsed. */
type ParserError = Error & { code?: string; rawPacket?: unknown };

/** The parser codes node reports for a request it could not read, in words. */
const PARSER_PROBLEMS: Record<string, string> = {
  HPE_INVALID_METHOD: 'invalid method',
  HPE_INVALID_URL: 'invalid request target',
  HPE_INVALID_VERSION: 'invalid HTTP version',
  HPE_INVALID_CONSTANT: 'malformed request line',
  HPE_INVALID_HEADER_TOKEN: 'invalid header',
  HPE_INVALID_CONTENT_LENGTH: 'invalid Content-Length',
  HPE_UNEXPECTED_CONTENT_LENGTH: 'Content-Length together with Transfer-Encoding',
  HPE_INVALID_TRANSFER_ENCODING: 'invalid Transfer-Encoding',
  HPE_INVALID_CHUNK_SIZE: 'invalid chunk size',
  HPE_CR_EXPECTED: 'malformed line ending',
  HPE_LF_EXPECTED: 'malformed line ending',
};

/** A request line longer than the limit, or not ended within the packet that overflowed, is a long URL. */
function urlTooLong(error: ParserError): boolean {
  const packet = error.rawPacket;
  if (!Buffer.isBuffer(packet)) return false;
  const end = packet.indexOf('\r\n');
  return end === -1 ? packet.length > MAX_URL_LENGTH : end > MAX_URL_LENGTH;
}

export function clientErrorFor(error: ParserError): ApiError {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return errors.requestTimeout();
  if (error.code === 'HPE_HEADER_OVERFLOW')
    return urlTooLong(error) ? errors.uriTooLong(MAX_URL_LENGTH) : errors.headersTooLarge();
  return errors.malformedRequest(PARSER_PROBLEMS[error.code ?? ''] ?? 'unreadable request');
}

/**
 * Requests node cannot parse never reach a route; they still leave in the envelope, with a request id
 * of their own, and the connection is closed (its framing can no longer be trusted).
 */
export function handleClientError(error: ParserError, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const apiError = clientErrorFor(error);
  const body = JSON.stringify(apiError.toEnvelope(randomUUID()));
  if (socket.writable) {
    socket.end(
      [
        `HTTP/1.1 ${apiError.status} ${STATUS_CODES[apiError.status] ?? ''}`,
        'Content-Type: application/json; charset=utf-8',
        `Content-Length: ${Buffer.byteLength(body)}`,
        'X-Content-Type-Options: nosniff',
        'Connection: close',
        '',
        body,
      ].join('\r\n'),
    );
  }
  socket.destroySoon();
}
