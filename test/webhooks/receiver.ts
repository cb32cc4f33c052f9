/** A real local HTTPS receiver for webhook tests and the benchmark, with a self-signed certificate. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface Certificate {
  dir: string;
  certFile: string;
  key: string;
  cert: string;
  cleanup(): void;
}

/** A throwaway self-signed certificate for 127.0.0.1, localhost and receiver.test (openssl). */
export function makeCertificate(): Certificate {
  const dir = mkdtempSync(path.join(tmpdir(), 'market-intel-hooks-'));
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '2',
      '-subj',
      '/CN=receiver.test',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:receiver.test',
    ],
    { stdio: 'ignore' },
  );
  return {
    dir,
    certFile,
    key: readFileSync(keyFile, 'utf8'),
    cert: readFileSync(certFile, 'utf8'),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export interface Received {
  at: number;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  servername: string | null;
  status: number;
}

/** Decides the answer to one request: a status, optionally after a delay. */
export type Responder = (
  request: Omit<Received, 'status'>,
  seen: number,
) => { status: number; delayMs?: number };

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  respond: Responder;
  /** Resolves when `count` requests matching `filter` have been answered. */
  waitFor(count: number, filter?: (r: Received) => boolean, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(certificate: Certificate, respond: Responder = () => ({ status: 200 })) {
  const received: Received[] = [];
  const seenByDelivery = new Map<string, number>();
  const waiters = new Set<() => void>();
  const held = new Set<NodeJS.Timeout>();
  const server: Server = createServer({ key: certificate.key, cert: certificate.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = {
        at: Date.now(),
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        servername: (req.socket as { servername?: string | false }).servername || null,
      };
      const id = String(req.headers['x-service-delivery'] ?? '');
      const seen = (seenByDelivery.get(id) ?? 0) + 1;
      seenByDelivery.set(id, seen);
      const { status, delayMs = 0 } = receiver.respond(request, seen);
      const timer = setTimeout(() => {
        held.delete(timer);
        res.writeHead(status, status >= 300 && status < 400 ? { location: 'https://example.com/' } : {});
        res.end(status < 300 ? 'ok' : 'no');
        received.push({ ...request, status });
        for (const wake of waiters) wake();
      }, delayMs);
      held.add(timer);
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const receiver: Receiver = {
    url: `https://127.0.0.1:${port}`,
    port,
    received,
    respond,
    waitFor: (count, filter = () => true, timeoutMs = 20_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const matching = received.filter(filter);
          if (matching.length < count) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(matching);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(`receiver: ${received.filter(filter).length}/${count} requests within ${timeoutMs} ms`),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of held) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return receiver;
}
