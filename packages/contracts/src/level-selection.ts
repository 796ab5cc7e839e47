import { z } from 'zod';

/**
 * Which levels a view shows, as its URL writes them (`levels=`): the one reader and writer of that
 * syntax, shared by the web app's pages and the API's embeddable SVGs so an embed and its page
 * always show the same levels.
 *
 *   `4-64`  from 4 to 64, inclusive       `4-`  from 4 up       `-64`  up to 64
 *   `1,2,4` exactly these levels (a single `8` is a list of one)
 *
 * Every number is a level a run can have: positive (`Level` in common.ts), so `0` is refused, as
 * is a range whose start is above its end. A list is kept sorted without repeats, so one
 * selection has one spelling.
 */
export type LevelSelection = { kind: 'range'; min: number | null; max: number | null } | { kind: 'list'; levels: number[] };

/**
 * A positive decimal (`0.5`, `8`, `04`), never zero (`0`, `0.00`): the syntax of a `Level`. Each
 * part can match a character only one way (`0+\.0*[1-9]`, not `\d*[1-9]`), so a hostile query
 * string costs linear time, not quadratic.
 */
const LEVEL = String.raw`(?:0*[1-9]\d*(?:\.\d+)?|0+\.0*[1-9]\d*)`;

/** The whole syntax; ranges need at least one end. The OpenAPI document states this pattern. */
export const LEVEL_SELECTION_PATTERN = `^(?:${LEVEL}-(?:${LEVEL})?|-${LEVEL}|${LEVEL}(?:,${LEVEL})*)$`;
const SYNTAX = new RegExp(LEVEL_SELECTION_PATTERN);

export const LEVEL_SELECTION_HINT = 'a range such as 4-64, 4- or -64, or a list such as 1,2,4, of levels above 0';

/** The selection a `levels=` text means; null when it cannot be read (bad syntax, a 0, start above end). */
export function parseLevelSelection(text: string): LevelSelection | null {
  if (!SYNTAX.test(text)) return null;
  if (text.includes('-')) {
    const [lo = '', hi = ''] = text.split('-');
    const min = lo === '' ? null : Number(lo);
    const max = hi === '' ? null : Number(hi);
    return min !== null && max !== null && min > max ? null : { kind: 'range', min, max };
  }
  return { kind: 'list', levels: [...new Set(text.split(',').map(Number))].sort((a, b) => a - b) };
}

/** The `levels=` text of a selection; parsing it gives the selection back. */
export function formatLevelSelection(selection: LevelSelection): string {
  if (selection.kind === 'list') return selection.levels.map(String).join(',');
  return `${selection.min ?? ''}-${selection.max ?? ''}`;
}

/** Whether a level is shown under the selection (none: every level is). */
export function levelSelectionContains(selection: LevelSelection | null | undefined, level: number): boolean {
  if (selection === null || selection === undefined) return true;
  if (selection.kind === 'list') return selection.levels.includes(level);
  return (selection.min === null || level >= selection.min) && (selection.max === null || level <= selection.max);
}

/**
 * A `levels=` query parameter, read into a selection. The pattern states the syntax; a range whose
 * start is above its end is the one rule it cannot state, refused here with its own message.
 */
export const LevelSelectionParam = z
  .string()
  .regex(SYNTAX, LEVEL_SELECTION_HINT)
  .transform((text, ctx): LevelSelection => {
    const selection = parseLevelSelection(text);
    if (selection === null) {
      ctx.addIssue({ code: 'custom', message: `the range's start is above its end: ${LEVEL_SELECTION_HINT}` });
      return z.NEVER;
    }
    return selection;
  });
