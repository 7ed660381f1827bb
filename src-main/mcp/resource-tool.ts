import type { ReadResourceResult, Resource } from '@modelcontextprotocol/sdk/types.js';
import type { ToolEffect } from '@shared/contracts/tool-effect';
import type { JsonSchemaObject, OfferedTool } from '@shared/contracts/tool-snapshot';
import { resolveToolEffect } from '@shared/policy/effect-registry';
import { hashJson } from '../util/hash';
import { describeBlock } from './tool-result';

/** How many resources the read tool's description names (the model may ask for any URI). */
const LISTED_RESOURCES = 25;

/** The tool through which a server's resources are offered (`offer_resources`): one per server. */
export function readResourceToolName(serverId: string): string {
  return `read_resource_${serverId}`;
}

/** Reading a resource is a read by the protocol's definition; a user setting for the tool still wins. */
const READ: ToolEffect = { effect: 'read', requires_user_confirmation: false, idempotency_supported: true, sensitive_arguments: [] };

/**
 * Steward's own tool for one server's resources: `uri` in, the resource's contents out. Its
 * description lists the resources the server named (the first few), so a model knows what to ask for.
 */
export function offerResourceTool(serverId: string, resources: readonly Resource[], overrides: Readonly<Record<string, ToolEffect>>): OfferedTool {
  const name = readResourceToolName(serverId);
  const listed = resources.slice(0, LISTED_RESOURCES).map((r) => `- ${r.uri}${r.name ? ` (${r.name})` : ''}${r.description ? `: ${r.description.slice(0, 120)}` : ''}`);
  const more = resources.length > LISTED_RESOURCES ? [`(and ${resources.length - LISTED_RESOURCES} more)`] : [];
  const description = [`Reads a resource of MCP server "${serverId}" by its URI.`, ...(listed.length > 0 ? ['Resources:', ...listed, ...more] : [])].join('\n');
  const input_schema: JsonSchemaObject = { type: 'object', properties: { uri: { type: 'string', description: 'The resource URI' } }, required: ['uri'], additionalProperties: false };
  const own = resolveToolEffect({ serverId, tool: name, overrides });
  const { effect, source } = own.source === 'user' ? own : { effect: { ...READ }, source: 'shipped' as const };
  return { name, server: serverId, description, input_schema, schema_hash: hashJson(input_schema), effect, effect_source: source };
}

/** A resource's contents as one text: text as it is, binary summarised (as in a tool result). */
export function resourceText(result: ReadResourceResult): string {
  return result.contents.map((resource) => describeBlock({ type: 'resource', resource })).join('\n');
}
