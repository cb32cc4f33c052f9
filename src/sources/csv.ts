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

const COMMA = 0x2c;
const QUOTE = 0x22;
const CR = 0x0d;
const LF = 0x0a;

enum State {
  FieldStart,
  Unquoted,
  Quoted,
  /** A quote inside a quoted field: the closing quote, or the first half of `""`. */
  QuoteInQuoted,
  AfterQuoted,
}

/**
 * Scans each chunk with charCodeAt and takes fields as slices of it, so a field costs one substring
 * rather than one concatenation per character; only a field split across chunks (or holding `""`)
 * is built from pieces.
 */
export class CsvParser {
  private state = State.FieldStart;
  private field = '';
  private fields: string[] = [];
  /** Current physical line (1-based). */
  private line = 1;
  private recordLine = 1;
  /** The record has at least one character (so it is not a blank line). */
  private recordStarted = false;
  /** The last character seen was a CR (already counted as a line break). */
  private prevCr = false;
  private first = true;

  push(chunk: string): CsvRecord[] {
    const out: CsvRecord[] = [];
    let text = chunk;
    if (this.first && text.length > 0) {
      this.first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    const n = text.length;
    if (n === 0) return out;
    let i = 0;
    if (this.prevCr && text.charCodeAt(0) === LF) {
      // Second half of a CRLF: the CR already ended the line (or was counted inside quotes).
      if (this.state === State.Quoted) this.field += '\n';
      i = 1;
    }
    while (i < n) {
      i = this.state === State.Quoted ? this.scanQuoted(text, i) : this.scanUnquoted(text, i, out);
    }
    this.prevCr = text.charCodeAt(n - 1) === CR;
    return out;
  }

  /** Inside quotes up to the next quote (or the chunk's end); returns where to continue. */
  private scanQuoted(text: string, from: number): number {
    const quote = text.indexOf('"', from);
    const end = quote === -1 ? text.length : quote;
    // A CR or LF counts a line, except the LF of a CRLF (also across chunks, via prevCr).
    let afterCr = from > 0 ? text.charCodeAt(from - 1) === CR : this.prevCr;
    for (let j = from; j < end; j++) {
      const c = text.charCodeAt(j);
      if (c === CR) this.line++;
      else if (c === LF && !afterCr) this.line++;
      afterCr = c === CR;
    }
    if (end > from) this.field += text.slice(from, end);
    if (quote === -1) return end;
    this.state = State.QuoteInQuoted;
    return quote + 1;
  }

  /** Outside quotes: one field's worth of characters, then its delimiter; returns where to continue. */
  private scanUnquoted(text: string, from: number, out: CsvRecord[]): number {
    const c = text.charCodeAt(from);
    if (c === QUOTE && this.state === State.FieldStart) {
      this.recordStarted = true;
      this.state = State.Quoted;
      return from + 1;
    }
    if (c === QUOTE && this.state === State.QuoteInQuoted) {
      this.field += '"';
      this.state = State.Quoted;
      return from + 1;
    }
    let j = from;
    for (; j < text.length; j++) {
      const d = text.charCodeAt(j);
      if (d === COMMA || d === CR || d === LF) break;
    }
    if (j > from) {
      // Literal text: a quote here is a character (unquoted field, or after a closing quote).
      this.recordStarted = true;
      this.field = this.field === '' ? text.slice(from, j) : this.field + text.slice(from, j);
      if (this.state === State.FieldStart) this.state = State.Unquoted;
      else if (this.state === State.QuoteInQuoted) this.state = State.AfterQuoted;
    }
    if (j === text.length) return j;
    const d = text.charCodeAt(j);
    if (d === COMMA) {
      this.recordStarted = true;
      this.fields.push(this.field);
      this.field = '';
      this.state = State.FieldStart;
      return j + 1;
    }
    this.endRecord(out);
    // A CRLF is one line break: skip the LF (a CR at the chunk's end is remembered by push).
    return d === CR && text.charCodeAt(j + 1) === LF ? j + 2 : j + 1;
  }

  /** Flushes the last record; throws `CsvError` on an unterminated quoted field. */
  end(): CsvRecord[] {
    const out: CsvRecord[] = [];
    if (this.state === State.Quoted) {
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
    this.state = State.FieldStart;
    this.recordStarted = false;
    this.line++;
    this.recordLine = this.line;
  }

  private reset(): void {
    this.state = State.FieldStart;
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
  for await (const batch of csvRecordBatches(chunks)) yield* batch;
}

/**
 * The records of each text chunk as one array: a file of a million records then costs a few thousand
 * async steps instead of a million. A `CsvError` comes after the records that preceded it.
 */
export async function* csvRecordBatches(chunks: AsyncIterable<string>): AsyncGenerator<CsvRecord[]> {
  const parser = new CsvParser();
  const batchOf = function* (records: Iterable<CsvRecord>): Generator<CsvRecord[]> {
    const batch: CsvRecord[] = [];
    try {
      for (const record of records) batch.push(record);
    } catch (error) {
      if (batch.length > 0) yield batch;
      throw error;
    }
    if (batch.length > 0) yield batch;
  };
  for await (const chunk of chunks) yield* batchOf(parser.push(chunk));
  yield* batchOf(parser.end());
}

/**
 * A function from a record's fields to an object of the `names` present in `header` (the first column
 * of a repeated name): `rowToObject` restricted to the columns a reader uses, which matters for files
 * with hundreds of columns such as USASpending's bulk downloads.
 */
export function columnPicker(
  header: readonly string[],
  names: readonly string[],
): (fields: readonly string[]) => Record<string, string> {
  const picked = names.flatMap((name) => {
    const at = header.indexOf(name);
    return at < 0 ? [] : [[name, at] as const];
  });
  return (fields) => {
    const obj: Record<string, string> = {};
    for (const [name, at] of picked) obj[name] = fields[at] ?? '';
    return obj;
  };
}

/**
 * Maps a record's fields onto the header names. Missing trailing fields become '' and extra fields
 * are dropped; compare `fields.length` with `header.length` if that matters to the caller. When a
 * header name repeats, the first column with that name wins.
 */
export function rowToObject(header: readonly string[], fields: readonly string[]): Record<string, string> {
  const obj: Record<string, string> = {};
  for (let i = 0; i < header.length; i++) {
    const name = header[i] as string;
    if (!Object.hasOwn(obj, name)) obj[name] = fields[i] ?? '';
  }
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
