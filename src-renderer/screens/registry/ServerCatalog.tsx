import type { InspectedPrompt, InspectedResource } from '@shared/contracts/host-api';

/**
 * What an inspection found besides tools: the server's resources (a workflow may offer them to its
 * agent through one read tool, `offer_resources`) and its prompts. Shown until the page is left.
 */
export function ServerCatalog({ resources, prompts }: { resources: readonly InspectedResource[]; prompts: readonly InspectedPrompt[] }) {
  if (resources.length === 0 && prompts.length === 0) return null;
  return (
    <div className="server-catalog" data-testid="server-catalog">
      {resources.length > 0 && (
        <details>
          <summary>Resources ({resources.length})</summary>
          <ul className="tool-list">
            {resources.map((r) => (
              <li key={r.uri} data-testid="server-resource">
                <code>{r.uri}</code> {r.name !== r.uri && <span>{r.name}</span>} {r.mime_type && <span className="muted">{r.mime_type}</span>}
                {r.description && <p className="muted">{r.description}</p>}
              </li>
            ))}
          </ul>
        </details>
      )}
      {prompts.length > 0 && (
        <details>
          <summary>Prompts ({prompts.length})</summary>
          <ul className="tool-list">
            {prompts.map((p) => (
              <li key={p.name} data-testid="server-prompt">
                <code>{p.name}</code>
                {p.arguments.length > 0 && <span className="muted"> ({p.arguments.map((a) => (a.required ? a.name : `${a.name}?`)).join(', ')})</span>}
                {p.description && <p className="muted">{p.description}</p>}
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}
