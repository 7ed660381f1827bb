/**
 * The one Content-Security-Policy of the Steward page, in both shells: scripts, styles and images
 * only from the app itself (no inline or evaluated script, nothing remote), no plugins, no <base>,
 * no framing, no form posts. `connect` names extra connect-src sources (the browser shell's
 * WebSocket: `'self'` covers same-origin ws: in current Chromium, but older engines do not apply it
 * to ws:). The Electron page talks over IPC and needs none.
 */
export function contentSecurityPolicy(connect: readonly string[]): string {
  return [
    "default-src 'self'",
    ["connect-src 'self'", ...connect].join(' '),
    "img-src 'self' data:",
    "style-src 'self' 'unsafe-inline'",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "form-action 'none'",
  ].join('; ');
}
