import { createHash, randomBytes } from 'node:crypto';
import type { LaunchRefusalCode } from '@shared/contracts/bridge';

/**
 * One-time launch codes (see LAUNCH_PATH in @shared/contracts/bridge): what goes on the browser
 * opener's command line and the printed link instead of the session token. A code is good for one
 * exchange, within `ttlMs` of being issued. Codes are kept by hash, so a lookup does not compare
 * the secret itself; spent codes are remembered so a reused link gets a message, not silence.
 */

export type Redemption = { kind: 'token'; token: string } | { kind: 'refused'; code: Extract<LaunchRefusalCode, `launch_${string}`>; message: string };

export interface LaunchCodeOptions {
  /** How long an unused code stays good. Default two minutes: the opener uses it at once. */
  ttlMs?: number;
  /** Codes remembered at most (the oldest are forgotten first). Default 256. */
  maxRemembered?: number;
  now?: () => number;
}

interface Issued {
  expiresAt: number;
  used: boolean;
}

/** What a person does about a link that no longer works: no keypress at the host's terminal needed. */
export const NEW_LINK_HINT = 'Run `steward open` in a terminal for a new one: it prints a new link and opens it (add `--data-dir DIR` for another data folder). Starting Steward with `npm start` prints one too.';

export class LaunchCodes {
  private readonly issued = new Map<string, Issued>();
  private readonly ttlMs: number;
  private readonly maxRemembered: number;
  private readonly now: () => number;

  constructor(
    private readonly token: string,
    options: LaunchCodeOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 120_000;
    this.maxRemembered = options.maxRemembered ?? 256;
    this.now = options.now ?? Date.now;
  }

  issue(): string {
    const code = randomBytes(32).toString('base64url');
    this.issued.set(digest(code), { expiresAt: this.now() + this.ttlMs, used: false });
    // A Map iterates in insertion order: the first key is the oldest code.
    while (this.issued.size > this.maxRemembered) {
      const oldest = this.issued.keys().next().value;
      if (oldest === undefined) break;
      this.issued.delete(oldest);
    }
    return code;
  }

  redeem(code: string): Redemption {
    const entry = this.issued.get(digest(code));
    if (!entry) return { kind: 'refused', code: 'launch_unknown', message: `This link no longer works: it is from an earlier start of Steward (a link ends when Steward stops), or it was cut short. ${NEW_LINK_HINT}` };
    if (entry.used) return { kind: 'refused', code: 'launch_used', message: `This one-time link was already used: each link opens Steward once. ${NEW_LINK_HINT}` };
    if (this.now() > entry.expiresAt) return { kind: 'refused', code: 'launch_expired', message: `This one-time link has expired: a link works within ${durationWords(this.ttlMs)} of being made. ${NEW_LINK_HINT}` };
    entry.used = true;
    return { kind: 'token', token: this.token };
  }
}

function durationWords(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes >= 1) return minutes === 1 ? 'a minute' : `${minutes} minutes`;
  const seconds = Math.max(1, Math.round(ms / 1000));
  return seconds === 1 ? 'a second' : `${seconds} seconds`;
}

function digest(code: string): string {
  return createHash('sha256').update(code).digest('hex');
}
