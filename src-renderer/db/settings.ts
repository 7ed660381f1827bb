/* The privacy policy itself is held by the host (privacy.get / privacy.set); this only reads what a person types. */
/** `api.example.com`, `host:8080`: what a person types, normalised; undefined when it is not a host. */
export function normaliseHost(input: string): string | undefined {
  const trimmed = input.trim().toLowerCase().replace(/^[a-z][a-z0-9+.-]*:\/\//, '').replace(/\/.*$/, '');
  return /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*(?::\d{1,5})?$|^\[[0-9a-f:]+\](?::\d{1,5})?$/.test(trimmed)
    ? trimmed
    : undefined;
}
