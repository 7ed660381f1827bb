import type { EffectClass, ToolEffect } from '../contracts/tool-effect';

/**
 * Shipped effect metadata for the reference MCP servers, keyed by npm package. Classified by reading
 * each tool's behaviour (listed by running the servers, v2026.8.31), not by trusting their
 * annotations. A tool we are not sure about is deliberately absent: absent means `missing`, and
 * missing is protected.
 */
export interface ShippedServer {
  /**
   * `serverInfo.name` the server reports on initialize. Informational only: a self-reported name is
   * never trusted to select shipped metadata (see effect-registry.ts).
   */
  serverNames: readonly string[];
  tools: Readonly<Record<string, ToolEffect>>;
}

function effect(cls: EffectClass, idempotent: boolean): ToolEffect {
  return { effect: cls, requires_user_confirmation: false, idempotency_supported: idempotent, sensitive_arguments: [] };
}

const READ = effect('read', true);

export const FILESYSTEM_PACKAGE = '@modelcontextprotocol/server-filesystem';
export const MEMORY_PACKAGE = '@modelcontextprotocol/server-memory';
export const EVERYTHING_PACKAGE = '@modelcontextprotocol/server-everything';

export const SHIPPED_EFFECTS: Readonly<Record<string, ShippedServer>> = {
  [FILESYSTEM_PACKAGE]: {
    serverNames: ['secure-filesystem-server'],
    tools: {
      read_file: READ,
      read_text_file: READ,
      read_media_file: READ,
      read_multiple_files: READ,
      list_directory: READ,
      list_directory_with_sizes: READ,
      directory_tree: READ,
      search_files: READ,
      get_file_info: READ,
      list_allowed_directories: READ,
      // Overwrites whatever was there: the old content is gone, but writing the same content twice is harmless.
      write_file: effect('irreversible_write', true),
      edit_file: effect('irreversible_write', false),
      create_directory: effect('reversible_write', true),
      move_file: effect('irreversible_write', false),
    },
  },
  [MEMORY_PACKAGE]: {
    serverNames: ['memory-server'],
    tools: {
      read_graph: READ,
      search_nodes: READ,
      open_nodes: READ,
      // The server skips entities, relations and observations that already exist, so a repeat is a no-op;
      // a delete undoes them.
      create_entities: effect('reversible_write', true),
      create_relations: effect('reversible_write', true),
      add_observations: effect('reversible_write', true),
      delete_entities: effect('irreversible_write', true),
      delete_observations: effect('irreversible_write', true),
      delete_relations: effect('irreversible_write', true),
    },
  },
  [EVERYTHING_PACKAGE]: {
    serverNames: ['mcp-servers/everything'],
    tools: {
      echo: READ,
      'get-annotated-message': READ,
      'get-resource-links': READ,
      'get-resource-reference': READ,
      'get-structured-content': READ,
      'get-sum': READ,
      'get-tiny-image': READ,
      'trigger-long-running-operation': READ,
      'toggle-simulated-logging': effect('reversible_write', false),
      'toggle-subscriber-updates': effect('reversible_write', false),
      // Fetches an http(s) URL the model chooses.
      'gzip-file-as-resource': effect('external_communication', false),
      // Left out on purpose (missing → protected): `get-env` returns the server's whole environment,
      // which may hold secrets; the sampling/elicitation/roots/task tools act through the client.
    },
  },
};
