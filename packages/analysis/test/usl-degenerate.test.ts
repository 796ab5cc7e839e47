import { UslFit } from '@kneeboard/contracts';
import { describe, expect, it } from 'vitest';
import { fitUsl } from '../src/usl-fit.ts';

describe('a USL fit of a degenerate curve', () => {
  // The curve of a JMeter XML import (apps/agent/test/fixtures/jmeter-ramp.xml.jtl): one request at
  // level 1 in a zero-length window, then a slow ramp. The fit put N* at 0.39 and its peak QPS at
  // −171, which the run-detail contract refused, so GET /runs/{id} answered 500.
  const curve = [
    { level: 1, qps: 250 },
    { level: 2, qps: 1.38 },
    { level: 3, qps: 20.9 },
    { level: 4, qps: 40.7 },
  ];

  it('never reports a peak below one client or a non-positive peak QPS', () => {
    const fit = fitUsl(curve);
    expect(fit).not.toBeNull();
    if (fit!.peak_level !== null) expect(fit!.peak_level).toBeGreaterThanOrEqual(1);
    if (fit!.peak_qps !== null) expect(fit!.peak_qps).toBeGreaterThan(0);
  });

  it('gives a fit the run-detail contract accepts', () => {
    expect(UslFit.safeParse(fitUsl(curve)).success).toBe(true);
  });
});
