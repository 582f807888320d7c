import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client.ts';
import type { Delivery, DeliveryPage, NotificationList } from '../api/wire.ts';

/** Where those who manage people see every notification and call the app makes. */
export const DELIVERIES_PATH = '/deliveries';

export type { Delivery, DeliveryPage, InAppNotification } from '../api/wire.ts';

/** The signed-in user's notifications; refetched when the live stream says one arrived. */
export function useNotifications(enabled: boolean) {
  return useQuery({
    queryKey: ['notifications'],
    queryFn: async () => (await api<NotificationList>('GET', '/api/notifications')).body,
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
    mutationFn: (id: string) => api('POST', `/api/deliveries/${encodeURIComponent(id)}/retry`),
    onSuccess: () => client.invalidateQueries({ queryKey: ['deliveries'] }),
  });
}
