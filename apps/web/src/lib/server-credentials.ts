import { cookies } from 'next/headers';
import { credentialOf, type Credential } from './credentials.ts';
import { serverEnv } from './env.ts';

/** This request's credential for the API (see credentials.ts). */
export async function requestCredential(): Promise<Credential> {
  return credentialOf(await cookies(), serverEnv().KNEEBOARD_API_TOKEN);
}

/**
 * Whether this browser reads through a share link: it may only look, so the pages leave out what
 * would write (labels, notes, new links) rather than offer buttons the API would refuse.
 */
export async function readOnlyViewer(): Promise<boolean> {
  return (await requestCredential()).kind === 'share';
}
