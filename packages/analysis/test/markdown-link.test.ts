import { describe, expect, it } from 'vitest';
import { markdownLinkTarget } from '../src/markdown-link.ts';

describe('markdownLinkTarget', () => {
  it('allows http(s) only', () => {
    expect(markdownLinkTarget('javascript:alert(1)//')).toBeNull();
    expect(markdownLinkTarget('data:text/html,<script>alert(1)</script>')).toBeNull();
    expect(markdownLinkTarget('not a url')).toBeNull();
    expect(markdownLinkTarget('https://kb.example/compare?base=a&head=b')).toBe('https://kb.example/compare?base=a&head=b');
  });

  it('encodes what would end the link', () => {
    expect(markdownLinkTarget('http://kb.example/x) [y](javascript:alert(1)')).toBe('http://kb.example/x%29%20[y]%28javascript:alert%281%29');
  });
});
