import { describe, expect, it } from 'vitest';
import { isTrustedSender } from './trusted-sender';

const built = 'steward://app/index.html';
const dev = 'http://localhost:5173/';

describe('isTrustedSender', () => {
  it.each([
    // the built renderer: the app protocol's own host, any path (it serves only out/renderer)
    [built, built, true],
    [`${built}#/runs/abc`, built, true],
    [`${built}?x=1`, built, true],
    ['steward://app/assets/index-abc.js', built, true],
    ['steward://evil/index.html', built, false],
    ['steward://app.evil/index.html', built, false],
    // no file:// page is ours any more, not even the renderer's own file
    ['file:///opt/Steward/resources/app/out/renderer/index.html', built, false],
    ['file:///opt/Steward/resources/app/out/renderer/index.html', 'file:///opt/Steward/resources/app/out/renderer/index.html', false],
    ['http://localhost:5173/', built, false],
    // the dev server: same origin only
    [dev, dev, true],
    ['http://localhost:5173/src/main.tsx', dev, true],
    ['http://localhost:5174/', dev, false],
    ['http://127.0.0.1:5173/', dev, false],
    ['https://localhost:5173/', dev, false],
    ['http://localhost.evil.example:5173/', dev, false],
    [built, dev, false],
    // never ours
    ['about:blank', built, false],
    ['', built, false],
    ['data:text/html,<script>1</script>', built, false],
    ['devtools://devtools/bundled/inspector.html', built, false],
    ['https://evil.example/', 'https://evil.example/', true],
    ['chrome-extension://abc/index.html', 'chrome-extension://abc/index.html', false],
    [built, 'not a url', false],
  ])('%s against %s → %s', (url, expected, trusted) => {
    expect(isTrustedSender(url, expected)).toBe(trusted);
  });
});
