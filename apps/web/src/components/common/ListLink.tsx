import Link from 'next/link';
import type { ReactNode } from 'react';

/**
 * A link to a list page (runs, a service's releases) — plain text for a share link's reader,
 * whose token reads only the runs it was made for: the list would answer 403.
 */
export function ListLink({ href, readOnly, title, className, children }: { href: string; readOnly: boolean; title?: string; className?: string; children: ReactNode }) {
  if (readOnly) return <span className={className}>{children}</span>;
  return (
    <Link href={href} title={title} className={className}>
      {children}
    </Link>
  );
}
