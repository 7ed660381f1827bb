import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { ServerCatalog } from './ServerCatalog';

describe('an inspected server’s resources and prompts', () => {
  it('lists each resource by URI and each prompt with its arguments, optional ones marked', () => {
    const html = renderToStaticMarkup(
      <ServerCatalog
        resources={[{ uri: 'demo://doc/1', name: 'Doc one', mime_type: 'text/plain' }]}
        prompts={[{ name: 'summarise', description: 'Summarise a text', arguments: [{ name: 'text', required: true }, { name: 'style', required: false }] }]}
      />,
    );
    expect(html).toContain('Resources (1)');
    expect(html).toContain('<code>demo://doc/1</code>');
    expect(html).toContain('Prompts (1)');
    expect(html).toContain('(text, style?)');
  });

  it('shows nothing for a server with neither', () => {
    expect(renderToStaticMarkup(<ServerCatalog resources={[]} prompts={[]} />)).toBe('');
  });
});
