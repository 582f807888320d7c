import type { StudioFile, StudioStatus } from '../api/dev.ts';

/**
 * The Studio's working copy of the spec. It lives outside React because the page is remounted
 * whenever the served model changes (the app's router is rebuilt from the model), which is what
 * saving does: the text, unsaved edits and the last answer must survive that. It also survives
 * moving to another page of the app and back.
 */
export interface Draft {
  /** False until the file was first read. */
  loaded: boolean;
  path: string;
  /** The file's text as last read or saved, with `\n` line ends (the editor's). */
  disk: string;
  /** The editor's text. */
  text: string;
  /** The file used `\r\n`: saving writes it back that way. */
  crlf: boolean;
  /** The newest outcome known: of the last save, or reported by the server for any save. */
  status: StudioStatus | null;
  /** A newer file than `disk`, kept aside because the editor has unsaved edits. */
  diskChanged: string | null;
}

export const EMPTY_DRAFT: Draft = {
  loaded: false,
  path: '',
  disk: '',
  text: '',
  crlf: false,
  status: null,
  diskChanged: null,
};

export function isDirty(draft: Draft): boolean {
  return draft.loaded && draft.text !== draft.disk;
}

/**
 * The Studio's one status, saying both whether the editor's text is saved and what the server
 * did with the saved file, so the header never says "Saved" beside "Not applied".
 */
export function oneStatus(draft: Draft): { label: string; color: string } {
  if (isDirty(draft)) return { label: 'Unsaved changes', color: 'orange' };
  switch (draft.status?.outcome) {
    case 'applied':
      return { label: 'Saved and applied', color: 'teal' };
    case 'invalid':
    case 'refused':
    case 'failed':
      return { label: 'Saved, not applied', color: 'red' };
    default:
      return { label: 'Saved', color: 'gray' };
  }
}

/** The newer of two outcomes: by version, then by time (an invalid save keeps the version). */
export function newerStatus(known: StudioStatus | null, next: StudioStatus): StudioStatus {
  if (!known) return next;
  if (next.version !== known.version) return next.version > known.version ? next : known;
  return next.at >= known.at ? next : known;
}

/**
 * The draft once the file has been read again. Unsaved edits are never overwritten: a different
 * file is then kept in `diskChanged` for the person to load or ignore. `replace` is the text the
 * editor must now show, or null when it keeps its own.
 */
export function withFile(draft: Draft, file: StudioFile): { draft: Draft; replace: string | null } {
  const source = file.source.replace(/\r\n/g, '\n');
  const status = newerStatus(draft.status, file.status);
  const base = { ...draft, path: file.path, status };
  if (!draft.loaded) {
    return {
      draft: {
        ...base,
        loaded: true,
        disk: source,
        text: source,
        crlf: file.source.includes('\r\n'),
        diskChanged: null,
      },
      replace: source,
    };
  }
  if (source === draft.disk) return { draft: { ...base, diskChanged: null }, replace: null };
  // The file now holds what the editor shows: saved from here, or the same edit made elsewhere.
  if (source === draft.text) return { draft: { ...base, disk: source, diskChanged: null }, replace: null };
  if (!isDirty(draft)) return { draft: { ...base, disk: source, text: source, diskChanged: null }, replace: source };
  return { draft: { ...base, diskChanged: source }, replace: null };
}

/** The text to write for the editor's text: with the file's own line ends. */
export function fileText(draft: Draft, text: string): string {
  return draft.crlf ? text.replace(/\n/g, '\r\n') : text;
}

type Listener = () => void;

/** A tiny external store for `useSyncExternalStore`. */
export class DraftStore {
  #draft: Draft = EMPTY_DRAFT;
  readonly #listeners = new Set<Listener>();

  get = (): Draft => this.#draft;

  subscribe = (listener: Listener): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  update(change: (draft: Draft) => Draft): void {
    const next = change(this.#draft);
    if (next === this.#draft) return;
    this.#draft = next;
    for (const listener of [...this.#listeners]) listener();
  }
}

/** The page's one draft. */
export const draftStore = new DraftStore();

// Closing or reloading the tab with unsaved edits asks first. Moving to another page of the app
// does not lose them (the draft lives on), so only leaving the app is guarded.
if (typeof window !== 'undefined') {
  window.addEventListener('beforeunload', (event) => {
    if (isDirty(draftStore.get())) event.preventDefault();
  });
}
