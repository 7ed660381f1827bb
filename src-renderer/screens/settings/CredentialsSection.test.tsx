import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { HostProvider } from '../../app/HostProvider';
import { createHostClient } from '../../host/host-client';
import { StewardDb } from '../../db/db';
import { FakeTransport } from '../../testing/fake-transport';
import { CredentialsPanel, type KeychainListing } from './CredentialsSection';

/** The words the host answers credentials.list with on a machine without a Secret Service (host-keychain-unavailable.test.ts). */
const NO_SECRET_SERVICE =
  'There is no keychain on this computer that Steward can use: it needs a Secret Service (such as GNOME Keyring or KWallet) running in your desktop session. Until there is one, credentials cannot be stored or used.';

function paint(listing: KeychainListing): string {
  const client = createHostClient(new FakeTransport());
  const db = new StewardDb(`steward-credentials-${Math.random().toString(36).slice(2)}`);
  return renderToStaticMarkup(
    <HostProvider client={client} db={db} tokenMissing={false}>
      <CredentialsPanel connection="open" listing={listing} />
    </HostProvider>,
  );
}

const refresh = () => undefined;

describe('the Credentials section', () => {
  it('says at once, in words, that there is no keychain, with no spinner, and switches the form off so no approval code is asked for', () => {
    const html = paint({ names: undefined, unavailable: NO_SECRET_SERVICE, refresh });
    expect(html).toContain('data-testid="credentials-unavailable"');
    expect(html).toContain('No keychain available.');
    expect(html).toContain(NO_SECRET_SERVICE);
    expect(html).not.toContain('Reading the keychain');
    expect(html).not.toContain('spinner');
    expect(html).toMatch(/<fieldset class="cred-form__fields" disabled="">/);
    expect(html).not.toMatch(/zbus|d-?bus|unix:path/i);
  });

  it('shows the spinner only while the host has not answered, and the form on once it listed names', () => {
    expect(paint({ names: undefined, refresh })).toContain('Reading the keychain');
    const listed = paint({ names: ['openai'], refresh });
    expect(listed).toContain('keychain:openai');
    expect(listed).not.toContain('Reading the keychain');
    expect(listed).toMatch(/<fieldset class="cred-form__fields">/);
  });
});
