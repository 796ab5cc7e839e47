import { describe, expect, it } from 'vitest';
import { isUntrustedCertificate } from '../src/load/target-client.ts';

describe('isUntrustedCertificate (the preflight says "pass --insecure or --ca-file" for these)', () => {
  it("knows Node's certificate codes and the native engine's kind", () => {
    for (const kind of ['DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'CERT_HAS_EXPIRED',
      'ERR_TLS_CERT_ALTNAME_INVALID', 'self-signed certificate', 'certificate not trusted']) {
      expect(isUntrustedCertificate(kind), kind).toBe(true);
    }
  });

  it('leaves other failures and successes alone', () => {
    for (const kind of [null, 'ECONNREFUSED', 'ECONNRESET', 'TLS error', 'HTTP 503', 'no response in time']) {
      expect(isUntrustedCertificate(kind), String(kind)).toBe(false);
    }
  });
});
