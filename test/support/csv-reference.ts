/**
 * The character-at-a-time CSV parser that src/sources/csv.ts replaced, kept as the reference the
 * faster one is checked against (test/sources/csv-reference.test.ts). Same rules, see csv.ts.
 */
import { CsvError, type CsvRecord } from '../../src/sources/csv.ts';

type State = 'fieldStart' | 'unquoted' | 'quoted' | 'quoteInQuoted' | 'afterQuoted';

export class ReferenceCsvParser {
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
