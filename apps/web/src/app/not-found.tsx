import Link from 'next/link';

export default function NotFound() {
  return (
    <div className="panel notice">
      <h1>Page not found</h1>
      <p className="muted">
        <Link href="/">Back to the runs</Link>
      </p>
    </div>
  );
}
