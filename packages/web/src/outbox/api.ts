import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client.ts';

/** Where those who manage people see every notification and call the app makes. */
export const DELIVERIES_PATH = '/deliveries';

/** One entry of the user's notification list (`GET /api/notifications`). */
export interface InAppNotification {
  id: string;
  entity: string;
  recordId: string;
  subject: string;
  text: string;
  at: string;
  read: boolean;
}

/** A notification or call as the outbox holds it (`GET /api/deliveries`). */
export interface Delivery {
  id: string;
  kind: 'call' | 'mail';
  target: string;
  event: string;
  entity: string;
  recordId: string;
  transition: string | null;
  at: string;
  status: 'pending' | 'delivered' | 'dead';
  attempts: number;
  lastCode: number | null;
  lastError: string | null;
  lastAt: string | null;
  nextAt: string | null;
}

export interface DeliveryPage {
  items: Delivery[];
  next: string | null;
  counts: Record<Delivery['status'], number>;
  unconfigured: string[];
}

/** The signed-in user's notifications; refetched when the live stream says one arrived. */
export function useNotifications(enabled: boolean) {
  return useQuery({
    queryKey: ['notifications'],
    queryFn: async () => (await api<{ items: InAppNotification[]; unread: number }>('GET', '/api/notifications')).body,
    enabled,
  });
}

export function useMarkRead() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string | null) =>
      api('POST', id === null ? '/api/notifications/read' : `/api/notifications/${encodeURIComponent(id)}/read`),
    onSuccess: () => client.invalidateQueries({ queryKey: ['notifications'] }),
  });
}

export function useDeliveries(status: Delivery['status'] | null) {
  return useQuery({
    queryKey: ['deliveries', status],
    queryFn: async () => (await api<DeliveryPage>('GET', `/api/deliveries${status ? `?status=${status}` : ''}`)).body,
    placeholderData: keepPreviousData,
    refetchInterval: 5_000,
  });
}

export function useRetryDelivery() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<Delivery>('POST', `/api/deliveries/${encodeURIComponent(id)}/retry`),
    onSuccess: () => client.invalidateQueries({ queryKey: ['deliveries'] }),
  });
}
