import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { SHARED_COPIES } from './fixtures.ts';

const beside = (path: string) => new URL(`../../../shared/data/${path}`, import.meta.url);

test('the repository copies of the shared files the tests read are byte-identical to the shared data set', {
  skip: !existsSync(beside('')) && 'no shared data set beside the repository to compare with',
}, () => {
  for (const [path, copy] of Object.entries(SHARED_COPIES)) {
    const ours = gunzipSync(readFileSync(new URL(`../../${copy}`, import.meta.url)));
    assert.ok(ours.equals(readFileSync(beside(path))), `${copy} differs from ../shared/data/${path}`);
  }
});
