/**
 * One HTTP/1.1 exchange over a plain socket, the request written byte for byte as given: `inject` and
 * fetch normalise request targets (absolute form, `#`, dot segments) and headers (a second `Host`),
 * which is exactly what these tests must send.
 */
import { connect } from 'node:net';

export interface RawAnswer {
  status: number;
  /** Lower-case names; a repeated header's values joined with ", ". */
  headers: Record<string, string>;
  body: string;
}

/** Sends `head` lines (request line first; `Connection: close` is added) and `body`, reads the answer. */
export function rawExchange(port: number, head: string[], body: string | Buffer = ''): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      try {
        resolve(parseAnswer(Buffer.concat(chunks)));
      } catch (error) {
        reject(error);
      }
    });
    socket.write(`${[...head, 'Connection: close'].join('\r\n')}\r\n\r\n`);
    if (body.length) socket.write(body);
    setTimeout(() => socket.destroy(), 10_000).unref();
  });
}

/** A GET of `target` (written as is) with `headers`. */
export const rawGet = (port: number, target: string, headers: Record<string, string> = {}) =>
  rawExchange(port, [
    `GET ${target} HTTP/1.1`,
    'Host: 127.0.0.1',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ]);

function parseAnswer(data: Buffer): RawAnswer {
  const end = data.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`no complete answer: ${JSON.stringify(data.toString('latin1'))}`);
  const [statusLine = '', ...lines] = data.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const name = line.slice(0, line.indexOf(':')).toLowerCase();
    const value = line.slice(line.indexOf(':') + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  const rest = data.subarray(end + 4);
  const body = headers['transfer-encoding'] === 'chunked' ? dechunk(rest) : rest;
  return { status: Number(statusLine.split(' ')[1]), headers, body: body.toString('utf8') };
}

function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    const size = Number.parseInt(data.subarray(at, lineEnd).toString('latin1'), 16);
    if (!(size > 0)) return Buffer.concat(parts);
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}
