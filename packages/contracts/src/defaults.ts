/**
 * Where each Kneeboard process listens by default, and the addresses the others use to reach it.
 * The one home of these numbers: the API's `PORT`, the web app's `KNEEBOARD_API_URL`, every
 * `kneeboard` command's `--api`/`--web` and the demo target's port read them from here. Shell
 * scripts and `scripts/up.mjs` (plain Node, no TypeScript) keep their literal with a comment naming
 * this file. Plain constants, no zod, so any package or browser bundle may import them.
 */
export const DEFAULT_API_PORT = 4000;
export const DEFAULT_WEB_PORT = 3000;
export const DEFAULT_DEMO_TARGET_PORT = 4100;

/** Loopback, not `localhost`: it never resolves to ::1 while the server listens on IPv4 only. */
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_API_URL = `http://${DEFAULT_HOST}:${DEFAULT_API_PORT}`;
export const DEFAULT_WEB_URL = `http://${DEFAULT_HOST}:${DEFAULT_WEB_PORT}`;
