/**
 * The layers as docs/ARCHITECTURE.md draws them, checked on the import graph of src/: nothing below
 * the HTTP layer imports it, and no module imports itself through others (no cycle).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';

const SRC = path.resolve('src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Each module's relative imports (type-only ones included: they couple the layers just the same). */
function graph(): Map<string, string[]> {
  const edges = new Map<string, string[]>();
  for (const file of sources(SRC)) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(/^(?:import|export)[^'"]*?from\s+'(\.{1,2}\/[^']+)'/gm)].map((m) =>
      path.resolve(path.dirname(file), m[1] ?? ''),
    );
    edges.set(file, targets);
  }
  return edges;
}

const layer = (file: string) => path.relative(SRC, file).split(path.sep)[0] ?? '';

/**
 * The HTTP layer is src/http/ and src/dashboard/: the dashboard's routes live beside its page and
 * sessions, and use the access rules, schemas and errors of src/http/ as the API's routes do.
 */
const HTTP = ['http', 'dashboard'];

describe('the import graph of src/', () => {
  const edges = graph();

  test('nothing below the HTTP layer imports it', () => {
    const below = [
      'store',
      'pipeline',
      'webhooks',
      'infra',
      'domain',
      'services',
      'shapes',
      'sources',
      'evaluation',
    ];
    const upward = [...edges].flatMap(([from, targets]) =>
      below.includes(layer(from))
        ? targets
            .filter((to) => HTTP.includes(layer(to)))
            .map((to) => `${path.relative(SRC, from)} → ${path.relative(SRC, to)}`)
        : [],
    );
    assert.deepEqual(upward, []);
  });

  test('the domain imports nothing but the domain', () => {
    const outward = [...edges].flatMap(([from, targets]) =>
      layer(from) === 'domain'
        ? targets
            .filter((to) => layer(to) !== 'domain')
            .map((to) => `${path.relative(SRC, from)} → ${path.relative(SRC, to)}`)
        : [],
    );
    assert.deepEqual(outward, []);
  });

  test('no cycle', () => {
    const state = new Map<string, 'open' | 'done'>();
    const cycles: string[] = [];
    const visit = (file: string, trail: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        cycles.push(
          [...trail.slice(trail.indexOf(file)), file].map((f) => path.relative(SRC, f)).join(' → '),
        );
        return;
      }
      state.set(file, 'open');
      for (const next of edges.get(file) ?? []) if (edges.has(next)) visit(next, [...trail, file]);
      state.set(file, 'done');
    };
    for (const file of edges.keys()) visit(file, []);
    assert.deepEqual(cycles, []);
  });

  test('SQL lives in store/: the other layers call named functions', () => {
    const sql =
      /\.query\s*[<(]|\b(SELECT\s+[\w*"]|INSERT\s+INTO|DELETE\s+FROM|UPDATE\s+\w+\s+SET|CREATE\s+(TABLE|INDEX))\b/;
    const outside = [...edges.keys()]
      .filter((file) => layer(file) !== 'store')
      .flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .map((line, i) => ({ line, at: `${path.relative(SRC, file)}:${i + 1}` }))
          .filter(({ line }) => sql.test(line) && !/^\s*(\/\/|\*|\/\*)/.test(line)),
      )
      .map(({ at, line }) => `${at}: ${line.trim()}`);
    assert.deepEqual(outside, []);
  });
});
