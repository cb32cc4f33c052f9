/**
 * A route is found from its URL in one step: it is registered, with its path written out whole, in the
 * file named after that URL. Every route the app registers is checked, so a new one joins by itself.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import type { App } from '../../src/http/types.ts';
import type { Db } from '../../src/store/db.ts';
import { testConfig } from '../support/app.ts';
import { freshDb } from '../support/db.ts';

let db: Db;
let app: App;
before(async () => {
  db = await freshDb();
  app = await buildApp({ config: testConfig(), db, logger: false });
  await app.ready();
});
after(async () => {
  await app.close();
  await db.close();
});

/**
 * The file a URL's route belongs in: `/api/v1/<name>/…` → `<name>.ts`, `…/admin/<name>/…` →
 * `admin-<name>.ts`, `/api/v1/<name>/export` → `<name>-export.ts`.
 */
function routeFile(url: string): string {
  if (url === '/metrics') return 'src/http/routes/metrics.ts';
  if (url === '/docs' || url.startsWith('/docs/')) return 'src/http/routes/docs.ts';
  if (url === '/dashboard' || url.startsWith('/dashboard/assets/')) return 'src/dashboard/routes/static.ts';
  const api = /^\/api\/v1\/(admin\/)?([a-z-]+)(\/export$)?/.exec(url);
  if (api) return `src/http/routes/${api[1] ? 'admin-' : ''}${api[2]}${api[3] ? '-export' : ''}.ts`;
  const dashboard = /^\/dashboard\/api\/(admin\/)?([a-z-]+)/.exec(url);
  if (dashboard) return `src/dashboard/routes/${dashboard[1] ? 'admin-' : ''}${dashboard[2]}.ts`;
  return '(no file for this URL)';
}

const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

describe('route files', () => {
  test('the file names follow the URLs', () => {
    assert.equal(routeFile('/api/v1/contracts/:id/score'), 'src/http/routes/contracts.ts');
    assert.equal(routeFile('/api/v1/openapi.json'), 'src/http/routes/openapi.ts');
    assert.equal(routeFile('/api/v1/events/export'), 'src/http/routes/events-export.ts');
    assert.equal(routeFile('/docs/redoc.standalone.js'), 'src/http/routes/docs.ts');
    assert.equal(routeFile('/api/v1/admin/users/:id/webhooks'), 'src/http/routes/admin-users.ts');
    assert.equal(routeFile('/dashboard/api/admin/users/:id'), 'src/dashboard/routes/admin-users.ts');
  });

  test('every route is registered, under its literal path, in the file named after its URL', () => {
    // HEAD routes are the ones Fastify adds beside each GET.
    const routes = app.routeAccess.filter((route) => route.method !== 'HEAD');
    assert.ok(routes.length >= 50, `only ${routes.length} routes`);
    const missing = routes.flatMap(({ method, url }) => {
      const file = routeFile(url);
      let text = '';
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        return [`${method} ${url}: no ${file}`];
      }
      const call = new RegExp(`\\bapp\\.${method.toLowerCase()}(<[^>]*>)?\\(\\s*'${literal(url)}'`);
      return call.test(text) ? [] : [`${method} ${url}: not registered literally in ${file}`];
    });
    assert.deepEqual(missing, []);
  });

  test('no route path is built: every registration starts with a string literal', () => {
    const built = sources(path.resolve('src')).flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      return [
        ...text.matchAll(/\bapp\.(get|post|put|patch|delete|head|options|all|route)(<[^>]*>)?\(\s*[^'\s]/g),
      ].map((m) => `${path.relative('.', file)}: ${m[0]}`);
    });
    assert.deepEqual(built, []);
  });
});
