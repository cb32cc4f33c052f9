import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
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

/**
 * TradingView Lightweight Charts (Apache-2.0), the explorer's charts: its standalone ES module (no
 * imports) from node_modules. It draws on canvas and styles its elements through the CSSOM, which the
 * policy above allows; the one thing it would do that the policy refuses — insert a `<style>` element for
 * its attribution logo — is turned off by the pages (`attributionLogo: false`), which credit TradingView
 * with a link of their own instead, as the licence asks.
 */
function chartsModule(): { body: Buffer; etag: string } {
  const manifest = createRequire(import.meta.url).resolve('lightweight-charts/package.json');
  const body = readFileSync(
    path.join(path.dirname(manifest), 'dist/lightweight-charts.standalone.production.mjs'),
  );
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}
/**
 * A week: the URL stays the same across versions of the library, so a longer life would keep an old copy
 * beside new page code; the ETag makes every later check a 304.
 */
const VENDOR_CACHE = 'public, max-age=604800';

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
  const charts = chartsModule();
  app.get(
    '/dashboard/assets/vendor/lightweight-charts.mjs',
    { config: access.page },
    async (request, reply) => {
      reply.headers({ ...HEADERS, 'cache-control': VENDOR_CACHE, etag: charts.etag });
      if (request.headers['if-none-match'] === charts.etag) return reply.code(304).send();
      return reply.type(TYPES['.js'] ?? 'text/javascript').send(charts.body);
    },
  );
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
