import { useCallback, useEffect, useRef, useState } from 'react';
import { draftShaped, type UnparsedText, type WorkflowDraft } from '@shared/contracts/workflow-draft';
import { useHost } from '../../app/HostProvider';
import type { Draft } from './graph-edit';
import type { Opened } from './use-stored-workflow';

/** How long typing rests before the draft goes to the host. */
export const KEEP_AFTER_MS = 400;

/** A draft the host kept from before (a reload, a crash, a restart), when it differs from what was opened. */
export interface DraftOffer {
  doc: Draft;
  savedAt: string;
  /** The stored version it was edited from; differs from the opened one when someone saved since. */
  baseUpdatedAt?: string;
  /** Someone saved the workflow after this draft was started. */
  savedSince: boolean;
  /** Text typed into JSON fields that the document does not hold yet: restored as typed. */
  unparsed: UnparsedText[];
}

/**
 * The kept draft worth offering back: a workflow document that is not what the editor opened, or
 * one with text typed into a JSON field that does not parse yet (the document alone would lose it).
 */
export function offerOf(kept: WorkflowDraft | undefined, opened: Opened): DraftOffer | undefined {
  if (!kept || !draftShaped(kept.document)) return undefined;
  const unparsed = kept.unparsed ?? [];
  if (unparsed.length === 0 && JSON.stringify(kept.document) === JSON.stringify(opened.doc)) return undefined;
  return {
    doc: kept.document,
    unparsed,
    savedAt: kept.saved_at,
    ...(kept.base_updated_at !== undefined ? { baseUpdatedAt: kept.base_updated_at } : {}),
    savedSince: opened.updatedAt !== undefined && kept.base_updated_at !== undefined && kept.base_updated_at !== opened.updatedAt,
  };
}

/**
 * Keeps the editor's unsaved document on the host (issue 22): sent a moment after typing rests and
 * at once when the page goes, under the workflow's stored id (none for a new one); forgotten once
 * the document is back to what is stored (saved, or undone) and no JSON field holds text it does
 * not (`unparsed`, kept with the document: issue 28). On open, a draft kept from before is offered
 * back; while the offer waits, nothing is sent, so deciding is never pre-empted.
 */
export function useKeptDraft({ initial, opened, draft, dirty, unparsed }: { initial: Opened; opened: Opened; draft: Draft; dirty: boolean; unparsed: readonly UnparsedText[] }) {
  const { client, connection } = useHost();
  const open = connection === 'open';
  const [offer, setOffer] = useState<DraftOffer>();
  const [asked, setAsked] = useState(false);
  const [keptAt, setKeptAt] = useState<string>();
  /** The key the host holds a draft under for this editor (null: none sent, or forgotten). */
  const keptKey = useRef<string | undefined | null>(null);
  const pending = useRef<(() => void) | undefined>(undefined);

  // The offer: asked once, for the workflow as it was opened.
  useEffect(() => {
    if (!open || asked) return;
    let live = true;
    client.request('drafts.get', initial.storedId !== undefined ? { workflow_id: initial.storedId } : {}).then(
      ({ draft: kept }) => {
        if (!live) return;
        setAsked(true);
        setOffer(offerOf(kept, initial));
        // What the host holds is this editor's to replace or forget from here on.
        if (kept) keptKey.current = initial.storedId;
      },
      () => live && setAsked(true),
    );
    return () => {
      live = false;
    };
  }, [asked, client, initial, open]);

  const forget = useCallback(async () => {
    const key = keptKey.current;
    keptKey.current = null;
    setKeptAt(undefined);
    if (key === null) return;
    await client.request('drafts.discard', key !== undefined ? { workflow_id: key } : {}).catch(() => undefined);
  }, [client]);

  const waiting = !asked || offer !== undefined;
  useEffect(() => {
    if (!open || waiting) return;
    if (!dirty && unparsed.length === 0) {
      if (keptKey.current !== null) void forget();
      return;
    }
    const key = opened.storedId;
    const send = () => {
      pending.current = undefined;
      keptKey.current = key;
      client
        .request('drafts.put', {
          ...(key !== undefined ? { workflow_id: key } : {}),
          document: draft,
          ...(opened.updatedAt !== undefined ? { base_updated_at: opened.updatedAt } : {}),
          ...(unparsed.length > 0 ? { unparsed: [...unparsed] } : {}),
        })
        .then((r) => setKeptAt(r.saved_at))
        .catch(() => setKeptAt(undefined));
    };
    pending.current = send;
    const timer = window.setTimeout(send, KEEP_AFTER_MS);
    return () => {
      window.clearTimeout(timer);
      // A newer document (or none, once saved) replaces this one: a page that goes later does not send it.
      if (pending.current === send) pending.current = undefined;
    };
  }, [client, dirty, draft, forget, open, opened.storedId, opened.updatedAt, unparsed, waiting]);

  // A reload or a closing tab: what typing has not yet sent goes now.
  useEffect(() => {
    const flush = () => pending.current?.();
    window.addEventListener('pagehide', flush);
    window.addEventListener('beforeunload', flush);
    return () => {
      window.removeEventListener('pagehide', flush);
      window.removeEventListener('beforeunload', flush);
    };
  }, []);

  return {
    offer,
    /** When the host last kept this editor's draft (absent: nothing kept now). */
    keptAt,
    /** The person took the offer (the editor applies it) or declined it (it is forgotten). */
    settle: (taken: boolean) => {
      setOffer(undefined);
      if (!taken) void forget();
    },
    /** The person discarded their changes: the kept draft goes too. */
    forget,
  };
}
