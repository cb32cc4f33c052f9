import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.ts';

describe('fault settings', () => {
  test('QUERY_TIMEOUT_MS: 10 s by default, 0 turns it off, anything else invalid is refused', () => {
    assert.equal(loadConfig({}).queryTimeoutMs, 10_000);
    assert.equal(loadConfig({ QUERY_TIMEOUT_MS: '0' }).queryTimeoutMs, 0);
    assert.equal(loadConfig({ QUERY_TIMEOUT_MS: '2500' }).queryTimeoutMs, 2500);
    for (const bad of ['-1', 'ten', '1e3', '600001', '5s'])
      assert.throws(() => loadConfig({ QUERY_TIMEOUT_MS: bad }), ConfigError, bad);
  });

  test('WEBHOOK_SUSPEND_AFTER: 5 days by default, one duration with a unit', () => {
    assert.equal(loadConfig({}).webhookSuspendAfterMs, 5 * 86_400_000);
    assert.equal(loadConfig({ WEBHOOK_SUSPEND_AFTER: '36h' }).webhookSuspendAfterMs, 36 * 3_600_000);
    assert.equal(loadConfig({ WEBHOOK_SUSPEND_AFTER: '2d' }).webhookSuspendAfterMs, 2 * 86_400_000);
    for (const bad of ['5', '1d,2d', '-1d', 'soon', '1w'])
      assert.throws(
        () => loadConfig({ WEBHOOK_SUSPEND_AFTER: bad }),
        (error: unknown) => error instanceof ConfigError && /WEBHOOK_SUSPEND_AFTER/.test(error.message),
        bad,
      );
  });
});
