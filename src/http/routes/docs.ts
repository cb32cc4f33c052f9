import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { access } from '../access.ts';
import type { App } from '../types.ts';

/**
 * Where the dashboard's policy (src/dashboard/routes/static.ts) is relaxed, and why — for these two
 * responses only:
 * - `style-src 'unsafe-inline'`: Redoc styles its components with styled-components, which writes
 *   `<style>` elements (and React sets `style` attributes) at run time; there is no nonce hook in the
 *   standalone bundle. Scripts stay `'self'` only: no inline script, no eval.
 * - `worker-src blob:`: the search index runs in a Web Worker the bundle builds from a Blob of its own
 *   code; without it the page renders but search fails.
 * Everything is fetched from this origin (the bundle, /docs/openapi.json): no CDN, no fonts (see
 * withoutCdnLogo for the one URL the bundle names).
 */
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src 'self'; worker-src blob:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";
const HEADERS = {
  'content-security-policy': CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
};

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
  cacheControl: string;
}

/**
 * The one thing the bundle fetches from elsewhere: the sidebar's "API docs by Redocly" logo, an <img>
 * from Redocly's CDN that no option turns off. It becomes `data:,` (an image that fails to decode, so
 * Redoc drops it; the link's text stays). Checked at start: a bundle without it fails loudly here.
 */
const CDN_LOGO = '"https://cdn.redoc.ly/redoc/logo-mini.svg"';

function withoutCdnLogo(bundle: Buffer): Buffer {
  const text = bundle.toString('utf8');
  const count = text.split(CDN_LOGO).length - 1;
  if (count !== 1) throw new Error(`redoc.standalone.js names the CDN logo ${count} times, expected 1`);
  return Buffer.from(text.replace(CDN_LOGO, '"data:,"'));
}

function withEtag(body: Buffer, type: string, cacheControl: string): Asset {
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  return { body, type, etag, cacheControl };
}

function asset(file: string, type: string, cacheControl: string, edit = (body: Buffer) => body): Asset {
  return withEtag(edit(readFileSync(file)), type, cacheControl);
}

function send(request: FastifyRequest, reply: FastifyReply, file: Asset) {
  reply.headers({ ...HEADERS, 'cache-control': file.cacheControl, etag: file.etag });
  if (request.headers['if-none-match'] === file.etag) return reply.code(304).send();
  return reply.type(file.type).send(file.body);
}

/**
 * The document the page renders, under the page's own rule: /api/v1/openapi.json is an open API route
 * and spends the address's keyless allowance (10 a minute), so a page fetching it would break after a
 * few reloads. The document is fixed once the routes are registered: built once, at the first request.
 */
function documentAsset(app: App): () => Asset {
  let built: Asset | null = null;
  return () => {
    built ??= withEtag(
      Buffer.from(JSON.stringify(app.swagger())),
      'application/json; charset=utf-8',
      'no-cache',
    );
    return built;
  };
}

/**
 * The API reference: a page that has Redoc (the npm package `redoc`, its standalone bundle served from
 * node_modules) render the OpenAPI document, served beside it at /docs/openapi.json. Bundle and page
 * are read once at start. Public like the dashboard's page: no credentials, no rate limit, GET only;
 * untagged, so not in the OpenAPI document itself.
 */
export function registerDocs(app: App): void {
  const page = asset(
    fileURLToPath(new URL('../docs-page/index.html', import.meta.url)),
    'text/html; charset=utf-8',
    'no-cache',
  );
  const bundle = asset(
    createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js'),
    'text/javascript; charset=utf-8',
    'public, max-age=300',
    withoutCdnLogo,
  );

  app.get('/docs', { config: access.page }, async (request, reply) => send(request, reply, page));
  app.get('/docs/redoc.standalone.js', { config: access.page }, async (request, reply) =>
    send(request, reply, bundle),
  );
  const document = documentAsset(app);
  app.get('/docs/openapi.json', { config: access.page }, async (request, reply) =>
    send(request, reply, document()),
  );
}
