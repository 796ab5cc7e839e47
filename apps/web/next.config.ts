import type { NextConfig } from 'next';

const nextConfig: NextConfig = {
  // Workspace packages export TypeScript source (with `.ts` import specifiers): compile them here.
  transpilePackages: ['@kneeboard/api-client', '@kneeboard/chart-prep', '@kneeboard/contracts', '@kneeboard/svg-charts'],
  poweredByHeader: false,
  // unauthorized() / forbidden(): a missing, revoked or too narrow token gets its own page and status.
  experimental: { authInterrupts: true },
};

export default nextConfig;
