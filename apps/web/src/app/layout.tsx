import type { Metadata } from 'next';
import Link from 'next/link';
import { readOnlyViewer } from '../lib/server-credentials.ts';
import './globals.css';
import './compare.css';
import './review.css';
import './level.css';

// Every page is rendered per request: its scripts carry that request's CSP nonce (see proxy.ts),
// which a page prerendered at build time could not.
export const dynamic = 'force-dynamic';

export const metadata: Metadata = {
  title: { default: 'Kneeboard', template: '%s · Kneeboard' },
  description: 'Live latency-versus-load curves',
};

/** A share link's reader may read only the runs it was made for: no way into lists that would answer 403. */
export default async function RootLayout({ children }: { children: React.ReactNode }) {
  const shared = await readOnlyViewer();
  const brand = (
    <>
      <svg viewBox="0 0 20 20" width="18" height="18" aria-hidden>
        <path d="M2 17 C 8 16, 11 14, 13 9 S 16 3, 18 2" fill="none" stroke="currentColor" strokeWidth="2.2" strokeLinecap="round" />
      </svg>
      Kneeboard
    </>
  );
  return (
    <html lang="en">
      <body>
        <a className="skip-link" href="#content">
          Skip to content
        </a>
        <header className="topbar">
          {shared ? (
            <span className="brand">{brand}</span>
          ) : (
            <Link href="/" className="brand">
              {brand}
            </Link>
          )}
          {shared ? (
            <span className="topnav topnav-shared" data-testid="shared-view">
              shared link · read-only
            </span>
          ) : (
            <nav className="topnav">
              <Link href="/">Runs</Link>
              <Link href="/services">Services</Link>
              <Link href="/tokens">Tokens</Link>
            </nav>
          )}
        </header>
        <main className="page" id="content" tabIndex={-1}>
          {children}
        </main>
      </body>
    </html>
  );
}
