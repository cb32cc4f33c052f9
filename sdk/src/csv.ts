/**
 * An incremental RFC 4180 reader: text goes in as it arrives, in chunks cut anywhere (inside a quoted
 * field, between CR and LF, between two doubled quotes), and complete records come out. Fields may be
 * quoted, holding commas, quotes (doubled) and line breaks; a record ends with CRLF (a bare LF is also
 * taken). Empty lines are skipped. Only the current record is held, never the text before it.
 */

type State = 'start' | 'plain' | 'quoted' | 'quote';

const DELIMITER = /[,\r\n]/g;

export class CsvParser {
  private field = '';
  private record: string[] = [];
  private state: State = 'start';
  private afterCr = false;
  private done: string[][] = [];

  /** The records that `text` completes. */
  push(text: string): string[][] {
    let i = 0;
    while (i < text.length) {
      if (this.afterCr) {
        this.afterCr = false;
        if (text[i] === '\n') {
          i++;
          continue;
        }
      }
      i = this.state === 'quoted' ? this.quoted(text, i) : this.unquoted(text, i);
    }
    return this.take();
  }

  /** The last record when the text did not end with a line break; throws on an unterminated quote. */
  end(): string[][] {
    if (this.state === 'quoted') throw new SyntaxError('CSV ends inside a quoted field');
    if (this.state !== 'start' || this.record.length > 0 || this.field !== '') this.endRecord();
    return this.take();
  }

  private take(): string[][] {
    const records = this.done;
    this.done = [];
    return records;
  }

  /** Inside quotes: everything up to the next quote is the field's. */
  private quoted(text: string, i: number): number {
    const quote = text.indexOf('"', i);
    if (quote < 0) {
      this.field += text.slice(i);
      return text.length;
    }
    this.field += text.slice(i, quote);
    this.state = 'quote';
    return quote + 1;
  }

  private unquoted(text: string, i: number): number {
    const c = text[i];
    if (this.state === 'quote') {
      // A quote inside quotes: doubled, it is one quote; else the field's closing quote.
      if (c === '"') {
        this.field += '"';
        this.state = 'quoted';
        return i + 1;
      }
      this.state = 'plain';
    } else if (this.state === 'start' && c === '"') {
      this.state = 'quoted';
      return i + 1;
    }
    DELIMITER.lastIndex = i;
    const found = DELIMITER.exec(text);
    if (found === null) {
      this.field += text.slice(i);
      this.state = 'plain';
      return text.length;
    }
    this.field += text.slice(i, found.index);
    if (found[0] === ',') this.endField();
    else {
      this.endRecord();
      this.afterCr = found[0] === '\r';
    }
    return found.index + 1;
  }

  private endField(): void {
    this.record.push(this.field);
    this.field = '';
    this.state = 'start';
  }

  private endRecord(): void {
    const empty = this.record.length === 0 && this.field === '' && this.state === 'start';
    this.endField();
    if (!empty) this.done.push(this.record);
    this.record = [];
  }
}
