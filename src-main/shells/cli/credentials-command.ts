import { CredentialName } from '@shared/contracts/credentials';
import { looksLikeRawSecret } from '@shared/policy/secrets';
import type { CredentialStore } from '../../credentials/credential-store';
import { MIN_MASKABLE_LENGTH, SecretRegistry } from '../../credentials/secret-registry';
import type { CliIo } from './cli-io';
import { wrapUsage } from '@shared/util/wrap-usage';

export interface CredentialsIo extends CliIo {
  /** The whole of standard input (the shell prompts first when it is a terminal). */
  stdin: () => Promise<string>;
}

/** 0 done · 1 `delete` found nothing to delete · 2 bad input or the keychain failed. */
export const CREDENTIALS_EXIT = { ok: 0, notFound: 1, badInput: 2 } as const;

export const CREDENTIALS_USAGE = wrapUsage(`Usage:
  steward credentials set NAME       store a secret in the OS keychain; the value is read from
                                     standard input, never from an argument
                                     (e.g. printf %s "$KEY" | steward credentials set openai)
  steward credentials list           the names of the stored credentials (never their values)
  steward credentials delete NAME    remove a credential

Specs and profiles refer to a credential as keychain:NAME.
Exit codes: 0 done · 1 delete: no such credential · 2 bad input or keychain error`);

/**
 * `steward credentials …`. Returns the exit code; never throws. No value is ever written to
 * stdout/stderr: `set` takes it from stdin only and every message is masked against it.
 */
export async function credentialsCommand(args: string[], io: CredentialsIo, store: CredentialStore): Promise<number> {
  const [sub, ...rest] = args;
  const guard = new SecretRegistry();
  const out = (text: string) => io.stdout(guard.maskText(text));
  const fail = (message: string) => {
    io.stderr(`steward credentials: ${guard.maskText(message)}\n`);
    return CREDENTIALS_EXIT.badInput;
  };
  try {
    switch (sub) {
      case 'set': {
        if (rest.length > 1) {
          // The argument is not echoed: it is the secret.
          return fail('the value is read from standard input, never from an argument (it would stay in your shell history and the process list): printf %s "$VALUE" | steward credentials set NAME');
        }
        const name = checkName(rest[0]);
        if (typeof name !== 'string') return fail(name.error);
        const value = stripOneNewline(await io.stdin());
        if (value.length === 0) return fail(`no value on standard input for ${name}: pipe it in, e.g. printf %s "$VALUE" | steward credentials set ${name}`);
        if (value.length < MIN_MASKABLE_LENGTH) return fail(`the value for ${name} is shorter than ${MIN_MASKABLE_LENGTH} characters: too short to be kept out of traces`);
        guard.register(name, value);
        await store.set(name, value);
        out(`stored ${name} in the OS keychain — refer to it as keychain:${name}\n`);
        return CREDENTIALS_EXIT.ok;
      }
      case 'list': {
        if (rest.length > 0) return fail(`list takes no arguments\n\n${CREDENTIALS_USAGE}`);
        const names = await store.list();
        out(names.length === 0 ? 'no credentials\n' : `${names.join('\n')}\n`);
        return CREDENTIALS_EXIT.ok;
      }
      case 'delete': {
        if (rest.length !== 1) return fail(`delete needs exactly one NAME\n\n${CREDENTIALS_USAGE}`);
        const name = checkName(rest[0]);
        if (typeof name !== 'string') return fail(name.error);
        if (await store.delete(name)) {
          out(`deleted ${name}\n`);
          return CREDENTIALS_EXIT.ok;
        }
        io.stderr(`steward credentials: no credential ${name} in the OS keychain\n`);
        return CREDENTIALS_EXIT.notFound;
      }
      case '--help':
      case '-h':
      case 'help':
        out(`${CREDENTIALS_USAGE}\n`);
        return CREDENTIALS_EXIT.ok;
      case undefined:
        io.stderr(`${CREDENTIALS_USAGE}\n`);
        return CREDENTIALS_EXIT.badInput;
      default:
        return fail(`unknown subcommand "${sub}"\n\n${CREDENTIALS_USAGE}`);
    }
  } catch (err) {
    // CredentialStoreError carries the actionable reason (no Secret Service, locked keyring, …).
    return fail(err instanceof Error ? err.message : String(err));
  }
}

/** The name, or why it is refused. A name that looks like a key is refused without echoing it. */
function checkName(arg: string | undefined): CredentialName | { error: string } {
  if (arg === undefined) return { error: `a credential NAME is needed\n\n${CREDENTIALS_USAGE}` };
  if (looksLikeRawSecret(arg)) {
    return { error: 'that NAME looks like a secret itself: give the credential a short name such as "openai" and pass the value on standard input' };
  }
  const parsed = CredentialName.safeParse(arg);
  if (!parsed.success) return { error: `not a valid credential name: ${parsed.error.issues[0]?.message ?? 'invalid'}` };
  return parsed.data;
}

/** Strips the one newline `echo` or a terminal adds; anything else is part of the value. */
function stripOneNewline(input: string): string {
  if (input.endsWith('\r\n')) return input.slice(0, -2);
  if (input.endsWith('\n')) return input.slice(0, -1);
  return input;
}
