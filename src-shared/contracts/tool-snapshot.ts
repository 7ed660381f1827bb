import { z } from 'zod';
import { EffectSource, ToolAnnotationHints, ToolEffect } from './tool-effect';
import { AgentRoute } from './routes';

export const JsonSchemaObject = z.record(z.string(), z.unknown());
export type JsonSchemaObject = z.infer<typeof JsonSchemaObject>;

/**
 * A tool as offered to the model in one round. The input schema is frozen for the round and
 * hashed: arguments are validated against this snapshot, not against whatever the server says later.
 */
export const OfferedTool = z
  .object({
    name: z.string().min(1),
    server: z.string().min(1),
    description: z.string().default(''),
    input_schema: JsonSchemaObject,
    schema_hash: z.string().min(8),
    effect: ToolEffect,
    effect_source: EffectSource,
    hints: ToolAnnotationHints.optional(),
  })
  .strict();
export type OfferedTool = z.infer<typeof OfferedTool>;

export const ToolSnapshot = z
  .object({
    round: z.number().int().nonnegative(),
    tools: z.array(OfferedTool),
    /** Hash over every offered tool's name, server and schema hash. */
    hash: z.string().min(8),
    /** The routes a `reroute` may name this round (the node's); absent: the node declares none. */
    routes: z.array(AgentRoute).optional(),
  })
  .strict();
export type ToolSnapshot = z.infer<typeof ToolSnapshot>;
