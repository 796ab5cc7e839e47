import { RetryCountdown } from './RetryCountdown.tsx';

/**
 * The API is down or answered nonsense: say which URL was tried and how to point the dashboard
 * elsewhere, and keep trying (RetryCountdown) so the page appears by itself once the API is up.
 */
export function ApiErrorNotice({ message, apiUrl, level = 1 }: { message: string; apiUrl: string; level?: 1 | 2 }) {
  // The page's title when it stands alone; a section heading under a page that has its own <h1>.
  const Heading = level === 1 ? 'h1' : 'h2';
  return (
    <div className="panel notice error" data-testid="api-error">
      <Heading>The Kneeboard API is not answering</Heading>
      <p>{message}</p>
      <p className="muted">
        The dashboard reads from <code>{apiUrl}</code>. Start the API (<code>./scripts/start.sh</code> starts everything) or set{' '}
        <code>KNEEBOARD_API_URL</code> when starting this app.
      </p>
      <RetryCountdown />
    </div>
  );
}
