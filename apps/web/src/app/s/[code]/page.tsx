import { LinkCode, ViewPath } from '@kneeboard/contracts';
import { notFound, redirect } from 'next/navigation';
import { ApiErrorNotice } from '../../../components/common/ApiErrorNotice.tsx';
import { ApiUnavailableError, resolveLink } from '../../../lib/api.ts';

/**
 * A short link: look the code up (ENDPOINTS.getLink) and redirect to the view it stands
 * for. Only paths inside this app are followed (the contract's ViewPath), never another site.
 */
export default async function ShortLinkPage({ params }: { params: Promise<{ code: string }> }) {
  const { code } = await params;
  if (!LinkCode.safeParse(code).success) notFound();
  let path: string | null;
  try {
    path = (await resolveLink(code))?.path ?? null;
  } catch (err) {
    if (err instanceof ApiUnavailableError) return <ApiErrorNotice message={err.message} apiUrl={err.apiUrl} />;
    throw err;
  }
  if (path === null || !ViewPath.safeParse(path).success) notFound();
  redirect(path);
}
