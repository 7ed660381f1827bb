import { describe, expect, it } from 'vitest';
import { hostOf, modelLabel, ModelRef } from './model';
import { checkProviderAllowed, localityOf, LOCAL_ONLY } from '../policy/privacy';

const SECRET = 'sk-proj-Q7wE9rT2yU4iO6pA8sD0fG1h';

/** Every message a schema gives for this URL, as an Ollama `host` and as an OpenAI-compatible `base_url`. */
function refusals(url: string): string[] {
  const ollama = ModelRef.safeParse({ provider: 'ollama', model: 'qwen3:4b', host: url });
  const openai = ModelRef.safeParse({ provider: 'openai_compatible', model: 'm', base_url: url });
  return [ollama, openai].map((r) => (r.success ? '' : r.error.issues.map((i) => i.message).join('; ')));
}

describe('model URLs the two parsers could read differently are refused', () => {
  const hostile: [string, string, RegExp][] = [
    ['a backslash before userinfo', 'http://127.0.0.1\\@evil.com/', /backslash/],
    ['a backslash hiding the real host', 'http://evil.com\\@127.0.0.1/', /backslash/],
    ['a fragment holding a fake userinfo', 'http://evil.com#@127.0.0.1', /fragment/],
    ['a port-looking userinfo', 'http://127.0.0.1:11434@evil.com', /user name or password/],
    ['userinfo', 'http://me@127.0.0.1:11434', /user name or password/],
    ['a leading space', ' http://evil.com', /space|control/],
    ['a tab inside', 'http://127.0.0.1\t.evil.com/', /space|control/],
    ['a newline inside', 'http://local\nhost:11434/', /space|control/],
    ['a javascript: URL', 'javascript:alert(1)', /http:\/\/ or https:\/\//],
    ['a file: URL', 'file:///etc/passwd', /http:\/\/ or https:\/\//],
    ['a scheme without slashes', 'http:evil.com', /http:\/\/ or https:\/\//],
    ['three slashes', 'http:///evil.com', /no host/],
    ['a trailing dot', 'http://localhost./', /dot/],
    ['an IPv4 address as one number', 'http://2130706433/', /four decimal numbers/],
    ['a hexadecimal IPv4 address', 'http://0x7f.1/', /four decimal numbers/],
    ['a short IPv4 address', 'http://127.1/', /four decimal numbers/],
    ['an octal IPv4 address', 'http://0177.0.0.1/', /four decimal numbers/],
    ['an IPv4 part over 255', 'http://127.0.0.256/', /four decimal numbers/],
    ['an IPv4-mapped IPv6 address', 'http://[::ffff:7f00:1]/', /IPv6/],
    ['a long-form IPv6 loopback', 'http://[0:0:0:0:0:0:0:1]:8080/', /IPv6/],
    ['a percent-encoded host', 'http://127.0.0.1%2eevil.com/', /letters, digits/],
    ['a non-ASCII host', 'http://lоcalhost/', /non-ASCII/],
    ['a punycode host', 'http://xn--2130706433/', /international/],
    ['a port with leading zeros', 'http://127.0.0.1:011434/', /port/],
    ['a port out of range', 'http://127.0.0.1:99999/', /port/],
    ['two colons', 'http://127.0.0.1:80:81/', /port/],
  ];
  it.each(hostile)('%s (%s) is refused, saying what is wrong', (_what, url, reason) => {
    for (const message of refusals(url)) expect(message).toMatch(reason);
  });

  it('the locality check refuses such a URL too, even when it did not come through the schema', () => {
    const ref = { provider: 'openai_compatible', model: 'm', base_url: 'http://evil.com\\@127.0.0.1/', mode: 'structured', timeout_ms: 1000 } as const;
    expect(localityOf(ref).local).toBe(false);
    const check = checkProviderAllowed(ref, 'teacher', LOCAL_ONLY);
    expect(check.ok).toBe(false);
    expect(check.ok ? '' : check.message).toMatch(/backslash/);
    // A hostile app-wide Ollama address (OLLAMA_HOST) is refused the same way.
    expect(checkProviderAllowed({ provider: 'ollama', model: 'x', mode: 'structured', timeout_ms: 1000 }, 'student', LOCAL_ONLY, 'http://evil.com#@127.0.0.1').ok).toBe(false);
  });

  it('ordinary model addresses pass, and their locality is read from the host', () => {
    const local = ['http://127.0.0.1:11434', 'http://localhost:11434/', 'HTTP://LOCALHOST:1234/v1', 'http://[::1]:8080/v1', 'http://127.0.0.2:8000/v1'];
    const remote = ['https://api.openai.com/v1', 'https://my-res.openai.azure.com/openai/deployments/gpt?api-version=2024-02-01', 'http://my_box.lan:1234/v1', 'HTTP://LOCALHOST.evil.com/', 'http://10.0.0.5:11434'];
    for (const url of [...local, ...remote]) expect(refusals(url)).toEqual(['', '']);
    const ref = (base_url: string) => ModelRef.parse({ provider: 'openai_compatible', model: 'm', base_url });
    expect(local.map((u) => localityOf(ref(u)).local)).toEqual(local.map(() => true));
    expect(remote.map((u) => localityOf(ref(u)).local)).toEqual(remote.map(() => false));
    expect(localityOf(ref('HTTP://LOCALHOST.evil.com/'))).toEqual({ local: false, host: 'localhost.evil.com' });
    // The scheme's default port is the same address written shorter, as the host's URL parser sees it.
    expect(hostOf('https://api.example.com:443/v1')).toBe('api.example.com');
  });
});

describe('secrets in a model URL are refused with the keychain hint', () => {
  it.each([
    ['a password in the userinfo', `https://user:${SECRET}@api.example.com/v1`],
    ['a key as the user name', `https://${SECRET}@api.example.com/v1`],
    ['a key in the query string', `https://api.example.com/v1?key=${SECRET}`],
    ['a token parameter', 'https://api.example.com/v1?api-version=1&access_token=abc123'],
    ['a percent-encoded key parameter', 'https://api.example.com/v1?api%5Fkey=abc123'],
    ['a raw-looking secret value in any parameter', `https://api.example.com/v1?x=${SECRET}`],
    ['a key in the path', `https://api.example.com/${SECRET}/v1`],
  ])('%s', (_what, url) => {
    for (const message of refusals(url)) {
      expect(message).toMatch(/keychain/);
      expect(message).not.toContain(SECRET);
    }
  });
});

describe('a model address is shown without what may hold a secret', () => {
  it('modelLabel and hostOf never show userinfo or a query string, even of a URL the schema would refuse', () => {
    const base_url = `https://user:${SECRET}@api.example.com/v1?key=${SECRET}`;
    const ref = { provider: 'openai_compatible', model: 'gpt', base_url, mode: 'structured', timeout_ms: 1000 } as const;
    expect(modelLabel(ref)).not.toContain(SECRET);
    expect(hostOf(base_url)).not.toContain(SECRET);
    const check = checkProviderAllowed(ref, 'teacher', LOCAL_ONLY);
    expect(check.ok ? '' : check.message).not.toContain(SECRET);
  });
});
