import { readFileSync } from 'node:fs';

/** Reads a file of the shared real-data set that sits next to the repository. */
export function sharedData(path: string): string {
  return readFileSync(new URL(`../../../shared/data/${path}`, import.meta.url), 'utf8');
}

/** RFC 4180 CSV (quoted fields, doubled quotes) into rows keyed by the header. */
export function parseCsv(text: string): Record<string, string>[] {
  const rows = csvRows(text);
  const header = rows[0] ?? [];
  return rows.slice(1).map((cells) => Object.fromEntries(header.map((h, i) => [h, cells[i] ?? ''])));
}

function csvRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else if (c !== '\r') field += c;
  }
  if (field !== '' || row.length > 0) rows.push([...row, field]);
  return rows;
}
