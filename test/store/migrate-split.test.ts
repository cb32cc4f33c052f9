import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { describe, test } from 'node:test';
import { splitStatements } from '../../src/store/migrate.ts';

// `migrate` runs a migration file statement by statement: a statement ends at a semicolon closing a
// line, but not inside a dollar-quoted function body, whose own statements end the same way.

describe('splitting a migration into statements', () => {
  test('a function body written one statement a line stays one statement', () => {
    const sql = [
      '-- a comment line',
      'CREATE TABLE t (n int);',
      'CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $$',
      'DECLARE x int;',
      'BEGIN',
      '  -- a comment inside the body stays in it',
      '  x := 1;',
      '  RETURN x;',
      'END $$;',
      'CREATE FUNCTION g() RETURNS text LANGUAGE plpgsql AS $body$ BEGIN',
      "  RETURN '$$';",
      'END $body$;',
      'DROP TABLE t;',
    ].join('\n');
    assert.deepEqual(splitStatements(sql), [
      'CREATE TABLE t (n int)',
      [
        'CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $$',
        'DECLARE x int;',
        'BEGIN',
        '  -- a comment inside the body stays in it',
        '  x := 1;',
        '  RETURN x;',
        'END $$',
      ].join('\n'),
      "CREATE FUNCTION g() RETURNS text LANGUAGE plpgsql AS $body$ BEGIN\n  RETURN '$$';\nEND $body$",
      'DROP TABLE t',
    ]);
  });

  test('a last statement without its semicolon, blank lines and comments alone', () => {
    assert.deepEqual(splitStatements('\n-- only a comment\n\nSELECT 1;\n\nSELECT 2\n'), [
      'SELECT 1',
      'SELECT 2',
    ]);
    assert.deepEqual(splitStatements('-- nothing\n'), []);
  });

  test("every shipped migration's dollar-quoted bodies close inside one statement", async () => {
    const dir = new URL('../../migrations/', import.meta.url);
    for (const file of (await readdir(dir)).filter((f) => f.endsWith('.sql'))) {
      for (const statement of splitStatements(await readFile(new URL(file, dir), 'utf8'))) {
        const tags = [...statement.matchAll(/\$[A-Za-z_]*\$/g)].length;
        assert.equal(tags % 2, 0, `${file}: a statement ends inside a dollar-quoted body:\n${statement}`);
      }
    }
  });
});
