import Link from 'next/link';

export default function RunNotFound() {
  return (
    <div className="panel notice" data-testid="run-not-found">
      <h1>No such run</h1>
      <p className="muted">
        The API knows no run with this id. It may have been made against another Kneeboard API. <Link href="/">All runs</Link>
      </p>
    </div>
  );
}
