import type { StudioStatus } from '@ninepoint/spec';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { api } from './client.ts';
import type { User } from './session.ts';

export type { StudioStatus };

/**
 * The calls `ninepoint dev` adds for the browser: the Studio's spec file, saving it, the stream
 * of apply outcomes, and sign-in as a role's demo user. `ninepoint serve` answers none of them
 * (404), so the app calls them only when the page says it runs in dev mode (`DEV_MODE_META`).
 */

/** `GET /api/dev/studio`: the spec file the dev server watches. */
export interface StudioFile {
  path: string;
  source: string;
  status: StudioStatus;
}

export interface DemoRole {
  role: string;
  email: string;
}

export const DEV_CALLS = {
  studio: '/api/dev/studio',
  source: '/api/dev/studio/source',
  events: '/api/dev/events',
  roles: '/api/dev/roles',
  signInAs: '/api/dev/sign-in-as',
  outbox: '/api/dev/outbox',
} as const;

/**
 * `ninepoint dev` marks the page it serves with `<meta name="ninepoint-dev-mode" content="on">`
 * (the server's `DEV_MODE_META`); `serve` does not, so its pages never call a dev-only path.
 */
const DEV_MODE_META = 'ninepoint-dev-mode';

/**
 * What the page says: true or false; null only on Vite's own dev server (`vite dev`), whose page
 * the Ninepoint server never saw, so the mode is asked of the API behind its proxy.
 */
const MARKED: boolean | null = markedDevMode();

function markedDevMode(): boolean | null {
  const meta =
    typeof document === 'undefined' ? null : document.querySelector<HTMLMetaElement>(`meta[name="${DEV_MODE_META}"]`);
  if (meta) return meta.content === 'on';
  return import.meta.env.DEV ? null : false;
}

let probe: Promise<boolean> | null = null;

/**
 * Under `vite dev` only: whether the server behind the proxy runs in dev mode, asked once per
 * page load (a refetch, as after signing in, answers from this promise).
 */
function probeDevMode(): Promise<boolean> {
  probe ??= fetch(DEV_CALLS.studio, { credentials: 'same-origin', headers: { accept: 'application/json' } }).then(
    (response) => response.ok,
    () => {
      probe = null; // No connection is no answer: ask again next time.
      return false;
    },
  );
  return probe;
}

/** True under `ninepoint dev`, false under `serve`; undefined under `vite dev` while its probe is under way. */
export function useDevMode(): boolean | undefined {
  const query = useQuery({
    queryKey: ['dev', 'mode'],
    queryFn: probeDevMode,
    staleTime: Number.POSITIVE_INFINITY,
    enabled: MARKED === null,
  });
  return MARKED ?? query.data;
}

/** The spec file as the dev server last read it; refetched whenever the server reports an attempt. */
export function useStudioFile(enabled: boolean) {
  return useQuery({
    queryKey: ['dev', 'studio'],
    queryFn: async () => (await api<StudioFile>('GET', DEV_CALLS.studio)).body,
    enabled,
    // The editor decides when a newer file replaces its text: not a focus or remount refetch.
    refetchOnWindowFocus: false,
    retry: false,
  });
}

/** Writes the spec file and applies it; the outcome is the answer, whether or not it applied. */
export async function saveSource(source: string): Promise<StudioStatus> {
  return (await api<{ status: StudioStatus }>('PUT', DEV_CALLS.source, { body: { source } })).body.status;
}

/** The roles that have a demo user, to sign in as with one click. */
export function useDemoRoles(enabled: boolean) {
  return useQuery({
    queryKey: ['dev', 'roles'],
    queryFn: async () => (await api<{ roles: DemoRole[] }>('GET', DEV_CALLS.roles)).body.roles,
    enabled,
    staleTime: Number.POSITIVE_INFINITY,
  });
}

export function useSignInAs() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (role: string) => api<{ user: User }>('POST', DEV_CALLS.signInAs, { body: { role } }),
    // Everything the app shows depends on who is signed in.
    onSuccess: () => client.invalidateQueries(),
  });
}

/** How `ninepoint dev` sends mail: `outbox` keeps it (terminal and `GET /api/dev/outbox`), `smtp` sends it. */
export function useDevMailer(enabled: boolean) {
  return useQuery({
    queryKey: ['dev', 'outbox'],
    queryFn: async () => (await api<{ mailer: 'smtp' | 'outbox' }>('GET', DEV_CALLS.outbox)).body.mailer,
    enabled,
    retry: false,
  });
}

type Listener = (status: StudioStatus) => void;

const listeners = new Set<Listener>();
let source: EventSource | null = null;

/**
 * One `EventSource` for the page, shared by whoever listens (the app and the Studio), opened with
 * the first listener and closed with the last. The browser reconnects on its own after a drop;
 * the server sends the current status on every connect.
 */
function subscribe(listener: Listener): () => void {
  listeners.add(listener);
  if (!source) {
    source = new EventSource(DEV_CALLS.events);
    source.addEventListener('spec', (event) => {
      const status = parseStatus((event as MessageEvent<string>).data);
      if (status) for (const each of [...listeners]) each(status);
    });
  }
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0) {
      source?.close();
      source = null;
    }
  };
}

function parseStatus(data: string): StudioStatus | null {
  try {
    const status = JSON.parse(data) as StudioStatus;
    return typeof status.version === 'number' && typeof status.outcome === 'string' ? status : null;
  } catch {
    return null;
  }
}

/** Calls `onStatus` with every `spec` event of the dev server while `enabled`. */
export function useDevEvents(enabled: boolean, onStatus: Listener): void {
  const latest = useRef(onStatus);
  latest.current = onStatus;
  useEffect(() => {
    if (!enabled) return;
    return subscribe((status) => latest.current(status));
  }, [enabled]);
}
