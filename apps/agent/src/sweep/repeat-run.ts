import type { SweepConfig } from './config.ts';
import { searchRunTags } from './search-levels.ts';

/**
 * The run one repeat records: the same release, named and tagged as one of a group of repeats
 * (`group` null: the sweep has one run, as given). One agent's sweep and a coordinator's alike.
 */
export function repeatRun(cfg: SweepConfig, repeat: number, group: string | null) {
  // A --search run says so in its tags (the API replays the search from them for the live page); the user's own tags win.
  const run = { ...cfg.run, tags: { ...searchRunTags(cfg), ...cfg.run.tags }, load_model: cfg.loadModel, parameter: cfg.parameter, agent_host: cfg.agentHost, agent_cores: cfg.agentCores };
  if (group === null) return run;
  const label = `repeat ${repeat + 1} of ${cfg.repeat}`;
  return { ...run, name: cfg.run.name ? `${cfg.run.name} (${label})` : label, tags: { ...run.tags, repeat_group: group, repeat: `${repeat + 1}/${cfg.repeat}` } };
}
