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

describe('live DoD announcements settings', () => {
  test('defaults: the real feed, no proxy, the default User-Agent, 30 s, off', () => {
    const config = loadConfig({});
    assert.equal(
      config.dodContractsFeedUrl,
      'https://www.war.gov/DesktopModules/ArticleCS/RSS.ashx?ContentType=400&Site=945&max=10',
    );
    assert.equal(config.dodContractsProxy, null);
    assert.equal(config.dodContractsUserAgent, null);
    assert.equal(config.dodContractsTimeoutMs, 30_000);
    assert.equal(config.announcementsLive, false);
    assert.equal(loadConfig({ ANNOUNCEMENTS_LIVE: 'on' }).announcementsLive, true);
  });

  test('hostile values are refused naming the variable', () => {
    const bad: [string, string][] = [
      ['DOD_CONTRACTS_FEED_URL', 'file:///etc/passwd'],
      ['DOD_CONTRACTS_FEED_URL', 'not a url'],
      ['DOD_CONTRACTS_FEED_URL', 'javascript:alert(1)'],
      ['DOD_CONTRACTS_PROXY', 'socks5://127.0.0.1:1080'],
      ['DOD_CONTRACTS_USER_AGENT', 'agent\r\nX-Injected: 1'],
      ['DOD_CONTRACTS_USER_AGENT', 'x'.repeat(201)],
      ['DOD_CONTRACTS_USER_AGENT', 'caf\u00e9'],
      ['DOD_CONTRACTS_TIMEOUT_MS', '0'],
      ['DOD_CONTRACTS_TIMEOUT_MS', '30s'],
      ['ANNOUNCEMENTS_LIVE', 'sometimes'],
    ];
    for (const [name, value] of bad)
      assert.throws(
        () => loadConfig({ [name]: value }),
        (error: unknown) => error instanceof ConfigError && error.message.includes(name),
        `${name}=${JSON.stringify(value)}`,
      );
    const ok = loadConfig({
      DOD_CONTRACTS_FEED_URL: 'http://127.0.0.1:8081/DesktopModules/ArticleCS/RSS.ashx?ContentType=400',
      DOD_CONTRACTS_PROXY: 'http://proxy.internal:3128',
      DOD_CONTRACTS_USER_AGENT: 'market-intel (ops@example.com)',
    });
    assert.equal(ok.dodContractsProxy, 'http://proxy.internal:3128');
    assert.equal(ok.dodContractsUserAgent, 'market-intel (ops@example.com)');
  });
});
