import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Where the authorization server sends the browser back to: a one-shot listener on 127.0.0.1. */
export interface LoopbackRedirect {
  readonly redirectUrl: string;
  readonly state: string;
  /**
   * The next authorization code, once the browser arrives with it (and the right state). One sign-in
   * may need two (the server moved to another authorization server part way, SEP-2352): each call
   * takes the next code that arrived since the newest authorization page was opened.
   */
  code(timeoutMs: number): Promise<string>;
  /** A new authorization page is being opened: what arrived for an earlier one (a reloaded tab) no longer counts. */
  opening(): void;
  close(): Promise<void>;
}

export class SignInFailedError extends Error {
  override readonly name = 'SignInFailedError';

  constructor(
    message: string,
    /** The authorization server said the person refused (`error=access_denied`, RFC 6749 §4.1.2.1). */
    readonly denied = false,
  ) {
    super(message);
  }
}

const PAGE = (text: string) =>
  `<!doctype html><meta charset="utf-8"><title>Steward</title><body style="font:16px system-ui;margin:3em">${text}</body>`;

/**
 * Checks the authorization response's `iss` (undefined when absent) before its code is accepted:
 * a refusal in words stops the sign-in there (issuer-check.ts, RFC 9207), so the code is never exchanged.
 */
export type IssuerCheck = (iss: string | undefined) => string | undefined;

/**
 * Listens on 127.0.0.1 (RFC 8252 §7.3: a loopback redirect, never a name a resolver could change)
 * for `/callback?code=…&state=…`. Only the request carrying this sign-in's state counts; the page
 * shown never repeats the code. `preferredPort` reuses the port a registered client knows.
 */
export async function startLoopbackRedirect(preferredPort?: number, checkIssuer?: IssuerCheck): Promise<LoopbackRedirect> {
  const state = randomBytes(16).toString('hex');
  /** Codes arrived and not yet taken, a failure not yet reported, and who waits for either. */
  const arrivedCodes: string[] = [];
  let failure: Error | undefined;
  let closed = false;
  const waiting: Array<{ resolve: (code: string) => void; reject: (error: Error) => void }> = [];
  const settle = {
    resolve(code: string) {
      const waiter = waiting.shift();
      if (waiter) waiter.resolve(code);
      else arrivedCodes.push(code);
    },
    reject(error: Error) {
      const waiter = waiting.shift();
      if (waiter) waiter.reject(error);
      else failure = error;
    },
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') {
      res.writeHead(404).end();
      return;
    }
    if (url.searchParams.get('state') !== state) {
      res.writeHead(400, { 'content-type': 'text/html' }).end(PAGE('This sign-in link is not the one Steward is waiting for.'));
      return;
    }
    const error = url.searchParams.get('error');
    const code = url.searchParams.get('code');
    if (error !== null || code === null) {
      const why = (url.searchParams.get('error_description') ?? error ?? 'no code').slice(0, 200);
      res.writeHead(400, { 'content-type': 'text/html' }).end(PAGE('Sign-in was not completed. You can close this tab.'));
      settle.reject(new SignInFailedError(`the authorization server did not sign you in (${why})`, error === 'access_denied'));
      return;
    }
    const refusal = checkIssuer?.(url.searchParams.get('iss') ?? undefined);
    if (refusal !== undefined) {
      res.writeHead(400, { 'content-type': 'text/html' }).end(PAGE(`${escapeHtml(refusal)} You can close this tab.`));
      settle.reject(new SignInFailedError(refusal));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE('Signed in. You can close this tab and return to Steward.'));
    settle.resolve(code);
  });
  const port = await listen(server, preferredPort).catch(() => listen(server, 0));
  const redirectUrl = `http://127.0.0.1:${port}/callback`;

  return {
    redirectUrl,
    state,
    opening() {
      arrivedCodes.length = 0;
      failure = undefined;
    },
    code(timeoutMs) {
      const ready = arrivedCodes.shift();
      if (ready !== undefined) return Promise.resolve(ready);
      if (failure !== undefined) {
        const error = failure;
        failure = undefined;
        return Promise.reject(error);
      }
      if (closed) return Promise.reject(new SignInFailedError('the sign-in was closed'));
      return new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => {
          const at = waiting.indexOf(waiter);
          if (at >= 0) waiting.splice(at, 1);
          reject(new SignInFailedError(`no answer from the browser within ${Math.round(timeoutMs / 1000)} s`));
        }, timeoutMs);
        const waiter = {
          resolve: (code: string) => {
            clearTimeout(timer);
            resolve(code);
          },
          reject: (error: Error) => {
            clearTimeout(timer);
            reject(error);
          },
        };
        waiting.push(waiter);
      });
    },
    close() {
      closed = true;
      for (const waiter of waiting.splice(0)) waiter.reject(new SignInFailedError('the sign-in was closed'));
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function listen(server: Server, port: number | undefined): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    server.listen(port ?? 0, '127.0.0.1', () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
