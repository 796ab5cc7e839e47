import { SUCCESS_STATUS } from '@kneeboard/contracts';

/**
 * The contracts' success rule (SUCCESS_STATUS, status 1–399) as a SQL predicate on a column, so
 * every query counts successes as the agent and the web app do. The two rollup migrations (014,
 * 015) are frozen SQL written with this same text; test/success-status.int.test.ts checks them.
 */
export function successStatusSql(column: string): string {
  return `${column} BETWEEN ${SUCCESS_STATUS.min} AND ${SUCCESS_STATUS.max}`;
}
