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

/** Where a tool's effect came from, in words (the app's panel and `steward validate`). */
export const EFFECT_SOURCE_LABELS = {
  user: 'yours',
  shipped: 'Steward’s shipped default',
  missing: 'nobody described it: protected',
} satisfies Record<EffectSource, string>;

/** A tool's effect and where it came from, as one phrase a person reads. */
export function effectWords(effect: EffectClass, source: EffectSource): string {
  if (source === 'missing') return 'Unknown: nobody described this tool, so it is protected (set its effect in the MCP registry)';
  return `${EFFECT_LABELS[effect]} (${EFFECT_SOURCE_LABELS[source]})`;
}

/** The protected default for a tool nobody described. */
export const MISSING_EFFECT: ToolEffect = {
  effect: 'unknown',
  requires_user_confirmation: false,
  idempotency_supported: false,
  sensitive_arguments: [],
};
