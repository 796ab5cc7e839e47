'use server';

/**
 * Server actions of a service's webhooks section. Next.js refuses a server action whose Origin is
 * not this host; the API checks the credential's scope (write or admin, its own service).
 */
import { CreateWebhookBody, ENDPOINTS, WebhookId, type WebhookDelivery } from '@kneeboard/contracts';
import { revalidatePath } from 'next/cache';
import { callWithCredential } from '../../../lib/credential-call.ts';
import { requestCredential } from '../../../lib/server-credentials.ts';

export type AddWebhookState = { error?: string; added?: string };

const servicePath = (service: string) => `/services/${encodeURIComponent(service)}`;

export async function addWebhookAction(service: string, _prev: AddWebhookState, form: FormData): Promise<AddWebhookState> {
  const secret = String(form.get('secret') ?? '').trim();
  const description = String(form.get('description') ?? '').trim();
  const events = form.getAll('events').map(String);
  const body = CreateWebhookBody.safeParse({
    url: String(form.get('url') ?? '').trim(),
    format: form.get('format') ?? 'json',
    events,
    threshold_pct: Number(form.get('threshold_pct') ?? 5),
    ...(secret ? { secret } : {}),
    ...(description ? { description } : {}),
  });
  if (!body.success) return { error: body.error.issues.map((i) => `${i.path.join('.') || 'webhook'}: ${i.message}`).join('; ') };
  const res = await callWithCredential(ENDPOINTS.createWebhook, { params: { service }, body: body.data }, await requestCredential());
  if (!res.ok) return { error: res.message };
  revalidatePath(servicePath(service));
  return { added: res.value.url };
}

export async function removeWebhookAction(service: string, form: FormData): Promise<void> {
  const id = WebhookId.safeParse(form.get('id'));
  if (id.success) await callWithCredential(ENDPOINTS.deleteWebhook, { params: { service, webhook: id.data } }, await requestCredential());
  revalidatePath(servicePath(service));
}

export type TestWebhookState = { error?: string; delivery?: WebhookDelivery };

export async function testWebhookAction(service: string, id: string, _prev: TestWebhookState): Promise<TestWebhookState> {
  const parsed = WebhookId.safeParse(id);
  if (!parsed.success) return { error: 'No such webhook.' };
  const res = await callWithCredential(ENDPOINTS.testWebhook, { params: { service, webhook: parsed.data } }, await requestCredential());
  revalidatePath(servicePath(service));
  return res.ok ? { delivery: res.value } : { error: res.message };
}
