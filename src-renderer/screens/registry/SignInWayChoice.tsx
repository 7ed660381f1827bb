import type { OAuthGrantChoice } from './server-form';

/** Each way a remote server's client gets its token, as a person reads it (label, then what it means). */
const WAYS = {
  browser: { label: 'A person signs in through the browser', hint: 'Sign in on the server’s card opens its sign-in page; the tokens stay in your OS keychain.', testId: 'server-oauth-browser' },
  machine: { label: 'Machine-to-machine client', hint: 'Nobody signs in: a run gets the client its own token with its secret or its private key (OAuth client credentials).', testId: 'server-oauth-machine' },
  enterprise: {
    label: 'Enterprise-managed (your organisation’s identity provider)',
    hint: 'Nobody signs in at the server: your organisation’s identity provider vouches for you with your ID token, and a run gets its own token from that (cross-app access).',
    testId: 'server-oauth-enterprise',
  },
} as const satisfies Record<OAuthGrantChoice, { label: string; hint: string; testId: string }>;

const ORDER: readonly OAuthGrantChoice[] = ['browser', 'machine', 'enterprise'];

/** The sign-in section's choice of grant, with what the chosen one means below it. */
export function SignInWayChoice({ name, value, onChange }: { name: string; value: OAuthGrantChoice; onChange: (grant: OAuthGrantChoice) => void }) {
  return (
    <fieldset className="server-form__kind" aria-describedby={`${name}-note`}>
      <legend className="field__label">How it signs in</legend>
      {ORDER.map((grant) => (
        <label key={grant} className="inline-check">
          <input type="radio" name={name} checked={value === grant} onChange={() => onChange(grant)} data-testid={WAYS[grant].testId} />
          {WAYS[grant].label}
        </label>
      ))}
      <p id={`${name}-note`} className="form-row__hint" data-testid="server-oauth-way-hint">
        {WAYS[value].hint}
      </p>
    </fieldset>
  );
}
