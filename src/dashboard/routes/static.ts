import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { access } from '../../http/access.ts';
import { errors } from '../../http/errors.ts';
import type { App } from '../../http/types.ts';

const PUBLIC_DIR = fileURLToPath(new URL('../public/', import.meta.url));
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};
/** Everything comes from this origin: no CDN, no inline script. */
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";
const HEADERS = {
  'content-security-policy': CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
};

/** The dashboard's page and assets (public/), read once at start: plain HTML, CSS and ES modules, no build step. */
export function registerStatic(app: App): void {
  const files = new Map<string, { body: Buffer; type: string }>();
  for (const name of readdirSync(PUBLIC_DIR)) {
    const type = TYPES[path.extname(name)];
    if (type) files.set(name, { body: readFileSync(path.join(PUBLIC_DIR, name)), type });
  }
  const send = (name: string) => {
    const file = files.get(name);
    if (!file) throw errors.routeNotFound('GET', `/dashboard/${name}`);
    return file;
  };

  app.get('/dashboard', { config: access.page }, async (_request, reply) => {
    const file = send('index.html');
    return reply
      .headers({ ...HEADERS, 'cache-control': 'no-cache' })
      .type(file.type)
      .send(file.body);
  });
  app.get<{ Params: { file: string } }>(
    '/dashboard/assets/:file',
    { config: access.page },
    async (request, reply) => {
      const file = send(request.params.file);
      return reply
        .headers({ ...HEADERS, 'cache-control': 'public, max-age=300' })
        .type(file.type)
        .send(file.body);
    },
  );
}
