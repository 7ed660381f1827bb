import { describe, expect, it } from 'vitest';
import { startLoopbackRedirect } from './loopback-redirect';

/**
 * The loopback redirect of one sign-in can take more than one authorization code: a server that
 * moves to another authorization server part way (SEP-2352) needs a second authorization there.
 * Each code is handed out once, and only codes that arrive after the newest page was opened count.
 */
describe('the loopback redirect', () => {
  it('hands out each arriving code once, in order, and waits for the next one', async () => {
    const redirect = await startLoopbackRedirect();
    try {
      const back = (code: string) => fetch(`${redirect.redirectUrl}?code=${code}&state=${redirect.state}`);
      redirect.opening();
      expect((await back('first')).status).toBe(200);
      expect(await redirect.code(5_000)).toBe('first');
      redirect.opening();
      const second = redirect.code(5_000);
      expect((await back('second')).status).toBe(200);
      expect(await second).toBe('second');
    } finally {
      await redirect.close();
    }
  });

  it('does not count a code that came back for an earlier page (a reloaded tab) once a new page is opened', async () => {
    const redirect = await startLoopbackRedirect();
    try {
      await fetch(`${redirect.redirectUrl}?code=stale&state=${redirect.state}`);
      redirect.opening();
      const next = redirect.code(5_000);
      await fetch(`${redirect.redirectUrl}?code=fresh&state=${redirect.state}`);
      expect(await next).toBe('fresh');
    } finally {
      await redirect.close();
    }
  });

  it('a closed sign-in ends the wait in words', async () => {
    const redirect = await startLoopbackRedirect();
    const waiting = redirect.code(5_000);
    await redirect.close();
    await expect(waiting).rejects.toThrow('the sign-in was closed');
  });
});
