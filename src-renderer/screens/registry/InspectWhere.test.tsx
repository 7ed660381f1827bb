import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { InspectWhereText } from './InspectWhere';

const workspaces = [{ id: 'demo-ask-a-human', label: 'Ask a human (demo copy)', path: '/data/demo/ask-a-human', in_data_folder: true }];
const text = (html: string) => html.replace(/<[^>]+>/g, '').replace(/&quot;/g, '"');

describe('where Inspect starts a server that opens a workspace folder', () => {
  it("names the workspace by its label, in a sentence; its id and folder only in the tooltip", () => {
    const html = renderToStaticMarkup(<InspectWhereText id="fs-inspect-where" workspace="demo-ask-a-human" workspaces={workspaces} />);
    expect(text(html)).toBe('Inspect starts it in the folder of the workspace “Ask a human (demo copy)”.');
    expect(text(html)).not.toContain('demo-ask-a-human');
    expect(html).toContain('title="Workspace id: demo-ask-a-human · folder: /data/demo/ask-a-human"');
    // Still what the Inspect button's aria-describedby points at.
    expect(html).toContain('id="fs-inspect-where"');
  });

  it('a workspace the host has not registered says what to do, without showing its id', () => {
    const html = renderToStaticMarkup(<InspectWhereText id="x" workspace="gone-ws" workspaces={workspaces} />);
    expect(text(html)).toMatch(/not registered: add it below first/);
    expect(text(html)).not.toContain('gone-ws');
    expect(html).toContain('title="Workspace id: gone-ws"');
  });

  it('no workspace at all: asks for one', () => {
    expect(text(renderToStaticMarkup(<InspectWhereText id="x" workspaces={[]} />))).toBe('It opens a workspace folder: add a workspace below to inspect it.');
  });
});
