/** 2 = the command line was wrong; 1 = something failed; 130 = stopped with Ctrl-C (128 + SIGINT). */
export const EXIT = { ok: 0, failed: 1, usage: 2, interrupted: 130 } as const;
