import { k6Tool, type K6LatencyMetric } from './k6.ts';
import type { ToolSpec } from './records.ts';
import { vegetaTool } from './vegeta.ts';
import { ohaTool } from './oha.ts';
import { jmeterTool } from './jmeter.ts';
import { gatlingTool } from './gatling.ts';

export const IMPORT_TOOLS = ['k6', 'vegeta', 'oha', 'jmeter', 'gatling'] as const;
export type ImportToolName = (typeof IMPORT_TOOLS)[number];

/** Per-tool choices that change what is read. */
export interface ToolVariant {
  latencyMetric: K6LatencyMetric;
}

export function toolSpec(name: string, variant: ToolVariant): ToolSpec {
  switch (name as ImportToolName) {
    case 'k6':
      return k6Tool(variant.latencyMetric);
    case 'vegeta':
      return vegetaTool;
    case 'oha':
      return ohaTool;
    case 'jmeter':
      return jmeterTool;
    case 'gatling':
      return gatlingTool;
  }
  throw new Error(`no importer for ${name}`);
}
