// Stands in for `k6 run --out json=<out>` where k6 is not installed: writes the lines of a recorded
// real k6 run (k6's own JSON output) to stdout or to a file over a few seconds, as k6 writes them
// while it runs, then exits. Usage: node replay-k6.mjs <sample.json> <out: - | path> <duration ms>
import { appendFileSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

const [sample, out, durationMs] = process.argv.slice(2);
const lines = readFileSync(sample, 'utf8').split('\n').filter(Boolean);
const CHUNKS = 20;
const per = Math.ceil(lines.length / CHUNKS);
for (let i = 0; i < lines.length; i += per) {
  const text = `${lines.slice(i, i + per).join('\n')}\n`;
  if (out === '-') await new Promise((resolve) => process.stdout.write(text, resolve));
  else appendFileSync(out, text);
  await sleep(Number(durationMs) / CHUNKS);
}
