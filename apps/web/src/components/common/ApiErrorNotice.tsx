/** The API is down or answered nonsense: say which URL was tried and how to point the dashboard elsewhere. */
export function ApiErrorNotice({ message, apiUrl }: { message: string; apiUrl: string }) {
  return (
    <div className="panel notice error" data-testid="api-error">
      <h2>The Kneeboard API is not answering</h2>
      <p>{message}</p>
      <p className="muted">
        The dashboard reads from <code>{apiUrl}</code>. Start the API (<code>./scripts/start.sh</code> starts everything) or set{' '}
        <code>KNEEBOARD_API_URL</code> when starting this app.
      </p>
    </div>
  );
}
