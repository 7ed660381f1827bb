import { z } from 'zod';
import { canonicalJson } from '../util/canonical-json';
import { Profile, ProfileKind } from './profiles';

/**
 * What the host keeps of the settings a person made in the app (issue 9: they follow to a new
 * origin, browser profile or cleared site data, as runs do). Built-in profiles ship with the app
 * and are not kept. Profiles hold keychain references only (CredentialRef), never a value: the
 * schemas below are checked on both sides, so a value in a reference's place is refused.
 */

/** A profile version a person made or imported. Versions never change: the host keeps the union. */
export const SyncedProfile = z.object({ origin: z.enum(['user', 'imported']), profile: Profile }).strict();
export type SyncedProfile = z.infer<typeof SyncedProfile>;

/** One chosen version (versions are immutable, so a choice is exact). */
export const ProfileChoiceRef = z.object({ id: z.string().min(1).max(80), version: z.number().int().positive() }).strict();

/** An agent node's id in a workflow graph (as the workflow document spells node ids). */
const NodeId = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'use lowercase letters, digits, - and _');

/**
 * Per agent node of a workflow graph (issue 29: the phase is earned per agent node): the deployment
 * profile version that node runs in. The host applies it to the node's runs (workflows.run) and the
 * node's agent.started records it.
 */
export const NodeChoices = z.record(NodeId, z.object({ deployment: ProfileChoiceRef }).strict());
export type NodeChoices = z.infer<typeof NodeChoices>;

/** A workflow's profile choices and supervision switch; the newest `updated_at` wins. */
export const WorkflowChoices = z
  .object({
    workflow_id: z.string().min(1).max(200),
    profiles: z.partialRecord(ProfileKind, ProfileChoiceRef),
    supervision_enabled: z.boolean(),
    updated_at: z.iso.datetime(),
    /** Its agent nodes' own deployment choices (a workflow graph's); absent in a save: those held stay as they are. */
    nodes: NodeChoices.optional(),
  })
  .strict();
export type WorkflowChoices = z.infer<typeof WorkflowChoices>;

/** A version the host already holds with other settings: it keeps its own (versions never change). */
export const ProfileConflict = z
  .object({
    id: z.string(),
    version: z.number().int().positive(),
    message: z.string(),
    /** The field refused, as a path into the save's params (`profiles.2.profile.name`); absent for a whole version. */
    field: z.string().optional(),
  })
  .strict();
export type ProfileConflict = z.infer<typeof ProfileConflict>;

/**
 * A profile a person deleted (issue 28): the host keeps its id, so no page that still holds a copy
 * brings it back (pages drop it on their next exchange) and no later save keeps a version of it.
 */
export const DeletedProfile = z.object({ id: z.string().min(1).max(80), deleted_at: z.iso.datetime() }).strict();
export type DeletedProfile = z.infer<typeof DeletedProfile>;

/** Runs a refusal names at most (the newest); `run_count` says how many in all. */
export const MAX_NAMED_RUNS = 5;

/** Who still uses a profile (any of its versions): a deletion is refused while any does. */
export const ProfileUsers = z
  .object({
    /** Workflows whose choices name it, and as what (student, trace…). */
    workflows: z.array(z.object({ id: z.string(), name: z.string(), kinds: z.array(ProfileKind) }).strict()),
    /** The newest runs that recorded it (at most MAX_NAMED_RUNS). */
    runs: z.array(z.object({ run_id: z.string(), name: z.string(), started_at: z.string() }).strict()),
    run_count: z.number().int().nonnegative(),
  })
  .strict();
export type ProfileUsers = z.infer<typeof ProfileUsers>;

/** A deletion's outcome: deleted (every version), or refused with why (a built-in, or who uses it). */
export const ProfileDeleteResult = z.union([
  z.object({ deleted: z.literal(true), versions: z.number().int().nonnegative() }).strict(),
  z.object({ deleted: z.literal(false), reason: z.literal('built_in') }).strict(),
  z.object({ deleted: z.literal(false), reason: z.literal('in_use'), used_by: ProfileUsers }).strict(),
]);
export type ProfileDeleteResult = z.infer<typeof ProfileDeleteResult>;

/** Records one profiles.save carries at most (a WebSocket message stays well under 1 MB). */
export const MAX_SYNCED_RECORDS = 500;

/** Two versions are the same when everything but the moment each was stored matches (as a profile import judges). */
export function sameProfileVersion(a: Profile, b: Profile): boolean {
  const { created_at: _a, ...restA } = a;
  const { created_at: _b, ...restB } = b;
  return canonicalJson(restA) === canonicalJson(restB);
}

/** Whether `next` replaces `current`: strictly newer wins, so a repeated save changes nothing. */
export function choicesNewer(next: Pick<WorkflowChoices, 'updated_at'>, current: Pick<WorkflowChoices, 'updated_at'> | undefined): boolean {
  return current === undefined || Date.parse(next.updated_at) > Date.parse(current.updated_at);
}
