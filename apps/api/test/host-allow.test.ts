import { describe, expect, it } from 'vitest';
import { classifyAddress, entryMatches, hostAndPort, type AddressKind } from '../src/services/host-allow.ts';

// The address kinds the outbound allow-lists (KNEEBOARD_WEBHOOK_ALLOW, KNEEBOARD_PROMETHEUS_ALLOW) tell apart: each range's edges.
const TABLE: Array<[string, AddressKind | null]> = [
  // IPv4 loopback 127/8
  ['127.0.0.1', 'loopback'],
  ['127.255.255.255', 'loopback'],
  ['126.255.255.255', 'public'],
  ['128.0.0.0', 'public'],
  // RFC 1918
  ['10.0.0.0', 'private'],
  ['10.255.255.255', 'private'],
  ['9.255.255.255', 'public'],
  ['11.0.0.0', 'public'],
  ['172.16.0.0', 'private'],
  ['172.31.255.255', 'private'],
  ['172.15.255.255', 'public'],
  ['172.32.0.0', 'public'],
  ['192.168.0.0', 'private'],
  ['192.168.255.255', 'private'],
  ['192.167.255.255', 'public'],
  ['192.169.0.0', 'public'],
  // link-local, cloud metadata
  ['169.254.169.254', 'link-local'],
  ['169.254.0.0', 'link-local'],
  ['169.253.255.255', 'public'],
  ['169.255.0.0', 'public'],
  // CGNAT 100.64/10
  ['100.64.0.0', 'cgnat'],
  ['100.127.255.255', 'cgnat'],
  ['100.63.255.255', 'public'],
  ['100.128.0.0', 'public'],
  // unspecified 0/8, multicast 224/4, reserved 240/4
  ['0.0.0.0', 'unspecified'],
  ['0.255.255.255', 'unspecified'],
  ['1.0.0.0', 'public'],
  ['223.255.255.255', 'public'],
  ['224.0.0.0', 'multicast'],
  ['239.255.255.255', 'multicast'],
  ['240.0.0.0', 'reserved'],
  ['255.255.255.255', 'reserved'],
  ['8.8.8.8', 'public'],
  // IPv6
  ['::1', 'loopback'],
  ['[::1]', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['::', 'unspecified'],
  ['::2', 'reserved'],
  ['fc00::', 'private'],
  ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'private'],
  ['fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'public'],
  ['fe00::', 'public'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['febf:ffff::', 'link-local'],
  ['fec0::1', 'reserved'],
  ['fe7f:ffff::', 'public'],
  ['ff02::1', 'multicast'],
  ['2001:4860:4860::8888', 'public'],
  ['2606:4700::1111', 'public'],
  ['100::1', 'reserved'],
  // IPv4 inside IPv6: mapped, as the URL parser writes it too, NAT64, 6to4
  ['::ffff:127.0.0.1', 'loopback'],
  ['[::ffff:7f00:1]', 'loopback'],
  ['::ffff:10.1.2.3', 'private'],
  ['::ffff:169.254.169.254', 'link-local'],
  ['::ffff:a9fe:a9fe', 'link-local'],
  ['::ffff:0.0.0.0', 'unspecified'],
  ['::ffff:8.8.8.8', 'public'],
  ['64:ff9b::127.0.0.1', 'loopback'],
  ['64:ff9b::8.8.8.8', 'public'],
  ['2002:7f00:1::', 'loopback'],
  ['2002:0808:0808::', 'public'],
  ['::127.0.0.1', 'reserved'],
  // not addresses
  ['localhost', null],
  ['127.0.0.1.evil.example', null],
  ['hooks.slack.com', null],
  ['', null],
];

describe('classifyAddress', () => {
  it.each(TABLE)('%s is %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it('sees through the notations the URL parser normalises (decimal, hex, short IPv4; long IPv6)', () => {
    const kindOf = (url: string) => classifyAddress(hostAndPort(new URL(url)).host);
    expect(kindOf('http://2130706433/')).toBe('loopback');
    expect(kindOf('http://0x7f.1/')).toBe('loopback');
    expect(kindOf('http://0/')).toBe('unspecified');
    expect(kindOf('http://[0:0:0:0:0:ffff:127.0.0.1]/')).toBe('loopback');
    expect(kindOf('http://[0000::0001]:8080/')).toBe('loopback');
  });
});

describe('entryMatches', () => {
  it('a host entry matches any port, host:port only that one, both in the URL parser’s notation', () => {
    const m = (entry: string, url: string) => {
      const { host, port } = hostAndPort(new URL(url));
      return entryMatches(entry, host, port);
    };
    expect(m('hooks.lan', 'http://hooks.lan:8080/x')).toBe(true);
    expect(m('hooks.lan:8080', 'http://hooks.lan:8080/x')).toBe(true);
    expect(m('hooks.lan:8080', 'http://hooks.lan:8081/x')).toBe(false);
    expect(m('hooks.lan:443', 'https://hooks.lan/x')).toBe(true);
    expect(m('hooks.lan', 'http://hooks.lan.evil.example/x')).toBe(false);
    expect(m('[fd00::0001]:9000', 'http://[fd00::1]:9000/')).toBe(true);
    expect(m('[fd00::1]', 'http://[fd00::2]/')).toBe(false);
    expect(m('10.0.0.5', 'http://10.0.0.5:1/')).toBe(true);
  });
});
