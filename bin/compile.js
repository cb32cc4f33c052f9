// The sources compiled to JavaScript in dist/ (same layout as src/, so paths relative to a module —
// migrations/, data/, bin/ — resolve alike), rebuilt when src/ changes. Running compiled code instead of
// compiling on load (tsx) halves module loading and saves a loader thread per process
// (docs/EVALUATION.md#start-up-and-memory). Whatever goes wrong here (no esbuild, a read-only install,
// another process building) leaves the caller to run the TypeScript through tsx instead.
import { createHash } from 'node:crypto';
import {
  closeSync,
  copyFileSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const STAMP = '.source-stamp';
/** A lock older than this was left by a build that died. */
const STALE_LOCK_MS = 60_000;

function sourceFiles(src) {
  return readdirSync(src, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(src, path.join(entry.parentPath, entry.name)))
    .sort();
}

/** Names, sizes and modification times of every file under src/: any edit changes it. */
function sourceStamp(src, files) {
  const hash = createHash('sha256');
  for (const file of files) {
    const { size, mtimeMs } = statSync(path.join(src, file));
    hash.update(`${file}\0${size}\0${mtimeMs}\n`);
  }
  return hash.digest('hex');
}

/** `./x.ts` → `./x.js` in static and dynamic imports of relative paths. */
const RELATIVE_TS = /((?:\bfrom|\bimport)\s*\(?\s*)(['"])(\.{1,2}\/[^'"\n]*?)\.ts\2/g;

async function build(src, dist, files, stamp) {
  const { transform } = await import('esbuild');
  const staging = `${dist}.tmp-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  try {
    await compileInto(staging, src, files, transform);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
  writeFileSync(path.join(staging, STAMP), stamp);
  rmSync(dist, { recursive: true, force: true });
  renameSync(staging, dist);
}

async function compileInto(staging, src, files, transform) {
  for (const file of files) {
    const from = path.join(src, file);
    const to = path.join(staging, file.replace(/\.ts$/, '.js'));
    mkdirSync(path.dirname(to), { recursive: true });
    if (!file.endsWith('.ts')) {
      copyFileSync(from, to);
      continue;
    }
    const { code } = await transform(readFileSync(from, 'utf8'), {
      loader: 'ts',
      format: 'esm',
      target: 'node20',
      sourcefile: from,
      tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true } },
    });
    writeFileSync(to, code.replace(RELATIVE_TS, '$1$2$3.js$2'));
  }
}

function lock(dist) {
  const file = `${dist}.lock`;
  try {
    if (Date.now() - statSync(file).mtimeMs > STALE_LOCK_MS) rmSync(file, { force: true });
  } catch {
    // No lock.
  }
  try {
    closeSync(openSync(file, 'wx'));
    return () => rmSync(file, { force: true });
  } catch {
    return null;
  }
}

/** The URL of dist/cli.js, current with src/ (built now if it was not), or null. */
export async function compiledEntry(root = ROOT) {
  if (process.env.MARKET_INTEL_TSX === '1') return null;
  const src = path.join(root, 'src');
  const dist = path.join(root, 'dist');
  try {
    const files = sourceFiles(src);
    const stamp = sourceStamp(src, files);
    const current = () => {
      try {
        return readFileSync(path.join(dist, STAMP), 'utf8') === stamp;
      } catch {
        return false;
      }
    };
    if (!current()) {
      const unlock = lock(dist);
      if (!unlock) return null;
      try {
        if (!current()) await build(src, dist, files, stamp);
      } finally {
        unlock();
      }
    }
    return pathToFileURL(path.join(dist, 'cli.js')).href;
  } catch {
    return null;
  }
}

// `node bin/compile.js` (npm's `prepare`, run by `npm install` and `npm ci`): build now, so that the
// first start does not. Never fails the install: without dist/ the CLI runs through tsx.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const entry = await compiledEntry();
  process.stderr.write(
    entry ? 'compiled src/ into dist/\n' : 'dist/ not built: the CLI will run src/ through tsx\n',
  );
}
