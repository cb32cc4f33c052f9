import { existsSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

const BESIDE_REPOSITORY = new URL('../../../shared/data/', import.meta.url);
const REPOSITORY = new URL('../../', import.meta.url);

/**
 * Gzipped copies in the repository of the shared files the tests read (byte-identical once
 * gunzipped; data/SOURCES.md gives their origin), so a clone with no shared data set beside it runs
 * the same tests.
 */
export const SHARED_COPIES: Record<string, string> = {
  'contracts/usaspending_contract_awards.json': 'data/awards/usaspending_contract_awards.json.gz',
  'contracts/usaspending_legacy_datafeed_dod_fy2006_sample999.csv':
    'data/awards/usaspending_legacy_datafeed_dod_fy2006_sample999.csv.gz',
  'companies/sec_company_tickers_exchange.csv': 'data/companies/sec_company_tickers_exchange.csv.gz',
  'contracts/usaspending_transactions_12primes_2021-2025_award_dedup.csv':
    'test/fixtures/shared-data/contracts/usaspending_transactions_12primes_2021-2025_award_dedup.csv.gz',
  'companies/usaspending_recipient_ticker_map_fy2024.csv':
    'test/fixtures/shared-data/companies/usaspending_recipient_ticker_map_fy2024.csv.gz',
};

/** Reads a file of the shared real-data set: beside the repository when it is there, else its copy here. */
export function sharedData(path: string): string {
  const beside = new URL(path, BESIDE_REPOSITORY);
  if (existsSync(beside)) return readFileSync(beside, 'utf8');
  const copy = SHARED_COPIES[path];
  if (!copy) throw new Error(`${path}: not beside the repository (../shared/data) and no copy in it`);
  return gunzipSync(readFileSync(new URL(copy, REPOSITORY))).toString('utf8');
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
