import type { FieldIssue } from '@kneeboard/contracts';

/** A batch refused as a whole: nothing of it is stored. `field` names the first offending column or entry. */
export class BatchRejected extends Error {
  readonly field: string;
  constructor(readonly issues: FieldIssue[]) {
    const first = issues[0] ?? { field: 'body', message: 'invalid batch' };
    super(`${first.field}: ${first.message}`);
    this.name = 'BatchRejected';
    this.field = first.field;
  }
}

/** A batch can have 100,000 bad entries; the first few name the problem well enough. */
export const MAX_ISSUES = 20;

/** Collects issues up to MAX_ISSUES; `full` tells a loop it can stop looking. */
export class IssueList {
  readonly issues: FieldIssue[] = [];
  add(field: string, message: string): void {
    if (this.issues.length < MAX_ISSUES) this.issues.push({ field, message });
  }
  get full(): boolean {
    return this.issues.length >= MAX_ISSUES;
  }
  get empty(): boolean {
    return this.issues.length === 0;
  }
  throwIfAny(): void {
    if (!this.empty) throw new BatchRejected(this.issues);
  }
}
