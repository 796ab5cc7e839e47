import { describe, expect, it } from 'vitest';
import { escapeMarkdownText, markdownLinkTarget } from './markdown-text.ts';

describe('escapeMarkdownText', () => {
  it('makes HTML inert', () => {
    expect(escapeMarkdownText('<script>alert(1)</script>')).toBe('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(escapeMarkdownText('<img src=x onerror=alert(1)>')).not.toMatch(/</);
    expect(escapeMarkdownText('a & b')).toBe('a &amp; b');
  });

  it('keeps a table cell one cell and a line one line', () => {
    expect(escapeMarkdownText('a|b')).toBe('a\\|b');
    expect(escapeMarkdownText('one\ntwo\r\n| x |')).toBe('one two \\| x \\|');
  });

  it('escapes links, images, emphasis and code', () => {
    expect(escapeMarkdownText('[click](javascript:alert(1))')).toBe('\\[click\\](javascript:alert(1))');
    expect(escapeMarkdownText('![x](http://evil.example/t.png)')).toBe('\\!\\[x\\](http://evil.example/t.png)');
    expect(escapeMarkdownText('*bold* _it_ `code` ~~s~~')).toBe('\\*bold\\* \\_it\\_ \\`code\\` \\~\\~s\\~\\~');
  });

  it('escapes a leading heading, list or quote marker but leaves versions alone', () => {
    expect(escapeMarkdownText('# big')).toBe('\\# big');
    expect(escapeMarkdownText('- item')).toBe('\\- item');
    expect(escapeMarkdownText('1. first')).toBe('1\\. first');
    expect(escapeMarkdownText('> quote')).toBe('&gt; quote');
    expect(escapeMarkdownText('v1.6.2-rc.1')).toBe('v1.6.2-rc.1');
    expect(escapeMarkdownText('=HYPERLINK("http://evil.example")')).toBe('\\=HYPERLINK("http://evil.example")');
  });
});

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
