import { PrivacyPolicy, LOCAL_ONLY } from '@shared/policy/privacy';
import type { StewardDb } from './db';

/** The workspace privacy policy; local only until someone allows a host. */
export async function getPrivacy(db: StewardDb): Promise<PrivacyPolicy> {
  const row = await db.settings.get('privacy');
  const parsed = PrivacyPolicy.safeParse(row?.value);
  return parsed.success ? parsed.data : LOCAL_ONLY;
}

export async function setPrivacy(db: StewardDb, policy: PrivacyPolicy): Promise<void> {
  await db.settings.put({ key: 'privacy', value: PrivacyPolicy.parse(policy) });
}

/** `api.example.com`, `host:8080`: what a person types, normalised; undefined when it is not a host. */
export function normaliseHost(input: string): string | undefined {
  const trimmed = input.trim().toLowerCase().replace(/^[a-z][a-z0-9+.-]*:\/\//, '').replace(/\/.*$/, '');
  return /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*(?::\d{1,5})?$|^\[[0-9a-f:]+\](?::\d{1,5})?$/.test(trimmed)
    ? trimmed
    : undefined;
}
