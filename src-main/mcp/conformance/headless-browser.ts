import { isLoopbackHostname } from '@shared/contracts/model-url';

/** Redirect hops a headless visit follows before giving up. */
const MAX_HOPS = 5;

/**
 * Stands in for the person at the browser in tests: visits the authorization page of an
 * authorization server that approves on its own (the conformance suite's, or a test's) and follows
 * its redirects back to Steward's loopback redirect, as a browser would. Loopback addresses only.
 */
export async function headlessBrowser(authorizationUrl: URL): Promise<void> {
  let url = authorizationUrl;
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    if (!isLoopbackHostname(url.hostname)) throw new Error(`the headless browser visits loopback addresses only, not ${url.host}`);
    const response = await fetch(url, { redirect: 'manual' });
    await response.body?.cancel().catch(() => undefined);
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || location === null) {
      if (!response.ok) throw new Error(`the authorization page answered HTTP ${response.status}`);
      return;
    }
    url = new URL(location, url);
  }
  throw new Error(`the authorization page redirected more than ${MAX_HOPS} times`);
}
