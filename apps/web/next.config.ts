import type { NextConfig } from 'next';

const nextConfig: NextConfig = {
  // Workspace packages export TypeScript source (with `.ts` import specifiers): compile them here.
  transpilePackages: ['@kneeboard/contracts'],
  poweredByHeader: false,
};

export default nextConfig;
