/**
 * A small RFC 4180 CSV parser: comma-separated fields, fields optionally enclosed in double quotes,
 * `""` inside a quoted field is one quote, quoted fields may contain commas, CR, LF and CRLF.
 * Records end at CRLF, LF or a lone CR (outside quotes). A leading UTF-8 BOM is dropped.
 * Blank physical lines (no characters at all) are skipped, so a trailing newline does not make an
 * empty record.
 *
 * Leniency (documented, deliberate): a quote inside an unquoted field is kept as a literal
 * character, and characters after a closing quote up to the next comma/newline are appended to
 * the field. An unterminated quoted field at end of input is an error (`CsvError`), because it
 * would otherwise silently swallow the rest of the file.
 *
 * `CsvParser` is incremental: feed it chunks with `push()` (a chunk may end anywhere, even inside
 * a quoted field or between CR and LF) and call `end()`; `parseCsv` is the one-shot form.
 */

export interface CsvRecord {
  /** 1-based physical line on which the record starts. */
  line: number;
  fields: string[];
}

export class CsvError extends Error {
  readonly line: number;
  constructor(message: string, line: number) {
    super(`line ${line}: ${message}`);
    this.name = 'CsvError';
    this.line = line;
  }
}

type State = 'fieldStart' | 'unquoted' | 'quoted' | 'quoteInQuoted' | 'afterQuoted';

export class CsvParser {
  private state: State = 'fieldStart';
  private field = '';
  private fields: string[] = [];
  /** Current physical line (1-based). */
  private line = 1;
  private recordLine = 1;
  /** The record has at least one character (so it is not a blank line). */
  private recordStarted = false;
  /** The previous character was a CR (already counted as a line break). */
  private prevCr = false;
  private first = true;

  push(chunk: string): CsvRecord[] {
    const out: CsvRecord[] = [];
    let text = chunk;
    if (this.first && text.length > 0) {
      this.first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    for (const ch of text) {
      const afterCr = this.prevCr;
      this.prevCr = ch === '\r';
      if (ch === '\n' && afterCr) {
        // Second half of a CRLF: the CR already ended the line (or was counted inside quotes).
        if (this.state === 'quoted') this.field += ch;
        continue;
      }
      switch (this.state) {
        case 'quoted':
          if (ch === '"') {
            this.state = 'quoteInQuoted';
          } else {
            this.field += ch;
            if (ch === '\r' || ch === '\n') this.line++;
          }
          break;
        case 'fieldStart':
        case 'unquoted':
        case 'quoteInQuoted':
        case 'afterQuoted':
          if (ch === ',') {
            this.recordStarted = true;
            this.fields.push(this.field);
            this.field = '';
            this.state = 'fieldStart';
          } else if (ch === '\r' || ch === '\n') {
            this.endRecord(out);
          } else if (ch === '"' && this.state === 'fieldStart') {
            this.recordStarted = true;
            this.state = 'quoted';
          } else if (ch === '"' && this.state === 'quoteInQuoted') {
            this.field += '"';
            this.state = 'quoted';
          } else {
            this.recordStarted = true;
            this.field += ch;
            if (this.state === 'fieldStart') this.state = 'unquoted';
            else if (this.state === 'quoteInQuoted') this.state = 'afterQuoted';
          }
          break;
      }
    }
    return out;
  }

  /** Flushes the last record; throws `CsvError` on an unterminated quoted field. */
  end(): CsvRecord[] {
    const out: CsvRecord[] = [];
    if (this.state === 'quoted') {
      const line = this.recordLine;
      this.reset();
      throw new CsvError('unterminated quoted field', line);
    }
    this.endRecord(out);
    this.reset();
    return out;
  }

  private endRecord(out: CsvRecord[]): void {
    if (this.recordStarted) {
      this.fields.push(this.field);
      out.push({ line: this.recordLine, fields: this.fields });
    }
    this.fields = [];
    this.field = '';
    this.state = 'fieldStart';
    this.recordStarted = false;
    this.line++;
    this.recordLine = this.line;
  }

  private reset(): void {
    this.state = 'fieldStart';
    this.field = '';
    this.fields = [];
    this.line = 1;
    this.recordLine = 1;
    this.recordStarted = false;
    this.prevCr = false;
    this.first = true;
  }
}

/** Parses a whole CSV text; the first record is the header. */
export function parseCsv(text: string): { header: string[]; rows: CsvRecord[] } {
  const parser = new CsvParser();
  const records = [...parser.push(text), ...parser.end()];
  const head = records.shift();
  return { header: head ? head.fields : [], rows: records };
}

/** Streams records (header included) from text chunks, e.g. a decoded file stream. */
export async function* csvRecords(chunks: AsyncIterable<string>): AsyncGenerator<CsvRecord> {
  const parser = new CsvParser();
  for await (const chunk of chunks) yield* parser.push(chunk);
  yield* parser.end();
}

/**
 * Maps a record's fields onto the header names. Missing trailing fields become '' and extra fields
 * are dropped; compare `fields.length` with `header.length` if that matters to the caller. When a
 * header name repeats, the first column with that name wins.
 */
export function rowToObject(header: readonly string[], fields: readonly string[]): Record<string, string> {
  const obj: Record<string, string> = {};
  header.forEach((name, i) => {
    if (!Object.hasOwn(obj, name)) obj[name] = fields[i] ?? '';
  });
  return obj;
}

/** Quotes a value for CSV output when needed (comma, quote, CR or LF). */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** Serializes rows as CSV with LF line endings and a trailing newline. */
export function toCsv(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const lines = [header.map(csvField).join(',')];
  for (const row of rows) lines.push(row.map(csvField).join(','));
  return `${lines.join('\n')}\n`;
}
