import { describe, expect, it } from 'vitest';
import { confirmationFor, confirmed } from './revoke-confirm.ts';

describe('revoking the bootstrap admin token takes its name typed', () => {
  it('asks for KNEEBOARD_ADMIN_TOKEN on env_admin only', () => {
    expect(confirmationFor({ id: 'env_admin', name: 'KNEEBOARD_ADMIN_TOKEN' })).toBe('KNEEBOARD_ADMIN_TOKEN');
    expect(confirmationFor({ id: '3k9x0q2m7a', name: 'KNEEBOARD_ADMIN_TOKEN' })).toBeNull();
    expect(confirmationFor({ id: 'a1b2c3d4e5', name: 'first admin (generated at start-up)' })).toBeNull();
  });

  it('accepts the exact name only', () => {
    expect(confirmed('KNEEBOARD_ADMIN_TOKEN', ' KNEEBOARD_ADMIN_TOKEN ')).toBe(true);
    for (const typed of ['', 'kneeboard_admin_token', 'env_admin', 'KNEEBOARD_ADMIN', 'yes']) expect(confirmed('KNEEBOARD_ADMIN_TOKEN', typed)).toBe(false);
  });
});
