import type { IssueList } from './batch-error.ts';
import type { ColumnRule } from './rules.ts';

/**
 * Checks a whole column against its rule in one tight loop; only entries that fail take the slow
 * path that words the issue. NaN marks null: allowed in nullable columns, an issue elsewhere.
 */
export function checkColumn(values: ArrayLike<number>, rule: ColumnRule, name: string, issues: IssueList): void {
  const { min, max, minExclusive, integer, nullable } = rule;
  for (let i = 0; i < values.length; i++) {
    const v = values[i] as number;
    if (v >= min && v <= max && !(minExclusive && v === min) && (!integer || Math.floor(v) === v)) continue;
    if (v !== v) {
      if (nullable) continue;
      issues.add(`${name}[${i}]`, 'must be a number (not null, not NaN)');
    } else if (!Number.isFinite(v)) {
      issues.add(`${name}[${i}]`, 'must be a finite number');
    } else if (v > max || v < min || (minExclusive && v === min)) {
      issues.add(`${name}[${i}]`, rule.describe(v));
    } else {
      issues.add(`${name}[${i}]`, 'must be an integer');
    }
    if (issues.full) return;
  }
}
