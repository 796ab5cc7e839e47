import type { SweepConfig } from './config.ts';

/**
 * The run one repeat records: the same release, named and tagged as one of a group of repeats
 * (`group` null: the sweep has one run, as given). One agent's sweep and a coordinator's alike.
 */
export function repeatRun(cfg: SweepConfig, repeat: number, group: string | null) {
  const run = { ...cfg.run, load_model: cfg.loadModel, parameter: cfg.parameter, agent_host: cfg.agentHost, agent_cores: cfg.agentCores };
  if (group === null) return run;
  const label = `repeat ${repeat + 1} of ${cfg.repeat}`;
  return { ...run, name: cfg.run.name ? `${cfg.run.name} (${label})` : label, tags: { ...cfg.run.tags, repeat_group: group, repeat: `${repeat + 1}/${cfg.repeat}` } };
}
