import { readFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';

/** Reads a UTF-8 text file, gunzipping it first when the name ends in `.gz`. */
export async function readTextFile(path: string): Promise<string> {
  const buf = await readFile(path);
  return decodeText(path.endsWith('.gz') ? gunzipSync(buf) : buf);
}

/** Decodes UTF-8 bytes (TextDecoder drops a leading BOM; invalid bytes become U+FFFD). */
export function decodeText(bytes: Uint8Array): string {
  return new TextDecoder('utf-8').decode(bytes);
}
