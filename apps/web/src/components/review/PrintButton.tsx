'use client';

export function PrintButton() {
  return (
    <button type="button" className="primary" onClick={() => window.print()} data-testid="print">
      Print or save as PDF
    </button>
  );
}
