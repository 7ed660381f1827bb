import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { DeprecatedFeatures, deprecatedShown } from './DeprecatedFeatures';

describe('a server card’s deprecated features', () => {
  it('a sign-in with a dynamically registered client is marked like the other features deprecated in MCP 2026-07-28', () => {
    const html = renderToStaticMarkup(<DeprecatedFeatures server="remote" features={deprecatedShown(['logging'], 'dynamic_registration')} />);
    expect(html).toContain('data-testid="deprecated-features-remote"');
    expect(html).toContain('<li>This server sends log messages (logging) — deprecated in MCP 2026-07-28, still supported for this server.</li>');
    expect(html).toContain('<li>This server is signed in to with a client Steward registered for it on the spot (dynamic client registration) — deprecated in MCP 2026-07-28, still supported for this server.</li>');
  });

  it('a sign-in with Steward’s client ID metadata document, a client registered beforehand or a machine-to-machine client is not marked; no sign-in, nothing', () => {
    for (const client of ['metadata_document', 'pre_registered', 'client_credentials', undefined] as const) {
      expect(deprecatedShown([], client)).toEqual([]);
      expect(renderToStaticMarkup(<DeprecatedFeatures server="remote" features={deprecatedShown([], client)} />)).toBe('');
    }
    // Said once, however it is known.
    expect(deprecatedShown(['dynamic_registration'], 'dynamic_registration')).toEqual(['dynamic_registration']);
  });
});
