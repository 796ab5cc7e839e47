import type { z } from 'zod';
import { FleetPlanBody } from '@kneeboard/contracts';
import { ImportConfig } from '../import/import-options.ts';
import { SweepFields } from '../sweep/config.ts';
import type { FieldPath } from './sweep-flags.ts';

/**
 * The defaults the sweep and import commands show in --help, read from the schemas that apply
 * them (SweepConfig, ImportConfig; FleetPlanBody for the coordinator's knobs), so the help cannot
 * promise another value than the one used. Commander is given no defaults of their own.
 */

/** A schema's default: what it makes of a missing value (undefined when it has none). */
function defaultOf(schema: z.ZodType): unknown {
  const r = schema.safeParse(undefined);
  return r.success ? r.data : undefined;
}

/** The default of an object schema's field; `request.timeoutMs` reaches into a nested object. */
function fieldDefault(shape: Record<string, z.ZodType>, field: string): unknown {
  const [head, leaf] = field.split('.') as [string, string | undefined];
  const value = defaultOf(shape[head]!);
  return leaf === undefined ? value : (value as Record<string, unknown> | undefined)?.[leaf];
}

export const sweepDefault = (field: FieldPath): unknown => fieldDefault(SweepFields.shape, field);
export const importDefault = (field: keyof typeof ImportConfig.shape): unknown => fieldDefault(ImportConfig.shape, field);

export const fleetDefault = (field: keyof typeof FleetPlanBody.shape): unknown => defaultOf(FleetPlanBody.shape[field]);

/** 10000 → `10s`, 500 → `500ms`, 0 → `0`: a default in milliseconds as --duration and its kin read it. */
export function durationText(ms: number): string {
  if (ms === 0) return '0';
  if (ms % 60_000 === 0 && ms >= 120_000) return `${ms / 60_000}m`;
  return ms % 1_000 === 0 ? `${ms / 1_000}s` : `${ms}ms`;
}

/** As commander prints a default: strings quoted, numbers and lists bare. */
const asCommanderShows = (value: never): string => (typeof value === 'string' ? JSON.stringify(value) : String(value));

/** ` (default: 10s)`, appended to a flag's description; nothing when the field has no default. */
export function withDefault(description: string, value: unknown, show: (v: never) => string = asCommanderShows): string {
  return value === undefined || value === null ? description : `${description} (default: ${show(value as never)})`;
}
