import { InvalidArgumentError } from 'commander';

/** "5%" or "0.05" → 0.05. */
export function parseThreshold(value: string): number {
  const trimmed = value.trim();
  const n = trimmed.endsWith('%') ? Number(trimmed.slice(0, -1)) / 100 : Number(trimmed);
  if (trimmed === '' || !Number.isFinite(n) || n < 0 || n >= 1) throw new InvalidArgumentError('expected a percentage such as 5% (or 0.05).');
  return n;
}
