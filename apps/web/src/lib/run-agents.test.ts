import { describe, expect, it } from 'vitest';
import { agentRows } from './run-agents.ts';

const agent = (agent_id: string, state: 'joined' | 'left' | 'lost', stored: number, recorded: number | null) => ({
  agent_id,
  host: 'h',
  cores: 2,
  clock_offset_ms: 1.5,
  clock_rtt_ms: 0.4,
  joined_at: 1,
  state,
  recorded,
  stored,
});
const part = (index: number, agent_id: string, outcome: 'ok' | 'lost' | 'behind', startedLate: number | null, limited: boolean | null = false) => ({
  index,
  level: 30,
  agent_id,
  load: 10,
  barrier_at: 1_000,
  started_at: startedLate === null ? null : 1_000 + startedLate,
  ended_at: null,
  events: null,
  outcome,
  generator_limited: limited,
  reason: null,
});

describe('agentRows', () => {
  it('sums each agent’s steps: how many, how many went wrong, its latest start after the barrier', () => {
    const rows = agentRows({
      agents: [agent('a', 'left', 100, 100), agent('b', 'lost', 40, null)],
      steps: [part(0, 'a', 'ok', 2), part(1, 'a', 'ok', 7, true), part(0, 'b', 'ok', 3), part(1, 'b', 'lost', null, null)],
    });
    expect(rows).toEqual([
      { agentId: 'a', host: 'h', state: 'left', stored: 100, recorded: 100, clockOffsetMs: 1.5, clockRttMs: 0.4, steps: 2, lostOrBehind: 0, generatorLimited: 1, worstStartMs: 7 },
      { agentId: 'b', host: 'h', state: 'lost', stored: 40, recorded: null, clockOffsetMs: 1.5, clockRttMs: 0.4, steps: 2, lostOrBehind: 1, generatorLimited: 0, worstStartMs: 3 },
    ]);
  });

  it('has no rows for a run of one agent', () => {
    expect(agentRows({ agents: [], steps: [] })).toEqual([]);
  });
});
