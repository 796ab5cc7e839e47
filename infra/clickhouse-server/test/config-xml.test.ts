import { describe, expect, it } from 'vitest';
import { renderConfigXml } from '../src/config-xml.ts';

describe('renderConfigXml', () => {
  it('keeps no query or part log unless asked (benches ask, to see where the server spends its time)', () => {
    const plain = renderConfigXml();
    expect(plain).not.toContain('query_log');
    const logged = renderConfigXml(undefined, { queryLog: true });
    expect(logged).toContain('<query_log><database>system</database><table>query_log</table>');
    expect(logged).toContain('<part_log><database>system</database><table>part_log</table>');
  });

  it('refuses a cluster name that would break the XML', () => {
    expect(() => renderConfigXml({ name: 'a<b', shards: [] })).toThrow(/cluster name/);
  });
});
