/** What a coordinator and its agents call (kneeboard sweep --agents, kneeboard agent --join): an ingest token's business. */
export const FLEET_ROUTES = [
  'POST /runs/:id/fleet',
  'GET /runs/:id/fleet',
  'POST /runs/:id/fleet/steps',
  'POST /runs/:id/fleet/close',
  'POST /runs/:id/agents/clock',
  'POST /runs/:id/agents',
  'POST /runs/:id/agents/:agent/next',
  'POST /runs/:id/agents/:agent/heartbeat',
  'POST /runs/:id/agents/:agent/steps',
  'POST /runs/:id/agents/:agent/leave',
  'GET /runs/:id/agents',
] as const;
