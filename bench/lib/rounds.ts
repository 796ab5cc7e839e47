import { loadAverage } from './process-cpu.ts';

export interface RoundTool<R> {
  name: string;
  run: () => Promise<R>;
}

export type RoundSample<R> = R & { tool: string; round: number; load: number };

/**
 * Runs every tool once per round, the order rotated each round so no tool always runs right after
 * another (these machines are noisy: ratios within a round hold, absolute times do not). A tool
 * that fails is reported and left out of that round; `describe` prints one line per result.
 */
export async function runRounds<R>(tools: ReadonlyArray<RoundTool<R>>, rounds: number, describe: (r: R) => string): Promise<Array<RoundSample<R>>> {
  const samples: Array<RoundSample<R>> = [];
  for (let round = 0; round < rounds; round++) {
    const order = tools.map((_, i) => tools[(i + round) % tools.length]!);
    for (const t of order) {
      const load = loadAverage();
      try {
        const r = await t.run();
        samples.push({ ...r, tool: t.name, round, load });
        console.log(`round ${round + 1} ${t.name}: ${describe(r)} (load ${load})`);
      } catch (err) {
        console.log(`round ${round + 1} ${t.name}: FAILED ${(err as Error).message.slice(0, 300)}`);
      }
    }
  }
  return samples;
}
