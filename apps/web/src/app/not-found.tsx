import Link from 'next/link';

export default function NotFound() {
  return (
    <div className="panel notice">
      <h2>Page not found</h2>
      <p className="muted">
        <Link href="/">Back to the runs</Link>
      </p>
    </div>
  );
}
