/** Collects WHERE clauses with numbered parameters. */
export class Where {
  readonly clauses: string[] = [];
  readonly params: unknown[] = [];

  add(clause: (placeholder: string) => string, value: unknown): this {
    if (value === undefined) return this;
    this.params.push(value);
    this.clauses.push(clause(`$${this.params.length}`));
    return this;
  }

  next(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  sql(): string {
    return this.clauses.length ? `WHERE ${this.clauses.join(' AND ')}` : '';
  }
}
