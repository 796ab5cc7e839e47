import type { ReactNode } from 'react';

/** The frame around one chart: title, what the axes mean, controls on the right, and an empty state. */
export function ChartPanel({
  title,
  subtitle,
  controls,
  legend,
  footnote,
  empty,
  testId,
  className,
  children,
}: {
  title: string;
  subtitle?: ReactNode;
  controls?: ReactNode;
  legend?: ReactNode;
  footnote?: ReactNode;
  /** When set, shown instead of the chart (no data yet, or nothing drawable). */
  empty?: ReactNode;
  testId: string;
  className?: string;
  children: ReactNode;
}) {
  return (
    <section className={`panel chart-panel${className ? ` ${className}` : ''}`} data-testid={testId}>
      <header className="chart-head">
        <div>
          <h2>{title}</h2>
          {subtitle ? <div className="chart-sub">{subtitle}</div> : null}
        </div>
        {controls ? <div className="chart-controls">{controls}</div> : null}
      </header>
      {legend ? <div className="chart-legend">{legend}</div> : null}
      <div className="chart-body">{empty ? <div className="chart-empty">
            {/* One block, so the text and its <code> keep their spaces (the box is a flex container). */}
            <div>{empty}</div>
          </div> : children}</div>
      {footnote ? <p className="chart-foot">{footnote}</p> : null}
    </section>
  );
}

export function Segmented<T extends string>({
  label,
  value,
  options,
  onChange,
  testId,
}: {
  label: string;
  value: T;
  options: ReadonlyArray<{ value: T; label: string }>;
  onChange: (value: T) => void;
  testId?: string;
}) {
  return (
    <span className="control" data-testid={testId}>
      <span className="control-label">{label}</span>
      <span className="segmented" role="group" aria-label={label}>
        {options.map((o) => (
          <button key={o.value} type="button" aria-pressed={o.value === value} onClick={() => onChange(o.value)}>
            {o.label}
          </button>
        ))}
      </span>
    </span>
  );
}

/** The two choices of a scale control (the level axis, the latency axis). */
export const SCALE_OPTIONS = [
  { value: 'linear', label: 'linear' },
  { value: 'log', label: 'log' },
] as const;
