import { cpus, totalmem } from 'node:os';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface Machine {
  cpu: string;
  cores: number;
  memory_gib: number;
  node: string;
  platform: string;
}

export function machine(): Machine {
  return {
    cpu: cpus()[0]?.model.trim() ?? 'unknown',
    cores: cpus().length,
    memory_gib: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
  };
}

export function quantile(values: number[], p: number): number {
  const xs = [...values].sort((a, b) => a - b);
  if (xs.length === 0) return Number.NaN;
  const h = (xs.length - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, xs.length - 1);
  return (xs[lo] as number) + (h - lo) * ((xs[hi] as number) - (xs[lo] as number));
}

/** Prints rows as an aligned table and writes them, with the machine, to bench/results/<name>.json. */
export function report(name: string, rows: Array<Record<string, string | number>>, extra: Record<string, unknown> = {}): void {
  const headers = Object.keys(rows[0] ?? {});
  const cell = (v: string | number | undefined) => (typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toFixed(2)) : (v ?? ''));
  const widths = headers.map((h) => Math.max(h.length, ...rows.map((r) => cell(r[h]).length)));
  const line = (vals: string[]) => vals.map((v, i) => v.padStart(widths[i] ?? 0)).join('  ');
  console.log(`\n${name}`);
  console.log(line(headers));
  for (const r of rows) console.log(line(headers.map((h) => cell(r[h]))));
  const m = machine();
  console.log(`machine: ${m.cpu}, ${m.cores} cores, ${m.memory_gib} GiB, node ${m.node}`);
  const dir = fileURLToPath(new URL('../results/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}/${name}.json`, `${JSON.stringify({ name, measured_at: new Date().toISOString(), machine: m, rows, ...extra }, null, 2)}\n`);
}
