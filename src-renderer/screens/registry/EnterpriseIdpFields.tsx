import type { ServerForm } from './server-form';
import { CredentialField } from './CredentialField';
import { TextField } from './FormParts';

type IdpValues = Pick<ServerForm, 'idpIssuer' | 'idpClientId' | 'idpSecret' | 'idpIdToken'>;

/**
 * What a credential picked for a secret means: stored in the OS keychain under that name (the form
 * never holds the value), and how to replace it; a name the keychain does not list is said so.
 */
export function keychainNote(name: string, names: readonly string[] | undefined, what: string): string | undefined {
  if (name.trim() === '') return undefined;
  if (names !== undefined && !names.includes(name)) return `“${name}” is not in the keychain yet: store ${what} in Settings → Credentials under that name before a run uses it.`;
  return `Stored in the OS keychain as “${name}”; this form never holds the value. To replace it, store the new one in Settings → Credentials and pick it here.`;
}

/**
 * Enterprise-managed authorization (SEP-990): the organisation's identity provider, Steward's client
 * there, and the person's ID token. Both secrets are picked by credential name from the keychain,
 * exactly as the client secret above is: the form has no field a token's value could go in.
 */
export function EnterpriseIdpFields(props: {
  values: IdpValues;
  onChange: (patch: Partial<IdpValues>) => void;
  names: readonly string[] | undefined;
  fid: (field: string) => string;
  problem: (field: string) => string | undefined;
}) {
  const { values, onChange, names, fid, problem } = props;
  return (
    <fieldset className="server-form__env" data-testid="server-oauth-idp" aria-label="Your organisation’s identity provider">
      <legend className="field__label">Your organisation’s identity provider</legend>
      <TextField
        id={fid('oauth.idp.issuer')}
        label="Identity provider issuer URL"
        value={values.idpIssuer}
        onChange={(idpIssuer) => onChange({ idpIssuer })}
        placeholder="https://login.example.com"
        testId="server-oauth-idp-issuer"
        problem={problem('oauth.idp.issuer')}
        hint="The address your identity provider signs you in from (https). Your ID token is sent there only, and only if it was issued there."
      />
      <TextField
        id={fid('oauth.idp.client_id')}
        label="Client id at the identity provider"
        value={values.idpClientId}
        onChange={(idpClientId) => onChange({ idpClientId })}
        placeholder="issued by your identity provider"
        testId="server-oauth-idp-client-id"
        problem={problem('oauth.idp.client_id')}
        hint="The client your organisation’s administrator registered for Steward at the identity provider."
      />
      <CredentialField
        id={fid('oauth.idp.client_secret')}
        group="Client secret at the identity provider"
        label="Client secret at the identity provider (optional)"
        value={values.idpSecret}
        onChange={(idpSecret) => onChange({ idpSecret })}
        names={names}
        emptyLabel="No secret (a public client)"
        ariaLabel="Identity provider client secret credential"
        testId="server-oauth-idp-secret"
        problem={problem('oauth.idp.client_secret')}
        hint={keychainNote(values.idpSecret, names, 'the secret') ?? 'Only if the identity provider gave Steward’s client a secret: store it in Settings → Credentials and pick its name.'}
      />
      <CredentialField
        id={fid('oauth.idp.id_token')}
        group="ID token"
        label="ID token"
        value={values.idpIdToken}
        onChange={(idpIdToken) => onChange({ idpIdToken })}
        names={names}
        emptyLabel="Pick a credential…"
        ariaLabel="ID token credential"
        testId="server-oauth-idp-token"
        problem={problem('oauth.idp.id_token')}
        hint={keychainNote(values.idpIdToken, names, 'your ID token') ?? 'Your ID token from the identity provider, as your organisation’s sign-in tooling gives it: store it in Settings → Credentials and pick its name.'}
      />
    </fieldset>
  );
}
