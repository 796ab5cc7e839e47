import { cookies } from 'next/headers';
import { credentialOf, type Credential } from './credentials.ts';
import { serverEnv } from './env.ts';

/** This request's credential for the API (see credentials.ts). */
export async function requestCredential(): Promise<Credential> {
  return credentialOf(await cookies(), serverEnv().KNEEBOARD_API_TOKEN);
}
