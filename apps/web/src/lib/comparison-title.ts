import type { RunDetail } from '@kneeboard/contracts';

/** `fusillade: v1.6.2, k6-v0.52.0 vs v1.6.1` */
export function comparisonTitle(details: ReadonlyArray<RunDetail>, labels: ReadonlyArray<string>): string {
  const services = [...new Set(details.map((d) => d.run.service))];
  const [base, ...heads] = labels;
  return `${services.join(' / ')}: ${heads.join(', ')} vs ${base ?? ''}`;
}
