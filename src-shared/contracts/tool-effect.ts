import { z } from 'zod';

export const EFFECT_CLASSES = ['read', 'reversible_write', 'irreversible_write', 'external_communication', 'unknown'] as const;
export const EffectClass = z.enum(EFFECT_CLASSES);
export type EffectClass = z.infer<typeof EffectClass>;

/** Effect metadata per (server, tool): the app registry is authoritative (DESIGN.md §4). */
export const ToolEffect = z
  .object({
    effect: EffectClass,
    requires_user_confirmation: z.boolean().default(false),
    idempotency_supported: z.boolean().default(false),
    sensitive_arguments: z.array(z.string()).default([]),
  })
  .strict();
export type ToolEffect = z.infer<typeof ToolEffect>;
export type ToolEffectInput = z.input<typeof ToolEffect>;

/** Where a tool's metadata came from; `missing` means nobody said, so it is protected. */
export const EffectSource = z.enum(['user', 'shipped', 'missing']);
export type EffectSource = z.infer<typeof EffectSource>;

/** MCP annotations: untrusted hints, only ever shown as suggestions. */
export const ToolAnnotationHints = z
  .object({
    title: z.string().optional(),
    readOnlyHint: z.boolean().optional(),
    destructiveHint: z.boolean().optional(),
    idempotentHint: z.boolean().optional(),
    openWorldHint: z.boolean().optional(),
  })
  .passthrough();
export type ToolAnnotationHints = z.infer<typeof ToolAnnotationHints>;

export const EFFECT_PROTECTED = {
  read: false,
  reversible_write: true,
  irreversible_write: true,
  external_communication: true,
  unknown: true,
} satisfies Record<EffectClass, boolean>;

export const EFFECT_LABELS = {
  read: 'Read',
  reversible_write: 'Reversible write',
  irreversible_write: 'Irreversible write',
  external_communication: 'External communication',
  unknown: 'Unknown (protected)',
} satisfies Record<EffectClass, string>;

export function isProtectedEffect(effect: EffectClass): boolean {
  return EFFECT_PROTECTED[effect];
}

/** The protected default for a tool nobody described. */
export const MISSING_EFFECT: ToolEffect = {
  effect: 'unknown',
  requires_user_confirmation: false,
  idempotency_supported: false,
  sensitive_arguments: [],
};
