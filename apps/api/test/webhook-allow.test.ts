import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { parseEnv } from '../src/env.ts';
import { WebhookAllow, WebhookAllowList, WebhookRefused, type Resolve } from '../src/services/webhooks/webhook-allow.ts';

// Where webhooks may post (KNEEBOARD_WEBHOOK_ALLOW): the rule that keeps them from probing the API's own network.
describe('KNEEBOARD_WEBHOOK_ALLOW', () => {
  it('parses a comma list; unset is public only; a bad entry fails start-up naming the variable', () => {
    expect(parseEnv({}).webhooks.allow).toEqual(['public']);
    expect(parseEnv({ KNEEBOARD_WEBHOOK_ALLOW: ' ' }).webhooks.allow).toEqual(['public']);
    expect(parseEnv({ KNEEBOARD_WEBHOOK_ALLOW: 'Public, loopback,private,hooks.lan:8080,[fd00::1],10.0.0.5' }).webhooks.allow).toEqual([
      'public',
      'loopback',
      'private',
      'hooks.lan:8080',
      '[fd00::1]',
      '10.0.0.5',
    ]);
    for (const bad of ['http://hooks.lan', 'hooks.lan/path', '*', 'fd00::1', 'public;loopback']) {
      expect(() => parseEnv({ KNEEBOARD_WEBHOOK_ALLOW: bad }), bad).toThrow(/KNEEBOARD_WEBHOOK_ALLOW\.\d: must be public, loopback, private, host or host:port/);
    }
  });

  const refusal = (allow: string, url: string) => new WebhookAllow(WebhookAllowList.parse(allow)).refusal(new URL(url));

  it('by default refuses at registration every IP literal that is not public, and localhost', () => {
    for (const url of [
      'http://127.0.0.1:6379/',
      'http://[::1]:8123/',
      'http://[::ffff:127.0.0.1]/',
      'http://169.254.169.254/latest/meta-data',
      'http://10.0.0.1/',
      'http://192.168.1.1/',
      'http://100.64.0.1/',
      'http://0.0.0.0:8123/',
      'http://2130706433/',
      'http://localhost:9000/',
      'http://api.localhost/',
      'http://localhost./',
      'http://[fe80::1]/',
    ]) {
      expect(refusal('', url), url).toMatch(/^webhooks may not post to .*: KNEEBOARD_WEBHOOK_ALLOW names where they may \(now: public\)$/);
    }
    expect(refusal('', 'http://169.254.169.254/')).toContain('169.254.169.254 (a link-local address)');
    for (const url of ['https://hooks.slack.com/services/T/B/X', 'http://8.8.8.8/', 'http://[2001:4860:4860::8888]/', 'http://hooks.lan/']) expect(refusal('', url), url).toBeNull();
  });

  it('loopback, private and named hosts open what they say and nothing more', () => {
    expect(refusal('loopback', 'http://127.0.0.1:1/')).toBeNull();
    expect(refusal('loopback', 'http://localhost:1/')).toBeNull();
    expect(refusal('loopback', 'http://[::1]:1/')).toBeNull();
    expect(refusal('loopback', 'http://10.0.0.1/')).not.toBeNull();
    expect(refusal('private', 'http://10.0.0.1/')).toBeNull();
    expect(refusal('private', 'http://[fd12::1]/')).toBeNull();
    expect(refusal('private', 'http://169.254.169.254/')).not.toBeNull();
    expect(refusal('private', 'http://127.0.0.1/')).not.toBeNull();
    // A named host: only it (and only its port, when one is named); any other name is refused at once, as no kind is open.
    expect(refusal('hooks.lan:8080', 'http://hooks.lan:8080/x')).toBeNull();
    expect(refusal('hooks.lan:8080', 'http://hooks.lan:8081/x')).not.toBeNull();
    expect(refusal('hooks.lan:8080', 'https://hooks.slack.com/x')).toContain('hooks.slack.com (not a host it names)');
    expect(refusal('169.254.169.254', 'http://169.254.169.254/')).toBeNull();
  });

  /** A resolver that answers from a table, as dns.lookup with `all` does. */
  const table =
    (names: Record<string, string[]>): Resolve =>
    (hostname, _options, callback) =>
      names[hostname] ? callback(null, names[hostname].map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 }))) : callback(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }), []);

  const lookupOf = (allow: string, resolve: Resolve) => {
    const lookup = new WebhookAllow(WebhookAllowList.parse(allow)).guardedLookup(resolve);
    return {
      all: (host: string) => new Promise<unknown>((res) => lookup(host, { all: true }, (err, addresses) => res(err ?? addresses))),
      one: (host: string) => new Promise<unknown>((res) => lookup(host, {}, (err, address, family) => res(err ?? [address, family]))),
    };
  };

  it('at connect time refuses a name unless every address it resolves to is allowed', async () => {
    const names = table({ 'public.test': ['93.184.216.34', '2606:2800:220:1::1'], 'rebound.test': ['127.0.0.1'], 'mixed.test': ['93.184.216.34', '10.0.0.1'], 'mapped.test': ['::ffff:169.254.169.254'] });
    const byDefault = lookupOf('', names);
    expect(await byDefault.one('public.test')).toEqual(['93.184.216.34', 4]);
    expect(await byDefault.all('public.test')).toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1::1', family: 6 },
    ]);
    for (const host of ['rebound.test', 'mixed.test', 'mapped.test']) {
      const err = await byDefault.all(host);
      expect(err, host).toBeInstanceOf(WebhookRefused);
      expect((err as WebhookRefused).code).toBe('EWEBHOOKREFUSED');
      expect(await byDefault.one(host), host).toBeInstanceOf(WebhookRefused);
    }
    // The resolver's own error passes through; a name that does not resolve is not a refusal.
    expect((await byDefault.one('nowhere.test')) as { code: string }).toMatchObject({ code: 'ENOTFOUND' });
    expect(await lookupOf('loopback', names).one('rebound.test')).toEqual(['127.0.0.1', 4]);
    expect(await lookupOf('public,private', names).one('mixed.test')).toEqual(['93.184.216.34', 4]);
  });
});
