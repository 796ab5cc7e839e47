import { MAX_EVENT_NAME_LENGTH, textProblem } from '@kneeboard/contracts';
import type { IssueList } from './batch-error.ts';
import type { EventNames } from './columns.ts';

/** Why `name` cannot be an event's name, or null: the label rules (`textProblem`) and the length. */
export function eventNameProblem(name: string): string | null {
  if (name.length > MAX_EVENT_NAME_LENGTH) {
    return `must be at most ${MAX_EVENT_NAME_LENGTH} characters (got ${name.length}): name the endpoint (GET /users/{id}), not each URL`;
  }
  return textProblem(name);
}

/**
 * Builds a batch's name column from one name per request, checking each distinct name once (a
 * mix has a few names over 100,000 requests): a Map lookup per request, the rules per name.
 * Code 0 is '' (no name).
 */
export class NameDictionary {
  private readonly codes = new Map<string, number>([['', 0]]);
  private readonly values: string[] = [''];
  readonly index: Uint32Array;

  constructor(n: number) {
    this.index = new Uint32Array(n);
  }

  /** Request i is named `name`; a bad name is an issue at its first request (later ones are not repeated). */
  set(i: number, name: string, issues: IssueList): void {
    const known = this.codes.get(name);
    if (known !== undefined) {
      if (known > 0) this.index[i] = known;
      return;
    }
    const code = this.codeOf(name);
    if (typeof code === 'string') issues.add(`name[${i}]`, code);
    else if (code > 0) this.index[i] = code;
  }

  /** The name's code (0 for ''), added if new; or why it cannot be a name (then it stays refused). */
  codeOf(name: string): number | string {
    const known = this.codes.get(name);
    if (known !== undefined) return known >= 0 ? known : (eventNameProblem(name) ?? '');
    const problem = eventNameProblem(name);
    this.codes.set(name, problem === null ? this.values.push(name) - 1 : -1);
    return problem ?? this.codes.get(name)!;
  }

  /** The column, or undefined when no request has a name: such a batch is stored as before names existed. */
  result(): EventNames | undefined {
    return this.values.length > 1 ? { values: this.values, index: this.index } : undefined;
  }
}

/** The distinct non-empty names a batch uses (what a run's cap counts). */
export function distinctNames(names: EventNames | undefined): Set<string> {
  const out = new Set<string>();
  if (!names) return out;
  const used = new Uint8Array(names.values.length);
  for (let i = 0; i < names.index.length; i++) used[names.index[i]!] = 1;
  for (let k = 0; k < used.length; k++) if (used[k] && names.values[k] !== '') out.add(names.values[k]!);
  return out;
}
