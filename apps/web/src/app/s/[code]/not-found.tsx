import Link from 'next/link';

export default function ShortLinkNotFound() {
  return (
    <div className="panel notice" data-testid="link-not-found">
      <h1>This short link leads nowhere</h1>
      <p>
        No view is stored under this code. It may have been mistyped, or made with another Kneeboard API. Short links look like{' '}
        <code>/s/3fZk81Qa</code>.
      </p>
      <p className="muted">
        <Link href="/">All runs</Link> · <Link href="/services">Services and their releases</Link>
      </p>
    </div>
  );
}
